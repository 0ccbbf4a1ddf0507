// .npy 1.0: the magic "\x93NUMPY", version 1.0, a u16 header length, a
// Python dict literal padded with spaces to a multiple of 64 bytes (newline
// last), then the raw data.
#include "k100/quant/npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "k100/base/error.h"

namespace k100::quant {

void write_npy_f32(const std::string& path, std::span<const float> data, std::span<const uint64_t> shape) {
  uint64_t n = 1;
  std::string dims;
  for (uint64_t d : shape) {
    n *= d;
    dims += std::to_string(d) + ", ";
  }
  if (shape.size() > 1) dims.resize(dims.size() - 2);  // (a, b); a 1-tuple keeps its comma: (a,)
  else if (shape.size() == 1) dims.resize(dims.size() - 1);
  if (n != data.size())
    throw Error(path + ": " + std::to_string(data.size()) + " values do not fill a shape of " +
                std::to_string(n) + " elements");
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }";
  const size_t prefix = 10;  // magic 6 + version 2 + length 2
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(header.size() & 0xff);
  out += char(header.size() >> 8);
  out += header;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error(path + ": cannot create: " + std::strerror(errno));
  bool ok = std::fwrite(out.data(), 1, out.size(), f) == out.size();
  if (ok && !data.empty()) ok = std::fwrite(data.data(), 4, data.size(), f) == data.size();
  const int e = errno;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok) throw Error(path + ": cannot write: " + std::strerror(e));
}

}  // namespace k100::quant
