// Helpers for the emulator tests: assembling kernels with the LLVM oracle
// tools (llvm-mc + ld.lld), locating compiled test kernels, and small
// host-side utilities. Tests skip with a printed reason when a tool is absent.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "files.h"
#include "k100/emu/device.h"
#include "tools.h"

namespace k100::emu::test {

using k100::test::find_tool;

// Scratch directory for this test binary's files (created on demand).
std::string work_dir();

struct KernelOptions {
  bool private_segment_buffer = false;
  bool dispatch_ptr = false;
  bool queue_ptr = false;
  bool kernarg_ptr = true;
  bool dispatch_id = false;
  bool flat_scratch_init = false;
  bool private_segment_size = false;
  bool wave_offset = false;
  bool wg_id_x = true, wg_id_y = false, wg_id_z = false, wg_info = false;
  int workitem_id = 0;  // 0: x, 1: x y, 2: x y z
  unsigned lds = 0;
  unsigned private_size = 0;
  unsigned kernarg_size = 64;
  unsigned vgprs = 64;
  unsigned sgprs = 96;
  bool ieee = true, dx10_clamp = true;
  int denorm32 = 3;  // float_denorm_mode_32
};

// One .amdhsa kernel in assembly: `body` becomes its code.
std::string kernel_asm(const std::string& name, const std::string& body, const KernelOptions& o = {});

// Assembles a source of kernel_asm blocks into a code object with llvm-mc-14
// and ld.lld. Returns nullopt and sets *why when the tools are missing;
// throws std::runtime_error with the tool's output on assembly errors.
std::optional<std::vector<uint8_t>> assemble(const std::string& source, const std::string& stem, std::string* why);

// The assembly of the fault-test kernels (fault_test.cpp; also used by the coverage test).
std::string fault_kernels_source();

// A file's bytes, nullopt when it cannot be read (tests/support).
using k100::test::read_file;

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}
template <class T>
std::vector<T> from_bytes(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

// Device buffers with host copies, freed at scope exit.
class Buffers {
 public:
  explicit Buffers(Device& d) : dev_(d) {}
  ~Buffers() {
    for (uint64_t a : owned_) dev_.free(a);
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v, const std::string& label = "input") {
    uint64_t a = dev_.alloc(std::max<size_t>(v.size() * sizeof(T), 1), label);
    if (!v.empty()) dev_.write(a, bytes_of(v));
    owned_.push_back(a);
    return a;
  }
  uint64_t zeros(size_t bytes, const std::string& label = "output") {
    uint64_t a = dev_.alloc(std::max<size_t>(bytes, 1), label);
    owned_.push_back(a);
    return a;
  }
  template <class T>
  std::vector<T> download(uint64_t addr, size_t count) {
    std::vector<uint8_t> b(count * sizeof(T));
    dev_.read(addr, b);
    return from_bytes<T>(b);
  }

 private:
  Device& dev_;
  std::vector<uint64_t> owned_;
};

// Little-endian packing of kernel arguments in order of appearance, with natural alignment.
class Args {
 public:
  template <class T>
  Args& add(T v) {
    size_t a = sizeof(T);
    while (bytes_.size() % a) bytes_.push_back(0);
    size_t at = bytes_.size();
    bytes_.resize(at + sizeof(T));
    std::memcpy(bytes_.data() + at, &v, sizeof(T));
    return *this;
  }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

// One workgroup of 64 work-items on one host thread with the two arguments
// of the scalar and vector case harnesses (out, in).
DispatchResult run_one_wave(Device& dev, const Program& prog, const std::string& kernel, uint64_t out, uint64_t in);

}  // namespace k100::emu::test
