// A read-only memory mapping of a whole file (POSIX mmap), released on
// destruction. An empty file maps to an empty span.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace k100::quant::detail {

class MappedFile {
 public:
  MappedFile() = default;
  // k100::Error naming the path and the system's reason when the file cannot
  // be opened, is not a regular file, or cannot be mapped.
  explicit MappedFile(const std::string& path);
  MappedFile(MappedFile&& o) noexcept;
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::span<const uint8_t> bytes() const { return {data_, size_}; }

 private:
  void release();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace k100::quant::detail
