// Liveness of virtual registers, dword by dword, over the machine IR.
//
// Per dword and point, the reads that may follow are sorted by the lanes they
// read relative to EXEC here (MInst::exec_change of the author's EXEC
// writes): level 0, no lane outside the current EXEC; level k, no lane
// outside what EXEC was k narrowings ago; cross, unknown. A VGPR write (which
// changes only the lanes EXEC enables) ends level 0 only; an SGPR write ends
// every level. Going backward over a narrowing, levels move down (level 1
// becomes level 0); over a widening by n, up by n; over an unknown change,
// everything goes to cross.
// VGPRs (except linear ones) follow each lane's control flow (logical
// successors), SGPRs and linear VGPRs the wave's.
#pragma once

#include <cstdint>
#include <array>
#include <functional>
#include <vector>

#include "k100/codegen/machine_ir.h"

namespace k100::codegen {

class DwordSet {
 public:
  explicit DwordSet(size_t n = 0) : w_((n + 63) / 64, 0) {}
  void set(size_t i) { w_[i / 64] |= uint64_t(1) << (i % 64); }
  void reset(size_t i) { w_[i / 64] &= ~(uint64_t(1) << (i % 64)); }
  bool test(size_t i) const { return (w_[i / 64] >> (i % 64)) & 1; }
  void clear() { std::fill(w_.begin(), w_.end(), 0); }
  // this |= o; returns whether anything changed
  bool merge(const DwordSet& o);
  void merge_masked(const DwordSet& o, const DwordSet& mask);
  void and_not(const DwordSet& o);
  void and_with(const DwordSet& o);
  bool any() const;
  size_t count_masked(const DwordSet& mask) const;
  template <class F>
  void for_each(F&& f) const {
    for (size_t i = 0; i < w_.size(); ++i)
      for (uint64_t x = w_[i]; x; x &= x - 1) f(i * 64 + size_t(__builtin_ctzll(x)));
  }
  bool operator==(const DwordSet& o) const { return w_ == o.w_; }

 private:
  std::vector<uint64_t> w_;
};

// Dword numbering: register r owns dwords base[r] .. base[r] + width - 1.
struct Dwords {
  std::vector<int> base;
  std::vector<int> owner;  // dword -> register
  size_t total = 0;
  DwordSet vgpr, sgpr;     // dwords of each file
  DwordSet logical;        // dwords that follow the logical CFG (non-linear VGPRs)
  explicit Dwords(const MFunction& f);
};

constexpr int kExecLevels = 4;

struct LiveState {
  std::array<DwordSet, kExecLevels> level;
  DwordSet cross;
  explicit LiveState(size_t n = 0) : cross(n) { level.fill(DwordSet(n)); }
  DwordSet all() const {
    DwordSet a = cross;
    for (const DwordSet& l : level) a.merge(l);
    return a;
  }
  bool merge(const LiveState& o, const DwordSet& mask);
  void clear();
  void all_into(DwordSet& out) const;
  bool operator==(const LiveState& o) const { return level == o.level && cross == o.cross; }
};

// A dword is live where a read may follow AND some write reaches (before any
// write the register holds nothing anyone wrote, so it may share a place).
class Liveness {
 public:
  Liveness(const MFunction& f, const Dwords& d);
  // Live at the block's start, as far as writes reach there.
  DwordSet live_in(int block) const;

  // Walks block `b` backward: visit(index, inst, live after it) for every
  // instruction, last first (the state is limited to dwords some write reaches).
  void walk(int b, const std::function<void(int, const MInst&, const LiveState&)>& visit) const;

  // The first read of a dword no write reaches on any path: (block, index, register), or block -1.
  struct Undefined {
    int block = -1, index = -1, reg = -1;
  };
  Undefined undefined_read() const;

  // The backward transfer of one instruction.
  static void transfer(const MFunction& f, const Dwords& d, const MInst& m, LiveState& s);

 private:
  const MFunction& f_;
  const Dwords& d_;
  std::vector<LiveState> in_, out_;
  std::vector<DwordSet> reached_in_;  // dwords some write reaches at a block's start
};


}  // namespace k100::codegen
