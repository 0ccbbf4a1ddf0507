// k100lc kernels: helpers for writing kernel tests against a TestDevice.
//
//   DeviceBuffer<float> x(dev, host_x);          // alloc + upload
//   DeviceBuffer<float> y(dev, n);               // alloc, zero-filled
//   dev.launch("gemv_f32_warp_k", {n}, {64}, {w.addr(), x.addr(), y.addr(), u32(n), u32(k), 64});
//   return compare(y.download(), reference, def.tolerance);
#pragma once

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "k100/kernels/registry.h"

namespace k100::kernels {

// argv slots: integers as they are, f32 as its bit pattern in the low 32 bits.
inline uint64_t u32(uint64_t v) { return v & 0xffffffffu; }
inline uint64_t i32(int64_t v) { return uint64_t(uint32_t(int32_t(v))); }
inline uint64_t f32(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return b;
}

// Launches a kernel with its argv packed and checked by its signature.
inline void launch(TestDevice& dev, const codegen::Signature& sig, Dim3 grid, Dim3 workgroup,
                   std::initializer_list<codegen::ArgInit> args) {
  dev.launch(sig.kernel(), grid, workgroup, sig.pack(args));
}

// Launches a kernel at the geometry its launch contract gave (`l`), with `argv` in argument order.
inline void launch(TestDevice& dev, const std::string& lookup, const Launch& l, const std::vector<uint64_t>& argv) {
  dev.launch(lookup, {l.grid[0], l.grid[1], l.grid[2]}, {l.workgroup}, argv);
}

// Device memory owned by a test; freed when it goes out of scope.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer(TestDevice& dev, size_t count) : dev_(dev), count_(count) {
    addr_ = dev_.alloc(bytes() ? bytes() : 4);
    dev_.fill(addr_, 0, bytes() ? bytes() : 4);
  }
  DeviceBuffer(TestDevice& dev, const std::vector<T>& host) : DeviceBuffer(dev, host.size()) { upload(host); }
  ~DeviceBuffer() {
    try {
      dev_.free(addr_);
    } catch (...) {
    }
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  uint64_t addr() const { return addr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  void upload(const std::vector<T>& host) { dev_.upload(addr_, host.data(), host.size() * sizeof(T)); }
  std::vector<T> download() const {
    std::vector<T> out(count_);
    dev_.download(out.data(), addr_, bytes());
    return out;
  }

 private:
  TestDevice& dev_;
  size_t count_;
  uint64_t addr_ = 0;
};

// Deterministic random inputs.
class Rng {
 public:
  explicit Rng(uint32_t seed) : gen_(seed) {}
  std::vector<float> uniform(size_t n, float lo = -1.f, float hi = 1.f);
  std::vector<float> normal(size_t n, float mean = 0.f, float stddev = 1.f);
  std::vector<int32_t> integers(size_t n, int32_t lo, int32_t hi);
  std::vector<uint8_t> bytes(size_t n);
  std::mt19937& engine() { return gen_; }

 private:
  std::mt19937 gen_;
};

// Compares outputs element by element: |got - want| <= abs + rel * |want|.
// NaN matches NaN; an infinity must match exactly. max_rel is measured
// against |want| where it is not tiny.
CaseResult compare(const std::vector<float>& got, const std::vector<float>& want, const Tolerance& tol);
CaseResult compare_exact(const std::vector<int32_t>& got, const std::vector<int32_t>& want);
CaseResult compare_exact_u32(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want);
// The bit patterns of floats, for bit-exact comparisons.
std::vector<uint32_t> bits_of(const std::vector<float>& v);
// Bit-for-bit equality, except that every NaN equals every NaN (payloads of
// NaNs produced by arithmetic differ between processors).
CaseResult compare_bits(const std::vector<float>& got, const std::vector<float>& want);
// A case's dimension `key`, or `fallback` when the case does not give it.
int64_t dim(const Case& c, const std::string& key, int64_t fallback);
// An output of n floats followed by guard words a kernel must not write
// (quiet NaNs of one payload), and the check that splits them off again:
// the first n words stay in `got`, the result fails naming the output's
// length when a guard word changed.
inline constexpr size_t kOutputGuardWords = 64;  // guarded(), split_guard()
std::vector<float> guarded(size_t n);
CaseResult split_guard(std::vector<float>& got, size_t n);
// Combines the results of several outputs of one case.
CaseResult combine(const std::vector<CaseResult>& parts);
// nullopt when the device's launch contract of `lookup` refuses `sizes` with
// an error naming `rule` (the contract's `let rule = ...`); otherwise a
// failed result saying it accepted them or refused them for another reason.
std::optional<CaseResult> expect_contract_refusal(TestDevice& dev, const std::string& lookup,
                                                  const std::map<std::string, int64_t>& sizes,
                                                  const std::string& rule);

uint64_t hash_bytes(const void* data, size_t bytes, uint64_t seed = 0);

// Case with the given dims, e.g. make_case({{"n", 256}, {"k", 640}}).
Case make_case(std::map<std::string, int64_t> dims, uint32_t seed = 1);
// Cases from a table: one row of values per case, in the order of `names`;
// the column "seed" is the case's seed (without one, row i has seed i + 1).
// A row of another length than `names` is an error naming the row.
std::vector<Case> case_table(const std::vector<std::string>& names, const std::vector<std::vector<int64_t>>& rows);

}  // namespace k100::kernels
