#include "k100/model/kv_cache.h"

#include "k100/base/error.h"

namespace k100::model {

KVCache::KVCache(Device& dev, int64_t dim, int64_t max_len, Workspace* ws, std::string tag)
    : dev_(dev), dim_(dim), max_len_(max_len), ws_(dev, ws), tag_(std::move(tag)) {
  if (dim <= 0 || max_len <= 0)
    throw Error(tag_ + ": KVCache needs dim, max_len > 0 (got " + std::to_string(dim) + ", " + std::to_string(max_len) + ")");
  k_ = ws_->buffer(tag_ + ".k", size_t(dim * max_len) * 4);
  v_ = ws_->buffer(tag_ + ".v", size_t(dim * max_len) * 4);
}

int64_t KVCache::check(int64_t rows) const {
  if (rows <= 0) throw Error(tag_ + ": append of " + std::to_string(rows) + " rows");
  if (length_ + rows > max_len_)
    throw Error(tag_ + ": KV cache full (" + std::to_string(length_) + " + " + std::to_string(rows) + " rows, max_len " +
                std::to_string(max_len_) + ")");
  return length_ * dim_ * 4;
}

void KVCache::append_device(uint64_t k, uint64_t v, int64_t rows) {
  const uint64_t at = uint64_t(check(rows)), bytes = uint64_t(rows * dim_) * 4;
  dev_.copy(k_ + at, k, bytes);
  dev_.copy(v_ + at, v, bytes);
  length_ += rows;
}

void KVCache::append(std::span<const float> k, std::span<const float> v) {
  if (k.size() != v.size() || k.size() % size_t(dim_))
    throw Error(tag_ + ": append of " + std::to_string(k.size()) + " k and " + std::to_string(v.size()) +
                " v values; both must be rows of dim " + std::to_string(dim_));
  const int64_t rows = int64_t(k.size()) / dim_;
  const uint64_t at = uint64_t(check(rows));
  dev_.upload(k_ + at, k.data(), k.size_bytes());
  dev_.upload(v_ + at, v.data(), v.size_bytes());
  length_ += rows;
}

}  // namespace k100::model
