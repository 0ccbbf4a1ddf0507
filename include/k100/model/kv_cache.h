// k100lc model: KVCache (PYTHON_API.md 7.10), plain f32 K and V arrays
// [max_len][dim] with a fill length. append_device copies rows on the device
// (each copy waits for queued work); the decoder keeps its own caches in the
// layouts attention reads (see attention.h).
#pragma once

#include <span>
#include <string>

#include "k100/model/device.h"
#include "k100/model/workspace.h"

namespace k100::model {

class KVCache {
 public:
  KVCache(Device& dev, int64_t dim, int64_t max_len, Workspace* ws = nullptr, std::string tag = "kv");
  uint64_t k() const { return k_; }
  uint64_t v() const { return v_; }
  int64_t length() const { return length_; }
  int64_t dim() const { return dim_; }
  int64_t max_len() const { return max_len_; }
  // rows rows of k and v ([rows][dim] f32 on the device) after the cached ones.
  void append_device(uint64_t k, uint64_t v, int64_t rows);
  void append(std::span<const float> k, std::span<const float> v);
  void reset() { length_ = 0; }

 private:
  int64_t check(int64_t rows) const;
  Device& dev_;
  int64_t dim_, max_len_;
  WorkspaceRef ws_;
  std::string tag_;
  uint64_t k_ = 0, v_ = 0;
  int64_t length_ = 0;
};

}  // namespace k100::model
