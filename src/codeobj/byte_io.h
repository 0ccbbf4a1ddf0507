// Little-endian byte reading and writing for the ELF and descriptor code.
// The reader side is bounds-checked: every access names what it read and where.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace k100::codeobj::detail {

inline uint16_t load_u16(const uint8_t* p) {
  return uint16_t(p[0] | (p[1] << 8));
}
inline uint32_t load_u32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}
inline uint64_t load_u64(const uint8_t* p) {
  return uint64_t(load_u32(p)) | (uint64_t(load_u32(p + 4)) << 32);
}
inline void store_u16(uint8_t* p, uint16_t v) {
  p[0] = uint8_t(v);
  p[1] = uint8_t(v >> 8);
}
inline void store_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (8 * i));
}
inline void store_u64(uint8_t* p, uint64_t v) {
  for (int i = 0; i < 8; ++i) p[i] = uint8_t(v >> (8 * i));
}

// Appends little-endian values to a growing byte vector.
class ByteWriter {
 public:
  std::vector<uint8_t>& bytes() { return buf_; }
  size_t size() const { return buf_.size(); }
  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) { put(v, 2); }
  void u32(uint32_t v) { put(v, 4); }
  void u64(uint64_t v) { put(v, 8); }
  void raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  void zeros(size_t n) { buf_.insert(buf_.end(), n, 0); }
  void pad_to(size_t offset) {
    if (buf_.size() < offset) zeros(offset - buf_.size());
  }

 private:
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) buf_.push_back(uint8_t(v >> (8 * i)));
  }
  std::vector<uint8_t> buf_;
};

inline uint64_t align_up(uint64_t v, uint64_t a) {
  return a <= 1 ? v : (v + a - 1) / a * a;
}

// Smallest value >= v that is congruent to `skew` modulo `align` (align a power of two).
inline uint64_t align_up_skew(uint64_t v, uint64_t align, uint64_t skew) {
  skew %= align;
  return (v + align - 1 - skew) / align * align + skew;
}

}  // namespace k100::codeobj::detail
