// Selection: argmax_k, argmax_part_k, argmax_comb_k (argmax over a row, in
// one or two stages) and topk_k, router_top10_k (per-row top-k by insertion,
// one row per lane). Generators, registry entries, host references, tests.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "ops_parts.h"
#include "k100/base/error.h"

namespace k100::kernels {

namespace {

using codeobj::HiddenArgLayout;

constexpr uint32_t kNegInfBits = 0xff800000u;  // -inf
constexpr uint32_t kNoChunk = 0x1fffffffu;     // chunk index of "no element": 4 * it + 3 = INT32_MAX
constexpr uint32_t kNoIndex = 0x7fffffffu;
constexpr uint32_t kQuietNaN = 0x7fc00000u;
constexpr float kLog2e = 1.4426950408889634f;

// ================================================================ argmax

namespace am {

using namespace codegen;
using as::vcc, as::exec, as::offset;

Signature argmax_signature(bool part) {
  if (part)
    return Signature("argmax_part_k", {in("x", "f32"), value("n", "i64"), value("nb", "i32"), out("val", "f32"),
                                       out("idx", "i32")},
                     HiddenArgLayout::Full);
  return Signature("argmax_k", {in("x", "f32"), value("n", "i64"), out("out", "i32")}, HiddenArgLayout::Full);
}
const Signature kComb("argmax_comb_k", {in("val", "f32"), in("idx", "i32"), value("nb", "i32"), out("out", "i32")},
                      HiddenArgLayout::Full);

// n (i64) clamped to [0, 2^31 - 1] in n[0].
void clamp_length(Kernel& k, SGPR n) {
  Label hi_zero = k.label("n_hi_zero"), done = k.label("n_done");
  k.s_cmp_eq_u32(n[1], 0);
  k.s_cbranch_scc1(hi_zero);
  k.s_cmp_lt_i32(n[1], 0);
  k.s_cselect_b32(n[0], 0, 0x7fffffff);
  k.s_branch(done);
  k.bind(hi_zero);
  k.s_cmp_lt_i32(n[0], 0);
  k.s_cselect_b32(n[0], 0x7fffffff, n[0]);
  k.bind(done);
}

// Scans the segment seg[0 .. len) with the workgroup; returns the best
// (value, local index) (index >= len: no element).
std::pair<SGPR, SGPR> scan_segment(Kernel& k, const WorkgroupWaves& th, SGPR seg, SGPR len) {
  const VGPR vT = k.local_id(), vBv = k.vgpr(4, "best values"), vBc = k.vgpr(4, "best chunks"),
             vQBase = k.vgpr(1, "chunk base"), vQ = k.vgpr(1, "chunk"), data = k.vgpr(16, "x"),
             vV4 = k.vgpr(1, "tail value"), vI4 = k.vgpr(1, "tail index"), vTv = k.vgpr(1, "t"),
             vAddr = k.vgpr(1, "address");
  const SGPR sNq = k.sgpr(1, "chunks"), sRem = k.sgpr(1, "rem"), sLeft = k.sgpr(1, "left"),
             sScratch = k.sgpr(1, "scratch"), stream = k.sgpr(2, "stream");
  k.s_lshr_b32(sNq, len, 2);
  k.s_and_b32(sRem, len, 3);
  k.s_mov_b64(stream, seg);
  ChunkWalk walk;
  walk.single_wave = false;
  walk.w_threads = th.threads;
  walk.thread = vT;
  walk.max_batch = 4;
  walk.left = sLeft;
  // per component c: best value and the chunk it came from; initially -inf in
  // the thread's first chunk (so -inf / NaN-only rows still give the first index)
  k.v_mov_b32(vQ, kNoChunk);
  k.v_cmp_gt_u32(vcc, sNq, vT);
  k.v_cndmask_b32(vBc[0], vQ, vT, vcc);
  for (int c = 0; c < 4; ++c) {
    k.v_mov_b32(vBv[c], kNegInfBits);
    if (c) k.v_mov_b32(vBc[c], vBc[0]);
  }
  k.v_mov_b32(vQBase, vT);
  k.s_mov_b32(sLeft, sNq);
  walk.loads_per_chunk = 1;
  walk.load = [&](int i, VGPR voff, int) { k.global_load_dwordx4(data.sub(4 * i, 4), voff, stream); };
  walk.compute = [&](int i) {
    VGPR q = vQBase;
    if (i) {
      k.s_mul_i32(sScratch, th.threads, i);
      k.v_add_u32(vQ, sScratch, vQBase);
      q = vQ;
    }
    for (int c = 0; c < 4; ++c) {  // strict >: the earlier chunk keeps ties, NaN never wins
      k.v_cmp_gt_f32(vcc, data[4 * i + c], vBv[c]);
      k.v_cndmask_b32(vBv[c], vBv[c], data[4 * i + c], vcc);
      k.v_cndmask_b32(vBc[c], vBc[c], q, vcc);
    }
  };
  walk.finish = [&](int n) {
    k.s_mul_i32(sScratch, th.threads, n);
    k.v_add_u32(vQBase, sScratch, vQBase);
  };
  walk.advance = [&](Operand bytes) { add64(k, stream, bytes); };
  chunk_walk(k, walk, {4, 1});
  // element tail: thread t < rem takes element 4 nq + t as a fifth candidate
  k.v_mov_b32(vV4, kNegInfBits);
  k.v_mov_b32(vI4, kNoIndex);
  Label no_tail = k.label("tail_done");
  k.s_cmp_eq_u32(sRem, 0);
  k.s_cbranch_scc1(no_tail);
  const SGPR saved = mask_lanes_below(k, sRem, vT);
  k.s_lshl_b32(sScratch, sNq, 2);  // element index 4 nq
  k.v_add_u32(vI4, sScratch, vT);
  k.v_lshlrev_b32(vAddr, 2, vI4);
  k.global_load_dword(vTv, vAddr, seg);
  k.v_cmp_o_f32(vcc, vTv, vTv);  // NaN counts as -inf
  k.v_cndmask_b32(vV4, vV4, vTv, vcc);
  restore_exec(k, saved);
  k.bind(no_tail);
  // the thread's candidates: element index = 4 chunk + c, then the tail
  for (int c = 0; c < 4; ++c) k.v_lshl_add_u32(vBc[c], vBc[c], 2, c);
  for (int c = 1; c < 4; ++c) argmax_merge(k, vBv[0], vBc[0], vBv[c], vBc[c]);
  argmax_merge(k, vBv[0], vBc[0], vV4, vI4);
  return workgroup_argmax(k, vBv[0], vBc[0], th.wave, th.waves, th.lane);
}

// argmax_k (part = false) and argmax_part_k (part = true).
codeobj::CodeObject generate_argmax(bool part, isa::Target target) {
  Kernel k(argmax_signature(part), target, ops::options(128));
  Label exit = k.label("exit");
  const SGPR sN = k.arg("n"), sX = k.arg("x"), group = k.workgroup_id();
  const SGPR sStart = k.sgpr(1, "start"), sLen = k.sgpr(1, "length"), sTmp = k.sgpr(1, "t"),
             sSeg = k.sgpr(2, "segment");
  const VGPR vTv = k.vgpr(1, "value"), vTi = k.vgpr(1, "index"), vAddr = k.vgpr(1, "address");
  const WorkgroupWaves th = workgroup_waves(k, exit);
  clamp_length(k, sN);
  if (part) {
    // chunk size C = ceil(n / nb); workgroup b scans [b C, min(n, (b + 1) C))
    const SGPR sNb = k.arg("nb");
    k.s_cmp_lt_i32(sNb, 1);
    k.s_cbranch_scc1(exit);
    k.s_cmp_ge_u32(group, sNb);
    k.s_cbranch_scc1(exit);
    k.s_add_u32(sTmp, sN[0], sNb);
    k.s_sub_u32(sTmp, sTmp, 1);
    const SGPR sChunk = divide_scalar(k, make_divider(k, sNb), sTmp);
    k.s_mul_i32(sStart, group, sChunk);
    k.s_sub_u32(sLen, sN[0], sStart);
    k.s_cmp_ge_u32(sStart, sN[0]);
    k.s_cselect_b32(sLen, 0, sLen);
    k.s_cmp_lt_u32(sChunk, sLen);
    k.s_cselect_b32(sLen, sChunk, sLen);
  } else {
    k.s_mov_b32(sStart, 0);
    k.s_mov_b32(sLen, sN[0]);
  }
  k.s_lshl_b32(sTmp, sStart, 2);
  k.s_add_u32(sSeg[0], sX[0], sTmp);
  k.s_addc_u32(sSeg[1], sX[1], 0);
  auto [sBestV, sBestI] = scan_segment(k, th, sSeg, sLen);
  // wave 0 writes: index >= len means the segment was empty
  k.s_cmp_lg_u32(th.wave, 0);
  k.s_cbranch_scc1(exit);
  k.s_add_u32(sTmp, sBestI, sStart);
  k.s_cmp_lt_u32(sBestI, sLen);
  k.s_cselect_b32(sBestV, sBestV, kNegInfBits);
  k.s_cselect_b32(sBestI, sTmp, -1);
  k.v_mov_b32(vTv, sBestV);
  k.v_mov_b32(vTi, sBestI);
  k.v_mov_b32(vAddr, 0);
  k.s_mov_b64(exec, 1);
  if (part) {
    k.s_lshl_b32(sTmp, group, 2);
    const SGPR sOut = k.arg("val"), sIdxOut = k.arg("idx");
    add64(k, sOut, sTmp);
    add64(k, sIdxOut, sTmp);
    k.global_store_dword(vAddr, vTv, sOut);
    k.global_store_dword(vAddr, vTi, sIdxOut);
  } else {
    k.global_store_dword(vAddr, vTi, k.arg("out"));
  }
  k.bind(exit);
  k.s_endpgm();
  return k.build();
}

codeobj::CodeObject generate_argmax_comb(isa::Target target) {
  Kernel k(kComb, target, ops::options(128));
  Label exit = k.label("exit");
  const SGPR sNb = k.arg("nb"), sB = k.sgpr(1, "partial");
  const VGPR vBv = k.vgpr(2, "best values"), vBc = k.vgpr(2, "best indices"), vQ = k.vgpr(1, "q"),
             vTv = k.vgpr(1, "value"), vTi = k.vgpr(1, "index"), vAddr = k.vgpr(1, "address");
  const WorkgroupWaves th = workgroup_waves(k, exit);
  k.v_mov_b32(vBv[0], kNegInfBits);
  k.v_mov_b32(vBc[0], kNoIndex);
  k.v_mov_b32(vBv[1], kNegInfBits);  // constants for the selects
  k.v_mov_b32(vBc[1], kNoIndex);
  // thread t merges partials t, t + W, ...
  k.s_mov_b32(sB, 0);
  Label top = k.label("partials"), done = k.label("partials_done");
  k.bind(top);
  k.s_cmp_ge_i32(sB, sNb);
  k.s_cbranch_scc1(done);
  k.v_add_u32(vQ, sB, k.local_id());
  k.v_cmp_gt_i32(vcc, sNb, vQ);
  const SGPR saved = k.sgpr(2, "saved exec");
  k.s_and_saveexec_b64(saved, vcc);
  k.v_lshlrev_b32(vAddr, 2, vQ);
  k.global_load_dword(vTv, vAddr, k.arg("val"));
  k.global_load_dword(vTi, vAddr, k.arg("idx"));
  k.v_cmp_u_f32(vcc, vTv, vTv);  // NaN counts as -inf
  k.v_cndmask_b32(vTv, vTv, vBv[1], vcc);
  k.v_cmp_gt_i32(vcc, 0, vTi);  // negative index: an empty partial
  k.v_cndmask_b32(vTv, vTv, vBv[1], vcc);
  k.v_cndmask_b32(vTi, vTi, vBc[1], vcc);
  argmax_merge(k, vBv[0], vBc[0], vTv, vTi);
  restore_exec(k, saved);
  k.s_add_u32(sB, sB, th.threads);
  k.s_branch(top);
  k.bind(done);
  auto [sBestV, sBestI] = workgroup_argmax(k, vBv[0], vBc[0], th.wave, th.waves, th.lane);
  (void)sBestV;
  k.s_cmp_lg_u32(th.wave, 0);
  k.s_cbranch_scc1(exit);
  k.s_cmp_eq_u32(sBestI, kNoIndex);
  k.s_cselect_b32(sBestI, -1, sBestI);
  k.v_mov_b32(vTi, sBestI);
  k.v_mov_b32(vAddr, 0);
  k.s_mov_b64(exec, 1);
  k.global_store_dword(vAddr, vTi, k.arg("out"));
  k.bind(exit);
  k.s_endpgm();
  return k.build();
}

}  // namespace am

// ================================================================ top-k

// topk_k and router_top10_k keep hand-placed registers: their insertion
// routines are reached through computed jumps into tables of fixed byte sizes
// (check_table_sizes), which automatic waits and wait states would change and
// whose indirect control flow the allocator's liveness cannot follow. Their
// signatures and interface come from the layer all the same.
namespace tk {

using namespace as;
using as::KernelBuilder;

void wait_vm(KernelBuilder& b, int n) { b.s_waitcnt(waitcnt(n > 63 ? 63 : n)); }
void wait_lgkm(KernelBuilder& b, int n) { b.s_waitcnt(waitcnt(63, 7, n)); }
// dst = base + (index * count) << shift on physical SGPRs (tmp2 a scratch pair).
void row_address(KernelBuilder& b, SGPR dst, SGPR base, SGPR index, SGPR count, int shift, SGPR tmp2) {
  b.s_mul_i32(tmp2[0], index, count);
  b.s_mul_hi_u32(tmp2[1], index, count);
  if (shift) b.s_lshl_b64(tmp2, tmp2, shift);
  b.s_add_u32(dst[0], base[0], tmp2[0]);
  b.s_addc_u32(dst[1], base[1], tmp2[1]);
}
void add64(KernelBuilder& b, SGPR pair, const Arg& value) {
  b.s_add_u32(pair[0], pair[0], value);
  b.s_addc_u32(pair[1], pair[1], 0);
}

codegen::Signature topk_signature(bool router) {
  using codegen::in, codegen::out, codegen::value;
  if (router)
    return codegen::Signature("router_top10_k", {in("logits", "f32"), out("ids", "i32"), out("weights", "f32"),
                                                 value("rows", "u32"), value("n_experts", "u32")});
  return codegen::Signature("topk_k", {in("x", "f32"), out("idx", "i32"), out("val", "f32"), value("rows", "u32"),
                                       value("cols", "u32"), value("k", "u32")});
}

const SGPR sX = s(8, 2), sIdx = s(10, 2), sVal = s(12, 2), sRows = s(14), sCols = s(15), sK = s(16);
const SGPR sR0 = s(17), sBlk = s(18, 2), sBase = s(20, 2), sC = s(22), sF = s(23);
const SGPR sP[2] = {s(24, 2), s(26, 2)};
const SGPR sPc = s(28, 2), sEntry = s(30), sFetch = s(31), sSave = s(32, 2), sCol = s(35), sTmp2 = s(36, 2),
           sRet = s(38, 2), sSteady = s(40, 2), sFill = s(42, 2), sTmp = s(44), sTmp1 = s(45), sOutV = s(46, 2),
           sOutI = s(48, 2);
const SGPR sPiece[4] = {s(50, 2), s(52, 2), s(54, 2), s(56, 2)}, sRowsExec = s(58, 2);
const VGPR vLane = v(0), vRoff = v(1), vThr = v(2), vCol = v(3), vX = v(4), vOut = v(5), vTmp = v(6);
const VGPR vToff = v(8, 4), vLdsW = v(12), vLdsR = v(13);
constexpr int kA = 16, kI = 32, kXd = 48, kStage = 64, kMaxK = 16;
constexpr int kLdsRow = 72;  // bytes per LDS row: 16 floats + 2 (banks 18 r mod 32 are distinct for 16 lanes)
VGPR A(int j) { return v(kA + j); }
VGPR I(int j) { return v(kI + j); }

enum class Cmp { Greater, NotLessEqual };

void compare(KernelBuilder& b, Cmp c, SGPR dst, VGPR x, VGPR a) {
  if (c == Cmp::Greater)
    b.v_cmp_gt_f32(dst, x, a);
  else
    b.v_cmp_nle_f32(dst, x, a);  // x > a, or a is an empty (NaN) slot
}

// Insertion of (vX, column sCol) into the sorted slots 0..K-1, bottom-up:
// with c_j = (x beats slot j), slot j becomes slot j-1 when c_(j-1), else x
// when c_j, else stays. Slots are descending; an equal value never beats a
// slot (earlier column first). c is monotone in j, so once no lane moves
// slot j-1 the slots above are unchanged and the routine stops (`done`).
// In the steady phase (every slot filled, x not NaN) the new value of slot j
// is the median of (slot j-1, x, slot j): one v_med3_f32 instead of two
// selects (a -0 next to an equal +0 may come back as +0). The fill phase has
// NaN (empty) slots and uses the selects.
void insertion_block(KernelBuilder& b, Cmp c, int j, Label done) {
  const bool steady = c == Cmp::Greater;
  if (j > 0) compare(b, c, sP[(j - 1) % 2], vX, A(j - 1));
  if (j > 0 && steady) {
    b.v_med3_f32(A(j), A(j - 1), vX, A(j));
  } else if (j == 0 && steady) {
    b.v_max_f32(A(0), A(0), vX);
  } else {
    b.v_cndmask_b32(A(j), A(j), vX, sP[j % 2]);
    if (j > 0) b.v_cndmask_b32(A(j), A(j), A(j - 1), sP[(j - 1) % 2]);
  }
  b.v_cndmask_b32(I(j), I(j), vCol, sP[j % 2]);
  if (j > 0) {
    b.v_cndmask_b32(I(j), I(j), I(j - 1), sP[(j - 1) % 2]);
    b.s_cmp_eq_u64(sP[(j - 1) % 2], 0);
    b.s_cbranch_scc1(done);
  }
}

// A computed jump: to (address of the s_add_u32 below) + offset.
void computed_jump(KernelBuilder& b, SGPR offset_sgpr) {
  b.s_getpc_b64(sPc);
  b.s_add_u32(sPc[0], sPc[0], offset_sgpr);
  b.s_addc_u32(sPc[1], sPc[1], 0);
  b.s_setpc_b64(sPc);
}

// Byte sizes the jump tables rely on, checked against the encoder: an entry
// (VOP3 compare + s_branch) 12 bytes, a threshold fetch (v_mov + s_setpc) 8,
// the jump's s_add/s_addc/s_setpc 12.
void check_table_sizes(isa::Target target) {
  auto entry_size = [&](Cmp c) {
    KernelBuilder e("size_check", target);
    Label l = e.label();
    compare(e, c, sP[1], vX, A(15));
    e.s_branch(l);
    e.bind(l);
    return e.code().size();
  };
  KernelBuilder f("size_check", target);
  f.v_mov_b32(vThr, A(15));
  f.s_setpc_b64(sRet);
  KernelBuilder g("size_check", target);
  g.s_add_u32(sPc[0], sPc[0], sEntry);
  g.s_addc_u32(sPc[1], sPc[1], 0);
  g.s_setpc_b64(sPc);
  if (entry_size(Cmp::Greater) != 12 || entry_size(Cmp::NotLessEqual) != 12 || f.code().size() != 8 ||
      g.code().size() != 12)
    throw Error("topk generator: jump-table entry sizes changed");
}

// The insertion routine: dynamic K (topk_k: jump tables on k) or K = 10.
// Called with s_swappc_b64 sRet; returns through sRet.
void insertion_routine(KernelBuilder& b, Cmp c, bool router) {
  b.v_mov_b32(vCol, sCol);
  Label done = b.label("insert_done");
  if (router) {
    compare(b, c, sP[9 % 2], vX, A(9));
    for (int j = 9; j >= 0; --j) insertion_block(b, c, j, done);
    b.bind(done);
    b.s_setpc_b64(sRet);
    return;
  }
  std::vector<Label> blocks;
  for (int j = 0; j < kMaxK; ++j) blocks.push_back(b.label("block" + std::to_string(j)));
  computed_jump(b, sEntry);  // entry j at 12 + 12 (15 - j)
  for (int j = kMaxK - 1; j >= 0; --j) {
    compare(b, c, sP[j % 2], vX, A(j));
    b.s_branch(blocks[size_t(j)]);
  }
  for (int j = kMaxK - 1; j >= 0; --j) {
    b.bind(blocks[size_t(j)]);
    insertion_block(b, c, j, done);
  }
  b.bind(done);
  computed_jump(b, sFetch);  // threshold fetch j at 12 + 8 (15 - j)
  for (int j = kMaxK - 1; j >= 0; --j) {
    b.v_mov_b32(vThr, A(j));
    b.s_setpc_b64(sRet);
  }
}

codeobj::CodeObject generate_topk(bool router, isa::Target target) {
  if (!router) check_table_sizes(target);
  KernelBuilder b(router ? "router_top10_k" : "topk_k", target);
  Label exit = b.label("exit");
  const int K = router ? 10 : kMaxK;  // slots kept

  // the two insertion routines sit at the start; their addresses via s_getpc
  Label after_steady = b.label("after_steady"), after_fill = b.label("after_fill");
  b.s_getpc_b64(sSteady);
  b.s_add_u32(sSteady[0], sSteady[0], 12);
  b.s_addc_u32(sSteady[1], sSteady[1], 0);
  b.s_branch(after_steady);
  insertion_routine(b, Cmp::Greater, router);
  b.bind(after_steady);
  b.s_getpc_b64(sFill);
  b.s_add_u32(sFill[0], sFill[0], 12);
  b.s_addc_u32(sFill[1], sFill[1], 0);
  b.s_branch(after_fill);
  insertion_routine(b, Cmp::NotLessEqual, router);
  b.bind(after_fill);

  b.s_load_dwordx4(s(8, 4), s(4, 2), 0x0);
  b.s_load_dwordx4(s(12, 4), s(4, 2), 0x10);
  if (!router) b.s_load_dword(sK, s(4, 2), 0x20);
  wait_lgkm(b, 0);
  if (router) b.s_mov_b32(sK, 10);
  b.v_readfirstlane_b32(sTmp, vLane);  // one wave: rows s6*64 + lane
  b.s_cmp_ge_u32(sTmp, 64);
  b.s_cbranch_scc1(exit);
  b.s_cmp_eq_u32(sK, 0);
  b.s_cbranch_scc1(exit);
  b.s_lshl_b32(sR0, s(6), 6);
  b.v_add_u32(vTmp, sR0, vLane);
  b.v_cmp_gt_u32(vcc, sRows, vTmp);
  b.s_and_b64(exec, exec, vcc);
  b.s_cbranch_execz(exit);

  if (!router) {
    // k > 16 is not supported: every slot of the row gets idx -1 and val NaN
    Label k_ok = b.label("k_ok");
    b.s_cmp_le_u32(sK, kMaxK);
    b.s_cbranch_scc1(k_ok);
    b.s_lshl_b32(sTmp, sK, 2);
    b.v_mul_lo_u32(vOut, sTmp, vLane);
    row_address(b, sOutV, sVal, sR0, sK, 2, sTmp2);
    row_address(b, sOutI, sIdx, sR0, sK, 2, sTmp2);
    b.v_mov_b32(vTmp, kQuietNaN);
    b.v_mov_b32(vX, -1);
    b.s_mov_b32(sC, 0);
    Label top = b.label("bad_k");
    b.bind(top);
    b.global_store_dword(vOut, vTmp, sOutV);
    b.global_store_dword(vOut, vX, sOutI);
    add64(b, sOutV, 4);
    add64(b, sOutI, 4);
    b.s_add_u32(sC, sC, 1);
    b.s_cmp_lt_u32(sC, sK);
    b.s_cbranch_scc1(top);
    b.s_branch(exit);
    b.bind(k_ok);
    // jump-table offsets for k
    b.s_sub_u32(sTmp, kMaxK, sK);
    b.s_mul_i32(sEntry, sTmp, 12);
    b.s_add_u32(sEntry, sEntry, 12);
    b.s_lshl_b32(sFetch, sTmp, 3);
    b.s_add_u32(sFetch, sFetch, 12);
  }

  // empty slots: NaN (every value beats them in the fill phase), column -1
  for (int j = 0; j < K; ++j) {
    b.v_mov_b32(A(j), kQuietNaN);
    b.v_mov_b32(I(j), -1);
  }
  b.v_mov_b32(vThr, kQuietNaN);
  b.s_lshl_b32(sTmp, sCols, 2);
  b.v_mul_lo_u32(vRoff, sTmp, vLane);  // this lane's row, relative to row r0
  row_address(b, sBlk, sX, sR0, sCols, 2, sTmp2);

  // fill phase: the first min(k, cols) columns, NaN counted as -inf
  b.s_min_u32(sF, sK, sCols);
  b.v_mov_b32(vTmp, kNegInfBits);
  b.s_mov_b32(sC, 0);
  b.s_mov_b64(sBase, sBlk);
  Label fill_top = b.label("fill"), fill_done = b.label("fill_done");
  b.bind(fill_top);
  b.s_cmp_ge_u32(sC, sF);
  b.s_cbranch_scc1(fill_done);
  b.global_load_dword(vX, vRoff, sBase);
  wait_vm(b, 0);
  b.v_cmp_o_f32(vcc, vX, vX);
  b.v_cndmask_b32(vX, vTmp, vX, vcc);
  b.s_mov_b32(sCol, sC);
  b.s_swappc_b64(sRet, sFill);
  b.s_add_u32(sC, sC, 1);
  add64(b, sBase, 4);
  b.s_branch(fill_top);
  b.bind(fill_done);

  // steady phase: a column enters only when it beats the k-th value
  VGPR thr = router ? A(9) : vThr;
  auto element = [&](int e) {
    Label skip = b.label("skip");
    b.v_cmp_gt_f32(vcc, v(kXd + e), thr);
    b.s_cbranch_vccz(skip);
    b.v_mov_b32(vX, v(kXd + e));
    b.s_add_u32(sCol, sC, e);
    b.s_swappc_b64(sRet, sSteady);
    b.bind(skip);
  };
  // 16-column tiles through LDS, so the global loads are coalesced: piece i
  // of a tile is loaded by lane l as row 16 i + l/4, columns 4 (l % 4) .. +3
  // (64 bytes of each of 16 rows per instruction), written to LDS rows of 72
  // bytes (conflict-free 8-byte reads), and each lane reads back its own row.
  // The next tile's loads are in flight while the current one is compared.
  b.s_mov_b64(sRowsExec, exec);
  b.s_mov_b64(exec, -1);
  b.v_lshrrev_b32(vTmp, 2, vLane);       // l / 4
  b.v_and_b32(vLdsR, 3, vLane);
  b.v_lshlrev_b32(vLdsR, 4, vLdsR);      // 16 (l % 4)
  b.v_mul_u32_u24(vLdsW, kLdsRow, vTmp);
  b.v_add_u32(vLdsW, vLdsW, vLdsR);      // LDS write address of piece 0
  b.s_lshl_b32(sTmp, sCols, 2);
  for (int i = 0; i < 4; ++i) {
    b.v_add_u32(vX, 16 * i, vTmp);       // tile row
    b.v_mul_lo_u32(vToff[i], sTmp, vX);
    b.v_add_u32(vToff[i], vToff[i], vLdsR);
    b.v_add_u32(vX, sR0, vX);
    b.v_cmp_gt_u32(sPiece[i], sRows, vX);  // rows past `rows` are not loaded
  }
  b.v_mul_u32_u24(vLdsR, kLdsRow, vLane);  // LDS read address: this lane's row
  b.s_mov_b64(exec, sRowsExec);
  auto tile_loads = [&](int imm) {
    for (int i = 0; i < 4; ++i) {
      b.s_mov_b64(exec, sPiece[i]);
      if (imm)
        b.global_load_dwordx4(v(kStage + 4 * i, 4), vToff[i], sBase, offset(imm));
      else
        b.global_load_dwordx4(v(kStage + 4 * i, 4), vToff[i], sBase);
    }
    b.s_mov_b64(exec, sRowsExec);
  };
  // columns straight from each lane's row (4 or 1 at a time) up to `limit`
  auto per_lane_columns = [&](SGPR limit) {
    for (int width : {4, 1}) {
      Label top = b.label("cols" + std::to_string(width)), done = b.label("cols" + std::to_string(width) + "_done");
      b.bind(top);
      b.s_sub_u32(sTmp, limit, sC);
      b.s_cmp_lt_u32(sTmp, width);
      b.s_cbranch_scc1(done);
      if (width == 1)
        b.global_load_dword(v(kXd), vRoff, sBase);
      else
        b.global_load_dwordx4(v(kXd, 4), vRoff, sBase);
      wait_vm(b, 0);
      for (int e = 0; e < width; ++e) element(e);
      b.s_add_u32(sC, sC, width);
      add64(b, sBase, 4 * width);
      b.s_branch(top);
      b.bind(done);
    }
  };
  // up to a multiple of 16 columns first, so that tiles start on 64-byte lines when rows do
  b.s_add_u32(sTmp1, sC, 15);
  b.s_and_b32(sTmp1, sTmp1, ~15u);
  b.s_min_u32(sTmp1, sTmp1, sCols);
  per_lane_columns(sTmp1);
  {
    Label top = b.label("tiles"), done = b.label("tiles_done"), no_prefetch = b.label("no_prefetch");
    b.s_sub_u32(sTmp, sCols, sC);
    b.s_cmp_lt_u32(sTmp, 16);
    b.s_cbranch_scc1(done);
    tile_loads(0);
    b.bind(top);
    wait_vm(b, 0);
    for (int i = 0; i < 4; ++i) {
      b.s_mov_b64(exec, sPiece[i]);
      b.ds_write_b64(vLdsW, v(kStage + 4 * i, 2), offset(16 * kLdsRow * i));
      b.ds_write_b64(vLdsW, v(kStage + 4 * i + 2, 2), offset(16 * kLdsRow * i + 8));
    }
    b.s_mov_b64(exec, sRowsExec);
    wait_lgkm(b, 0);
    for (int q = 0; q < 8; ++q) {
      if (q)
        b.ds_read_b64(v(kXd + 2 * q, 2), vLdsR, offset(8 * q));
      else
        b.ds_read_b64(v(kXd, 2), vLdsR);
    }
    b.s_add_u32(sTmp, sC, 32);  // another whole tile after this one?
    b.s_cmp_gt_u32(sTmp, sCols);
    b.s_cbranch_scc1(no_prefetch);
    tile_loads(64);
    b.bind(no_prefetch);
    wait_lgkm(b, 0);
    for (int e = 0; e < 16; ++e) element(e);
    b.s_add_u32(sC, sC, 16);
    add64(b, sBase, 64);
    b.s_sub_u32(sTmp, sCols, sC);
    b.s_cmp_lt_u32(sTmp, 16);
    b.s_cbranch_scc0(top);
    b.bind(done);
  }
  per_lane_columns(sCols);  // the last columns (fewer than 16)

  // results: empty slots (cols < k) read as -inf with column -1
  for (int j = 0; j < K; ++j) b.v_max_f32(A(j), kNegInfBits, A(j));
  if (router) {
    // weights = softmax over the 10 selected logits (the first is the largest)
    // (A(0) - A(0) is 0, or NaN when every logit is -inf: then every weight is NaN)
    for (int j = 0; j < 10; ++j) {
      b.v_sub_f32(v(kXd + j), A(j), A(0));
      b.v_mul_f32(v(kXd + j), kLog2e, v(kXd + j));
      b.v_exp_f32(v(kXd + j), v(kXd + j));
    }
    b.v_mov_b32(vTmp, v(kXd));
    for (int j = 1; j < 10; ++j) b.v_add_f32(vTmp, vTmp, v(kXd + j));
    b.v_rcp_f32(vTmp, vTmp);
    for (int j = 0; j < 10; ++j) b.v_mul_f32(v(kXd + j), v(kXd + j), vTmp);
    b.v_mul_u32_u24(vOut, 40, vLane);
    b.s_mov_b32(sTmp1, 10);
    row_address(b, sOutI, sIdx, sR0, sTmp1, 2, sTmp2);
    row_address(b, sOutV, sVal, sR0, sTmp1, 2, sTmp2);
    for (int m = 0; m < 5; ++m) {
      if (m) {
        b.global_store_dwordx2(vOut, v(kI + 2 * m, 2), sOutI, offset(8 * m));
        b.global_store_dwordx2(vOut, v(kXd + 2 * m, 2), sOutV, offset(8 * m));
      } else {
        b.global_store_dwordx2(vOut, v(kI, 2), sOutI);
        b.global_store_dwordx2(vOut, v(kXd, 2), sOutV);
      }
    }
  } else {
    b.s_lshl_b32(sTmp, sK, 2);
    b.v_mul_u32_u24(vOut, sTmp, vLane);
    row_address(b, sOutV, sVal, sR0, sK, 2, sTmp2);
    row_address(b, sOutI, sIdx, sR0, sK, 2, sTmp2);
    for (int j = 0; j < kMaxK; ++j) {
      if (j) {
        b.global_store_dword(vOut, A(j), sOutV, offset(4 * j));
        b.global_store_dword(vOut, I(j), sOutI, offset(4 * j));
      } else {
        b.global_store_dword(vOut, A(j), sOutV);
        b.global_store_dword(vOut, I(j), sOutI);
      }
      if (j + 1 < kMaxK) {
        b.s_cmp_eq_u32(sK, j + 1);
        b.s_cbranch_scc1(exit);
      }
    }
  }
  b.bind(exit);
  b.s_endpgm();

  codegen::declare_interface(b, topk_signature(router),
                             codegen::KernelOptions{.lds_bytes = 64 * kLdsRow, .max_workgroup = 1024});
  return b.code_object();
}

}  // namespace tk

// ================================================================ references

float finite_or_neg_inf(float v) { return std::isnan(v) ? -INFINITY : v; }

// Lowest index of the largest value of x[begin, end), NaN counted as -inf; -1 when empty.
std::pair<float, int32_t> argmax_reference(const std::vector<float>& x, int64_t begin, int64_t end) {
  if (begin >= end) return {-INFINITY, -1};
  float best = finite_or_neg_inf(x[size_t(begin)]);
  int64_t at = begin;
  for (int64_t i = begin + 1; i < end; ++i)
    if (finite_or_neg_inf(x[size_t(i)]) > best) best = finite_or_neg_inf(x[size_t(i)]), at = i;
  return {best, int32_t(at)};
}

// The top k of each row: stable descending order (earlier column first on
// ties), NaN counted as -inf; (-inf, -1) pads rows shorter than k.
void topk_reference(const std::vector<float>& x, int64_t rows, int64_t cols, int64_t k, std::vector<int32_t>& idx,
                    std::vector<float>& val) {
  idx.assign(size_t(rows * k), -1);
  val.assign(size_t(rows * k), -INFINITY);
  std::vector<int64_t> order(static_cast<size_t>(cols));
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t i = 0; i < cols; ++i) order[size_t(i)] = i;
    auto v = [&](int64_t i) { return finite_or_neg_inf(x[size_t(r * cols + i)]); };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return v(a) > v(b); });
    for (int64_t j = 0; j < std::min(k, cols); ++j) {
      idx[size_t(r * k + j)] = int32_t(order[size_t(j)]);
      val[size_t(r * k + j)] = v(order[size_t(j)]);
    }
  }
}

// Inputs with ties, -inf and NaN: "kind" 0 = N(0, 1); 1 = values rounded to
// tenths (many ties); 2 = like 1 with -inf and NaN entries; 3 = all -inf.
std::vector<float> selection_inputs(size_t n, uint32_t seed, int64_t kind) {
  Rng rng(seed);
  auto x = rng.normal(n);
  if (kind >= 1)
    for (auto& v : x) v = std::round(v * 10.f) / 10.f;
  if (kind == 2)
    for (size_t i = 0; i < n; ++i) {
      if (i % 5 == 3) x[i] = -INFINITY;
      if (i % 11 == 7) x[i] = NAN;
    }
  if (kind == 3)
    for (auto& v : x) v = -INFINITY;
  return x;
}

// ================================================================ registration

void register_argmax(Registry& r) {
  KernelDef d = generated_kernel("ops", am::argmax_signature(false), [](isa::Target t) { return am::generate_argmax(false, t); });
  d.description =
      "Single-row argmax, first (lowest) index on ties. The workgroup's threads stream the row in 16-byte pieces "
      "(dwordx4, consecutive threads on consecutive pieces, 4 loads in flight), each lane keeping a best value and "
      "chunk per component with a strict > (earlier elements keep ties); the candidates are merged by (value, "
      "lowest index) within the lane, across the wave with DPP and across waves through LDS. NaN counts as -inf "
      "(an all -inf / NaN row gives index 0). Any workgroup size that is a multiple of 64 up to 1024 (read from "
      "the hidden block); every workgroup scans the whole row and writes the same result. LDS 128 bytes (the spec's 256 is an implementation detail).";
  d.semantics = "out[0] = min { i : x[i] = max_j x[j] } (NaN as -inf); n = 0 gives -1";
  d.geometry = "grid = 1 (any: every workgroup writes the same value), wg = 64 ... 1024 (multiple of 64)";
  d.limits = "0 <= n < 2^31 (larger n is clamped to 2^31 - 1, negative n to 0); workgroup size a multiple of 64";
  d.tolerance = Tolerance{};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"n", 1}, {"wg", 64}, {"kind", 0}}, 1),
                           make_case({{"n", 1000}, {"wg", 64}, {"kind", 1}}, 2),
                           make_case({{"n", 4099}, {"wg", 1024}, {"kind", 2}}, 3),
                           make_case({{"n", 700}, {"wg", 64}, {"kind", 3}}, 4),
                           make_case({{"n", 3001}, {"wg", 256}, {"kind", 1}, {"grid", 3}}, 6),
                           make_case({{"n", 0}, {"wg", 64}, {"kind", 0}}, 5)};
    if (sweep)
      for (int64_t n : {2, 3, 4, 5, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 4096, 65537, 151936})
        for (int64_t wg : {64, 256, 1024})
          for (int64_t kind : {0, 1, 2}) c.push_back(make_case({{"n", n}, {"wg", wg}, {"kind", kind}}, uint32_t(n + wg + kind)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t n = c["n"];
    auto x = selection_inputs(size_t(n), c.seed, c["kind"]);
    if (c["kind"] == 1 && n > 10) {  // ties at the maximum, two of them in the same lane and component
      int64_t p = n / 5, q = p + 4 * c["wg"];
      x[size_t(p)] = x[size_t(n - 1)] = 100.f;
      if (q < n) x[size_t(q)] = 100.f;
    }
    DeviceBuffer<float> dx(dev, x);
    DeviceBuffer<int32_t> dout(dev, std::vector<int32_t>{12345});
    uint32_t grid = c.dims.count("grid") ? uint32_t(c["grid"]) : 1;  // extra workgroups write the same value
    launch(dev, am::argmax_signature(false), {grid}, {uint32_t(c["wg"])}, {dx.addr(), n, dout.addr()});
    return compare_exact(dout.download(), {argmax_reference(x, 0, n).second});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"]) * 4 + 4; };
  d.bench_case = [] { return make_case({{"n", 151936}, {"wg", 1024}, {"kind", 0}}); };
  r.add(std::move(d));
}

void register_argmax_part(Registry& r) {
  KernelDef d = generated_kernel("ops", am::argmax_signature(true), [](isa::Target t) { return am::generate_argmax(true, t); });
  d.description =
      "First stage of the two-stage argmax: workgroup b scans the chunk [b C, min(n, (b+1) C)), C = ceil(n / nb), "
      "exactly as argmax_k scans a row (dwordx4 streaming, per-lane bests, DPP and LDS merges, lowest index on "
      "ties, NaN as -inf) and writes its maximum to val[b] and the global index to idx[b]. An empty chunk (possible "
      "when nb does not divide n) writes val = -inf, idx = -1, which argmax_comb_k ignores. Workgroups b >= nb do "
      "nothing. LDS 128 bytes (the spec's 256 is an implementation detail).";
  d.semantics = "C = ceil(n / nb); val[b] = max x[bC .. min(n, (b+1)C)), idx[b] = its lowest index";
  d.geometry = "grid = nb (extra workgroups do nothing), wg = 64 ... 256 (any multiple of 64 up to 1024)";
  d.limits = "0 <= n < 2^31 (clamped like argmax_k); nb >= 1 (nb <= 0: nothing written); val and idx hold nb "
             "entries; workgroup size a multiple of 64";
  d.tolerance = Tolerance{};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"n", 1000}, {"nb", 4}, {"wg", 64}, {"kind", 0}}, 1),
                           make_case({{"n", 10}, {"nb", 8}, {"wg", 64}, {"kind", 1}}, 2),
                           make_case({{"n", 4099}, {"nb", 7}, {"wg", 256}, {"kind", 2}}, 3),
                           make_case({{"n", 3000}, {"nb", 3}, {"wg", 64}, {"kind", 3}}, 4)};
    if (sweep)
      for (int64_t n : {1, 5, 64, 257, 1025, 4096, 65537, 151936})
        for (int64_t nb : {1, 2, 3, 16, 37, 64, 200})
          for (int64_t wg : {64, 256}) c.push_back(make_case({{"n", n}, {"nb", nb}, {"wg", wg}, {"kind", (n + nb) % 3}}, uint32_t(n * 3 + nb)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t n = c["n"], nb = c["nb"];
    auto x = selection_inputs(size_t(n), c.seed, c["kind"]);
    DeviceBuffer<float> dx(dev, x), dval(dev, size_t(nb));
    DeviceBuffer<int32_t> didx(dev, size_t(nb));
    launch(dev, am::argmax_signature(true), {uint32_t(nb + 1)}, {uint32_t(c["wg"])},
               {dx.addr(), n, nb, dval.addr(), didx.addr()});
    int64_t chunk = (n + nb - 1) / nb;
    std::vector<float> want_v;
    std::vector<int32_t> want_i;
    for (int64_t b = 0; b < nb; ++b) {
      auto [v, i] = argmax_reference(x, std::min(n, b * chunk), std::min(n, (b + 1) * chunk));
      want_v.push_back(v);
      want_i.push_back(i);
    }
    return combine({compare_exact(didx.download(), want_i), compare(dval.download(), want_v, Tolerance{})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["n"] + 2 * c["nb"]) * 4; };
  d.bench_case = [] { return make_case({{"n", 151936}, {"nb", 120}, {"wg", 256}, {"kind", 0}}); };
  r.add(std::move(d));
}

void register_argmax_comb(Registry& r) {
  KernelDef d = generated_kernel("ops", am::kComb, am::generate_argmax_comb);
  d.description =
      "Second stage of the two-stage argmax: reduces the nb (value, index) pairs of argmax_part_k to the index of "
      "the largest value, the lowest index among equal values (so the two stages together agree with argmax_k; "
      "tested end to end). "
      "Threads stride over the pairs, merge by (value, lowest index), then DPP and LDS merges. Pairs with a "
      "negative index (empty chunks) are ignored, NaN values count as -inf. Any nb (not limited to the original's "
      "32 LDS slots); any workgroup size that is a multiple of 64. LDS 128 bytes (the spec's 256 is an implementation detail).";
  d.semantics = "out[0] = idx[b*] with b* maximising (val[b], -idx[b]) over b with idx[b] >= 0; -1 when none";
  d.geometry = "grid = 1, wg = 64 (any multiple of 64 up to 1024)";
  d.limits = "nb >= 0 (nb = 0 or all pairs empty: out[0] = -1); workgroup size a multiple of 64";
  d.tolerance = Tolerance{};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"nb", 1}, {"wg", 64}}, 1), make_case({{"nb", 37}, {"wg", 64}}, 2),
                           make_case({{"nb", 200}, {"wg", 128}}, 3), make_case({{"nb", 0}, {"wg", 64}}, 4),
                           make_case({{"nb", 24}, {"wg", 64}, {"n", 20011}}, 5)};
    if (sweep) {
      for (int64_t nb : {2, 3, 31, 32, 33, 63, 64, 65, 127, 1000, 4097})
        for (int64_t wg : {64, 256, 1024}) c.push_back(make_case({{"nb", nb}, {"wg", wg}}, uint32_t(nb + wg)));
      for (int64_t n : {1, 100, 4099, 151936})
        for (int64_t nb : {1, 7, 120, 300})
          c.push_back(make_case({{"nb", nb}, {"wg", 64}, {"n", n}}, uint32_t(n + nb)));
    }
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t nb = c["nb"];
    if (c.dims.count("n")) {  // both stages on a row with ties, -inf and NaN, against a plain argmax
      int64_t n = c["n"];
      auto x = selection_inputs(size_t(n), c.seed, 2);
      if (n > 10) x[size_t(n / 3)] = x[size_t(n / 2)] = x[size_t(n - 1)] = 50.f;
      DeviceBuffer<float> dx(dev, x), dval(dev, size_t(nb));
      DeviceBuffer<int32_t> didx(dev, size_t(nb)), dout(dev, std::vector<int32_t>{12345});
      launch(dev, am::argmax_signature(true), {uint32_t(nb)}, {256}, {dx.addr(), n, nb, dval.addr(), didx.addr()});
      launch(dev, am::kComb, {1}, {uint32_t(c["wg"])}, {dval.addr(), didx.addr(), nb, dout.addr()});
      return compare_exact(dout.download(), {argmax_reference(x, 0, n).second});
    }
    Rng rng(c.seed);
    auto val = rng.normal(size_t(nb));
    auto idx = rng.integers(size_t(nb), 0, 1 << 20);
    for (int64_t b = 0; b < nb; ++b) {
      val[size_t(b)] = std::round(val[size_t(b)] * 4.f) / 4.f;  // ties at the maximum
      if (b % 7 == 5) idx[size_t(b)] = -1, val[size_t(b)] = 1e30f;  // empty: ignored despite its value
      if (b % 13 == 4) val[size_t(b)] = NAN;
    }
    int32_t want = -1;
    float best = -INFINITY;
    for (int64_t b = 0; b < nb; ++b) {
      if (idx[size_t(b)] < 0) continue;
      float v = finite_or_neg_inf(val[size_t(b)]);
      if (want < 0 || v > best || (v == best && idx[size_t(b)] < want)) best = v, want = idx[size_t(b)];
    }
    DeviceBuffer<float> dval(dev, val);
    DeviceBuffer<int32_t> didx(dev, idx), dout(dev, std::vector<int32_t>{12345});
    launch(dev, am::kComb, {1}, {uint32_t(c["wg"])}, {dval.addr(), didx.addr(), nb, dout.addr()});
    return compare_exact(dout.download(), {want});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(2 * c["nb"] + 1) * 4; };
  d.bench_case = [] { return make_case({{"nb", 120}, {"wg", 64}}); };
  r.add(std::move(d));
}

void register_topk(Registry& r) {
  KernelDef d = generated_kernel("ops", tk::topk_signature(false), [](isa::Target t) { return tk::generate_topk(false, t); });
  d.description =
      "Per-row top-k by insertion, one row per lane (64 rows per workgroup). The rows are read in 16-column "
      "tiles staged through LDS: each global load covers 64 bytes of 16 rows (coalesced, the next tile in flight "
      "while the current one is compared), then every lane reads its own row back from LDS (4.5 KiB of LDS; the "
      "spec's 0 is an implementation detail). Each column is compared with the lane's current k-th value; only a "
      "column that beats it (strictly: ties keep the earlier column) calls the insertion routine, which shifts the "
      "sorted slots bottom-up (v_med3 for the values, selects for the columns), entering at slot k-1 through a "
      "computed jump (s_setpc) and stopping as soon as no lane moves a slot. The first k columns fill the slots "
      "(NaN counted as -inf, so -inf columns are selectable). Rows shorter than k are padded with val = -inf, "
      "idx = -1. k > 16 is unsupported: every slot of the row is written as idx = -1, val = NaN (a visible "
      "error, inside the buffers). Extra waves of a larger workgroup exit. A -0 tied with +0 may be reported as "
      "+0.";
  d.semantics = "val[r][0..k-1] = the k largest x[r][c], descending (stable: earlier c first on ties), idx = their c";
  d.geometry = "grid = ceil(rows / 64), wg = 64";
  d.limits = "1 <= k <= 16 (k = 0: nothing written; k > 16: idx -1 / val NaN); cols < 2^24; NaN counts as -inf";
  d.tolerance = Tolerance{};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"rows", 1}, {"cols", 64}, {"k", 1}, {"kind", 0}}, 1),
                           make_case({{"rows", 70}, {"cols", 37}, {"k", 10}, {"kind", 1}}, 2),
                           make_case({{"rows", 5}, {"cols", 259}, {"k", 16}, {"kind", 2}}, 3),
                           make_case({{"rows", 3}, {"cols", 5}, {"k", 8}, {"kind", 2}}, 4),
                           make_case({{"rows", 2}, {"cols", 20}, {"k", 17}, {"kind", 0}}, 5),
                           make_case({{"rows", 65}, {"cols", 128}, {"k", 4}, {"kind", 3}}, 6)};
    if (sweep)
      for (int64_t cols : {1, 2, 3, 15, 16, 17, 63, 64, 100, 1000, 4097})
        for (int64_t k = 1; k <= 16; k += (cols > 100 ? 5 : 1))
          c.push_back(make_case({{"rows", cols > 1000 ? 64 : 130}, {"cols", cols}, {"k", k}, {"kind", (cols + k) % 4}},
                                uint32_t(cols * 31 + k)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], cols = c["cols"], k = c["k"];
    auto x = selection_inputs(size_t(rows * cols), c.seed, c["kind"]);
    DeviceBuffer<float> dx(dev, x), dval(dev, size_t(rows * k));
    DeviceBuffer<int32_t> didx(dev, size_t(rows * k));
    launch(dev, tk::topk_signature(false), {uint32_t((rows + 63) / 64)}, {64},
               {dx.addr(), didx.addr(), dval.addr(), rows, cols, k});
    std::vector<int32_t> want_i;
    std::vector<float> want_v;
    if (k > 16) {
      want_i.assign(size_t(rows * k), -1);
      want_v.assign(size_t(rows * k), NAN);
    } else {
      topk_reference(x, rows, cols, k, want_i, want_v);
    }
    return combine({compare_exact(didx.download(), want_i), compare(dval.download(), want_v, Tolerance{})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["cols"] + 2 * c["rows"] * c["k"]) * 4; };
  d.bench_case = [] { return make_case({{"rows", 512}, {"cols", 512}, {"k", 8}, {"kind", 0}}); };
  r.add(std::move(d));
}

void register_router(Registry& r) {
  KernelDef d = generated_kernel("ops", tk::topk_signature(true), [](isa::Target t) { return tk::generate_topk(true, t); });
  d.description =
      "MoE router, one row (token) per lane: the 10 largest logits by insertion, the topk_k scheme with k fixed "
      "at 10 (16-column tiles staged through LDS for coalesced loads, a strict comparison with the 10th value so "
      "a later equal logit never displaces an earlier one, the insertion routine called only when needed), then "
      "the weights are the softmax over those 10 logits (v_exp_f32, one reciprocal). ids and weights rows are "
      "written with dwordx2 stores. With fewer than 10 experts the missing slots are id -1, weight 0. NaN logits "
      "count as -inf. LDS 4.5 KiB (the spec's 0 is an implementation detail).";
  d.semantics = "ids[r][0..9] = columns of the 10 largest logits[r][:], descending (earlier first on ties); "
                "weights[r][j] = exp(l_j - l_0) / sum_i exp(l_i - l_0) over those 10";
  d.geometry = "grid = ceil(rows / 64) (the docs' grid = rows also works: extra lanes and groups idle), wg = 64";
  d.limits = "n_experts < 2^24 (n_experts < 10: missing slots id -1, weight 0); a row of all -inf logits gives "
             "NaN weights";
  d.tolerance = Tolerance{1e-7, 2e-6};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"rows", 1}, {"cols", 64}, {"kind", 0}}, 1),
                           make_case({{"rows", 70}, {"cols", 40}, {"kind", 1}}, 2),
                           make_case({{"rows", 3}, {"cols", 517}, {"kind", 2}}, 3),
                           make_case({{"rows", 2}, {"cols", 7}, {"kind", 0}}, 4)};
    if (sweep)
      for (int64_t cols : {10, 11, 16, 40, 63, 64, 65, 128, 256, 512, 1024})
        for (int64_t kind : {0, 1, 2})
          c.push_back(make_case({{"rows", 130}, {"cols", cols}, {"kind", kind}}, uint32_t(cols * 3 + kind)));
    return c;
  };
  d.run = [](TestDevice& dev, const Case& c) {
    int64_t rows = c["rows"], cols = c["cols"];
    auto x = selection_inputs(size_t(rows * cols), c.seed, c["kind"]);
    DeviceBuffer<float> dx(dev, x), dw(dev, size_t(rows * 10));
    DeviceBuffer<int32_t> dids(dev, size_t(rows * 10));
    launch(dev, tk::topk_signature(true), {uint32_t((rows + 63) / 64)}, {64},
               {dx.addr(), dids.addr(), dw.addr(), rows, cols});
    std::vector<int32_t> want_i;
    std::vector<float> top, want_w(size_t(rows * 10));
    topk_reference(x, rows, cols, 10, want_i, top);
    for (int64_t r = 0; r < rows; ++r) {
      double sum = 0;
      for (int j = 0; j < 10; ++j) sum += std::exp(double(top[size_t(r * 10 + j)]) - top[size_t(r * 10)]);
      for (int j = 0; j < 10; ++j)
        want_w[size_t(r * 10 + j)] = float(std::exp(double(top[size_t(r * 10 + j)]) - top[size_t(r * 10)]) / sum);
    }
    return combine({compare_exact(dids.download(), want_i), compare(dw.download(), want_w, Tolerance{1e-7, 2e-6})});
  };
  d.ideal_bytes = [](const Case& c) { return uint64_t(c["rows"] * c["cols"] + 20 * c["rows"]) * 4; };
  d.bench_case = [] { return make_case({{"rows", 512}, {"cols", 512}, {"kind", 0}}); };
  r.add(std::move(d));
}

}  // namespace

void register_ops_norm_select_kernels(Registry& r) {
  register_topk(r);
  register_router(r);
  register_argmax(r);
  register_argmax_part(r);
  register_argmax_comb(r);
}

}  // namespace k100::kernels
