// k100lc model: run_sequence (PYTHON_API.md 4.2) and the device argmax of
// the sampler (7.14).
#pragma once

#include <functional>
#include <span>

#include "k100/model/device.h"
#include "k100/model/workspace.h"

namespace k100::model {

using DeviceOp = std::function<uint64_t(uint64_t x)>;

// x = op(x) for each op in order, then one sync when `sync`; the final pointer.
uint64_t run_sequence(Device& dev, std::span<const DeviceOp> ops, uint64_t x, bool sync = true);

// idx[r] = argmax_c logits[r][c] (the first on ties) for r < rows, one
// argmax_k per row into "sample.idx" of ws (int32 [rows]); syncs.
uint64_t argmax_device(Device& dev, Workspace& ws, uint64_t logits, int64_t rows, int64_t cols);

}  // namespace k100::model
