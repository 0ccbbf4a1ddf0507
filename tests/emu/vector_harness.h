// A harness for vector memory and LDS unit tests. Each case is a snippet run
// by one workgroup of 64 work-items; afterwards v0..v31 of every lane and the
// input buffer are copied back and a check function inspects them.
//
// Register conventions inside a case body:
//   s[92:93] out pointer (harness only), s[94:95] input buffer (256 dwords,
//   in[i] = pattern(i), writable), v62 = lane id (do not write), v63 scratch
//   for the harness. The case may use v0..v61, s0..s91 (minus the user/system
//   SGPRs its options enable).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "emu_test_support.h"

namespace k100::emu::test {

uint32_t vec_pattern(uint32_t i);  // initial in[i]

// Lane-dependent data in v5..v8 for the stores and atomics of a case:
// kLaneData sets them (it uses s40), lane_data(k, lane) is the value of
// v(5 + k) in `lane`.
extern const char* const kLaneData;
uint32_t lane_data(int k, int lane);
// Sets v2, v3, v4 and v9 to 0xaaaaaaaa, so a check sees what a case did not write.
extern const char* const kMarkRegisters;

struct VecResult {
  std::vector<uint32_t> v;  // [reg * 64 + lane], v0..v31
  std::vector<uint32_t> in_before, in_after;
  uint32_t reg(unsigned r, int lane) const { return v[r * 64 + unsigned(lane)]; }
};

struct VectorCase {
  std::string name;
  std::string body;
  std::function<void(const VecResult&)> check;
  KernelOptions options;  // kernarg_ptr is forced on; flat_scratch_init adds the FLAT_SCRATCH prologue
};

// The instruction names a table of cases exercises are found by decoding
// the assembled cases (see coverage_test.cpp).
std::string vector_cases_source(const std::vector<VectorCase>& cases, const std::string& prefix);
void run_vector_cases(const std::vector<VectorCase>& cases, const std::string& prefix);

const std::vector<VectorCase>& vmem_cases();
const std::vector<VectorCase>& ds_cases();

// Expects every lane of register r to equal f(lane).
void expect_lanes(const VecResult& r, const std::string& what, unsigned reg, const std::function<uint32_t(int)>& f);

}  // namespace k100::emu::test
