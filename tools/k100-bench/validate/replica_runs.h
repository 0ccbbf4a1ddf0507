// Runs of the validation replicas (replica_kernels.h) at a measured shape on
// an emulated device with the timing model's recorder: the inputs are
// generated, the outputs checked against a host reference (so the loops ran
// as described), and the dispatches that the measurement timed are kept for
// the model.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "calibrate/probe_device.h"
#include "k100/timing/simulator.h"

namespace k100::bench::validate {

struct ReplicaRun {
  calibrate::Recording recording;               // every dispatch, in order
  std::vector<const timing::DispatchTrace*> timed;  // the ones the measurement timed
  bool pass = false;
  std::string check;  // "pass" or what differed
  timing::Timing model(const timing::MachineParams& m) const { return timing::simulate(timed, m); }
};

// One row of `dim` floats (grid 1, wg 64).
ReplicaRun run_rmsnorm(calibrate::ProbeDevice& dev, int loads_per_wait, uint32_t dim);
// One row of `cols` floats (grid 1, wg 64).
ReplicaRun run_softmax(calibrate::ProbeDevice& dev, int columns_per_lane, uint32_t cols);

// Split decode attention over `heads` heads of head_dim `dh`, n_kv rows
// (max_len = pad = n_kv, v rows of heads x dh floats), 2^cshift splits:
// the part replica (per-lane batches of `batch`), then the combine replica;
// the combined output is checked against a host attention. `time_part` /
// `time_combine` choose the dispatches that are timed.
struct AttentionShape {
  uint32_t heads = 8, dh = 64, n_kv = 4096, cshift = 6;
  int batch = 4;
  bool time_part = true, time_combine = true;
};
ReplicaRun run_attention(calibrate::ProbeDevice& dev, const AttentionShape& s);

}  // namespace k100::bench::validate
