// Runs probe kernels on an emulated device with the timing model's
// recorder attached, keeping the traces so the model can be evaluated (and
// re-evaluated with other parameters) without emulating again.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "k100/codeobj/code_object.h"
#include "k100/emu/device.h"
#include "k100/timing/simulator.h"
#include "k100/timing/trace.h"

namespace k100::bench::calibrate {

// The recorded dispatches of one measurement, in order.
struct Recording {
  std::vector<std::unique_ptr<timing::DispatchTrace>> dispatches;
  std::vector<const timing::DispatchTrace*> sequence() const;
  timing::Timing model(const timing::MachineParams& m) const;
};

class ProbeDevice {
 public:
  explicit ProbeDevice(unsigned threads = 0) : threads_(threads) {}
  emu::Device& device() { return device_; }
  // Loads a probe's code object (kept alive by the device).
  const emu::Program& load(const codeobj::CodeObject& co);
  // Dispatches kernel `kernel` of `program` `repeat` times back to back and
  // returns the recording; throws k100::Error (with the fault) when it faults.
  Recording run(const emu::Program& program, const std::string& kernel, const emu::LaunchConfig& launch,
                const std::vector<uint8_t>& kernarg, int repeat = 1);

 private:
  emu::Device device_;
  std::vector<std::shared_ptr<const emu::Program>> programs_;
  unsigned threads_;
};

}  // namespace k100::bench::calibrate
