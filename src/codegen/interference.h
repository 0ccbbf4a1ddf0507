// What allocation knows of a kernel after liveness: which virtual registers
// may not share a physical one, where each starts being live, how long it
// lives, how many dwords of each file are live at every point, and the
// copies that could vanish.
#pragma once

#include <cstdint>
#include <vector>

#include "k100/codegen/machine_ir.h"
#include "liveness.h"

namespace k100::codegen {

// A point: the position after an instruction, numbered over all blocks in
// order (instruction i of the whole kernel).
struct PointRef {
  int block = 0, index = 0;
};

struct Interference {
  size_t n = 0;
  std::vector<uint64_t> bits;       // n x n
  std::vector<int> first_point;     // per register: first point where live or written (INT32_MAX: never)
  std::vector<int> live_points;     // per register: points where live
  std::vector<int> uses;            // per register: instructions that read or write it
  std::vector<int> pressure_v, pressure_s;  // per point: live dwords after the instruction
  std::vector<PointRef> points;     // point -> instruction
  std::vector<std::pair<int, int>> copies;  // (dst, src) of whole-register moves
  std::vector<std::vector<int>> live_at;    // per point: registers live after it (when asked for)
  int max_v = 0, max_s = 0;

  bool test(size_t a, size_t b) const { return (bits[a * words() + b / 64] >> (b % 64)) & 1; }
  void set(size_t a, size_t b) {
    bits[a * words() + b / 64] |= uint64_t(1) << (b % 64);
    bits[b * words() + a / 64] |= uint64_t(1) << (a % 64);
  }
  size_t words() const { return (n + 63) / 64; }
};

Interference build_interference(const MFunction& f, const Dwords& d, const Liveness& live, bool record_live = false);

// The live set after point p, as registers (for messages and spill choice).
std::vector<int> live_registers_at(const MFunction& f, const Dwords& d, const Liveness& live, int point);

}  // namespace k100::codegen
