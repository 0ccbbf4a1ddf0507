// k100lc model: Workspace, a keyed pool of device buffers reused across
// tokens and layers (PYTHON_API.md 4.1). Every layer keeps its buffers under
// keys derived from its tag ("<tag>.w", "<tag>.out", ...), so layers sharing
// one workspace need distinct tags.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "k100/model/device.h"

namespace k100::model {

class Workspace {
 public:
  explicit Workspace(Device& dev) : dev_(dev) {}
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  Device& device() const { return dev_; }
  // The buffer under `key` if it holds at least `bytes`; otherwise the old
  // one is freed and one of exactly `bytes` allocated (the pointer may change).
  uint64_t buffer(const std::string& key, size_t bytes);
  // buffer(key, bytes) then an upload of `data`.
  uint64_t upload(const std::string& key, const void* data, size_t bytes);
  size_t size(const std::string& key) const;  // 0 when absent
  void free();                                // every buffer

 private:
  struct Buffer {
    uint64_t ptr = 0;
    size_t bytes = 0;
  };
  Device& dev_;
  std::map<std::string, Buffer> buffers_;
};

// A layer's workspace: the caller's, or one the layer owns.
class WorkspaceRef {
 public:
  WorkspaceRef(Device& dev, Workspace* ws) : own_(ws ? nullptr : new Workspace(dev)), ws_(ws ? ws : own_.get()) {}
  Workspace& operator*() const { return *ws_; }
  Workspace* operator->() const { return ws_; }

 private:
  std::unique_ptr<Workspace> own_;
  Workspace* ws_;
};

}  // namespace k100::model
