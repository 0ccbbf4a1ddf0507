#include "k100/model/workspace.h"

namespace k100::model {

Workspace::~Workspace() {
  try {
    free();
  } catch (...) {
    // a device that failed already reported it; buffers die with it
  }
}

uint64_t Workspace::buffer(const std::string& key, size_t bytes) {
  auto it = buffers_.find(key);
  if (it != buffers_.end()) {
    if (it->second.bytes >= bytes) return it->second.ptr;
    dev_.free(it->second.ptr);
    buffers_.erase(it);
  }
  const uint64_t p = dev_.alloc(bytes ? bytes : 1);
  buffers_[key] = Buffer{p, bytes};
  return p;
}

uint64_t Workspace::upload(const std::string& key, const void* data, size_t bytes) {
  const uint64_t p = buffer(key, bytes);
  if (bytes) dev_.upload(p, data, bytes);
  return p;
}

size_t Workspace::size(const std::string& key) const {
  auto it = buffers_.find(key);
  return it == buffers_.end() ? 0 : it->second.bytes;
}

void Workspace::free() {
  auto buffers = std::move(buffers_);
  buffers_.clear();
  for (auto& [key, b] : buffers) dev_.free(b.ptr);
}

}  // namespace k100::model
