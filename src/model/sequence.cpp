#include "k100/model/sequence.h"

#include "k100/base/error.h"

namespace k100::model {

uint64_t run_sequence(Device& dev, std::span<const DeviceOp> ops, uint64_t x, bool sync) {
  for (const DeviceOp& op : ops) x = op(x);
  if (sync) dev.sync();
  return x;
}

uint64_t argmax_device(Device& dev, Workspace& ws, uint64_t logits, int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) throw Error("argmax_device: " + std::to_string(rows) + " rows of " + std::to_string(cols));
  const KernelRef k = dev.kernel("argmax_k", "argmax_device");
  const kernels::LaunchContract contract = dev.contract(k);
  const kernels::Launch l = contract.evaluate({{"n", cols}});
  const uint64_t idx = ws.buffer("sample.idx", size_t(rows) * 4);
  for (int64_t r = 0; r < rows; ++r)
    dev.launch(k, l.grid[0], l.workgroup,
               contract.argv(l, {{"x", logits + uint64_t(r * cols) * 4}, {"out", idx + uint64_t(r) * 4}}));
  dev.sync();
  return idx;
}

}  // namespace k100::model
