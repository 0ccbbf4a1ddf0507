// Files and byte images the GGUF tests build: a scratch directory, and a
// GGUF assembled field by field so a test can put any value anywhere.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace k100::test {

// A path in a per-process scratch directory under the system temp dir.
inline std::string scratch_path(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("k100_quant_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

inline void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

// Little-endian fields appended one at a time.
struct RawGguf {
  std::vector<uint8_t> b;

  template <class T>
  RawGguf& put(T v) {
    const size_t at = b.size();
    b.resize(at + sizeof v);
    std::memcpy(b.data() + at, &v, sizeof v);
    return *this;
  }
  RawGguf& u8(uint8_t v) { return put(v); }
  RawGguf& u32(uint32_t v) { return put(v); }
  RawGguf& u64(uint64_t v) { return put(v); }
  RawGguf& str(const std::string& s) {
    u64(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  RawGguf& header(uint64_t tensors, uint64_t kvs, uint32_t version = 3) {
    return u32(0x46554747).u32(version).u64(tensors).u64(kvs);
  }
  // key, type u32 (4), value
  RawGguf& kv_u32(const std::string& key, uint32_t v) { return str(key).u32(4).u32(v); }
  // name, n_dims, dims, type, offset
  RawGguf& tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
    str(name).u32(uint32_t(dims.size()));
    for (uint64_t d : dims) u64(d);
    return u32(type).u64(offset);
  }
  RawGguf& pad(size_t alignment = 32) {
    b.resize(b.size() + (alignment - b.size() % alignment) % alignment, 0);
    return *this;
  }
  RawGguf& fill(size_t n, uint8_t v = 0) {
    b.insert(b.end(), n, v);
    return *this;
  }
};

}  // namespace k100::test
