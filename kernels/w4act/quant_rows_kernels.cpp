// The prefill activation quantisers (grid = rows): int4 codes [rows][K/8]
// u32 and group-major scales sc[g * rows + row] for the W4A4 GEMM, and the
// int8-as-two-int4-digits form of quant_rows_a8_k. Row r reads
// x[r * in_stride + in_off + k].
//
// quant_rows_k and quant_rows_a8_k: thread t takes the groups t, t + W,
// t + 2W, ... (W = the workgroup size, read from the dispatch packet, so any
// workgroup size gives the same outputs; the catalog's K/G threads take one
// group each). A group is G/8 units of 8 f32, walked twice: the amax, then
// the codes (GroupQuantiser with one lane per group).
//
// quant_rows_fast_k: G/8 consecutive lanes quantise one group, one unit a
// lane, the group's amax reduced with DPP (GroupQuantiser with G/8 lanes);
// a workgroup of W threads holds S = W / (G/8) such slots (slot s = local id
// / (G/8)), and slot s takes the groups s, s + S, ... G is 16, 32, 64 or 128
// (one generated body each, chosen by G at run time).
#include <bit>

#include "w4act/w4act_kernels.h"

namespace k100::kernels::w4act {

using namespace codegen;

Signature rows_signature(RowsKind kind) {
  switch (kind) {
    case RowsKind::Serial:
      return Signature("quant_rows_k", {out("q", "u32"), out("sc", "f32"), in("x", "f32"), value("K", "i32"),
                                        value("G", "i32"), value("rows", "i32"), value("in_stride", "i32"),
                                        value("in_off", "i32")});
    case RowsKind::Fast:
      return Signature("quant_rows_fast_k", {out("q", "u32"), out("sc", "f32"), in("x", "f32"), value("K", "u32"),
                                             value("G", "u32"), value("rows", "u32"), value("in_stride", "u32"),
                                             value("in_off", "u32"), value("NG", "u32")});
    case RowsKind::Digits:
      return Signature("quant_rows_a8_k", {out("qh", "u32"), out("ql", "u32"), out("sc", "f32"), out("sc16", "f32"),
                                           in("x", "f32"), value("K", "i32"), value("G", "i32"), value("rows", "i32"),
                                           value("in_stride", "i32"), value("in_off", "i32")});
  }
  return {};
}

namespace {

// The row's addresses every form shares.
struct RowStreams {
  SGPR row, x, q, K, G, rows;
};

RowStreams row_streams(Kernel& k, const char* q_arg, Label exit) {
  RowStreams s{k.workgroup_id(0), {}, {}, k.arg("K"), k.arg("G"), k.arg("rows")};
  k.s_cmp_ge_u32(s.row, s.rows);  // workgroups past the rows write nothing
  k.s_cbranch_scc1(exit);
  s.x = element_address(k, k.arg("x"), s.row, k.arg("in_stride"), k.arg("in_off"), 2);
  const SGPR words = k.sgpr(1, "words per row");
  k.s_lshr_b32(words, s.K, 3);
  s.q = element_address(k, k.arg(q_arg), s.row, words, 0, 2);
  return s;
}

// A group's scale index g * rows + row as a byte offset.
VGPR scale_offset(Kernel& k, VGPR g, const RowStreams& s) {
  const VGPR off = k.vgpr(1, "scale offset");
  k.v_mul_u32_u24(off, s.rows, g);
  k.v_add_u32(off, s.row, off);
  k.v_lshlrev_b32(off, 2, off);
  return off;
}

// Splits int8 codes q (-128..119) into digits h, l in -8..7 with q = 16 h + l.
void split_digits(Kernel& k, VGPR high8, VGPR low8, VGPR codes8) {
  const Kernel::Scope scope(k, "split_digits");
  for (int i = 0; i < 8; ++i) {
    k.v_add_u32(high8[i], 8, codes8[i]);
    k.v_ashrrev_i32(high8[i], 4, high8[i]);  // floor((q + 8) / 16)
    k.v_lshlrev_b32(low8[i], 4, high8[i]);
    k.v_sub_u32(low8[i], codes8[i], low8[i]);
  }
}

codeobj::CodeObject build_serial(isa::Target target, bool digits) {
  Kernel k(rows_signature(digits ? RowsKind::Digits : RowsKind::Serial), target,
           {.waves_per_simd = 8, .max_workgroup = 1024, .dispatch_ptr = true});
  const Label exit = k.exit();
  const RowStreams s = row_streams(k, digits ? "qh" : "q", exit);
  SGPR ql;
  if (digits) {
    const SGPR words = k.sgpr(1, "words per row");
    k.s_lshr_b32(words, s.K, 3);
    ql = element_address(k, k.arg("ql"), s.row, words, 0, 2);
  }
  const SGPR packet = k.sgpr(1, "packet size"), W = k.sgpr(1, "threads"), units = k.sgpr(1, "units"),
             left = k.sgpr(1, "units left"), stride = k.sgpr(1, "group stride");
  k.s_load_dword(packet, k.dispatch_pointer(), 0x4);  // hsa_kernel_dispatch_packet_t.workgroup_size_x
  k.s_and_b32(W, packet, 0xffff);
  k.s_lshr_b32(units, s.G, 3);
  k.s_mul_i32(stride, W, s.G);  // k distance between a thread's groups
  const GroupQuantiser gq(k, digits ? kDigitCodes : kInt4Codes, 1);
  const VGPR g = k.vgpr(1, "group"), gk = k.vgpr(1, "group's first k"), xoff = k.vgpr(1, "x offset"),
             qoff = k.vgpr(1, "q offset"), amax = k.vgpr(1, "amax"), x8 = k.vgpr(8, "x"),
             codes = k.vgpr(8, "codes");
  k.v_mov_b32(g, k.local_id());
  k.v_mul_u32_u24(gk, s.G, g);
  // Each thread's groups: gk < K, then gk += W G.
  k.loop_();
  k.v_cmp_le_u32(vcc, s.K, gk);
  k.break_(vcc);
  k.v_lshlrev_b32(xoff, 2, gk);
  k.v_mov_b32(amax, 0);
  k.s_mov_b32(left, units);
  k.loop_();  // the amax over the group's units
  k.s_cmp_eq_u32(left, 0);
  k.break_(Cond::Scc1);
  k.global_load_dwordx4(x8.sub(0, 4), xoff, s.x);
  k.global_load_dwordx4(x8.sub(4, 4), xoff, s.x, offset(16));
  gq.unit_amax(amax, x8, false);
  k.v_add_u32(xoff, 32, xoff);
  k.s_sub_u32(left, left, 1);
  k.end_loop();
  const VGPR sc = gq.scale(amax);
  k.v_lshlrev_b32(xoff, 2, gk);
  k.v_lshrrev_b32(qoff, 1, gk);  // the group's first word, in bytes: gk / 8 * 4
  k.s_mov_b32(left, units);
  k.loop_();  // the codes, one word per unit
  k.s_cmp_eq_u32(left, 0);
  k.break_(Cond::Scc1);
  k.global_load_dwordx4(x8.sub(0, 4), xoff, s.x);
  k.global_load_dwordx4(x8.sub(4, 4), xoff, s.x, offset(16));
  gq.codes(codes, x8, sc);
  const VGPR word = k.vgpr(1, "word");
  if (digits) {
    const VGPR high = k.vgpr(8, "high digits"), low = k.vgpr(8, "low digits"), lword = k.vgpr(1, "low word");
    split_digits(k, high, low, codes);
    gq.nibbles(word, high);
    gq.nibbles(lword, low);
    k.global_store_dword(qoff, lword, ql);
  } else {
    gq.nibbles(word, codes);
  }
  k.global_store_dword(qoff, word, s.q);
  k.v_add_u32(xoff, 32, xoff);
  k.v_add_u32(qoff, 4, qoff);
  k.s_sub_u32(left, left, 1);
  k.end_loop();
  const VGPR soff = scale_offset(k, g, s);
  k.global_store_dword(soff, sc, k.arg("sc"));
  if (digits) {
    const VGPR sc16 = k.vgpr(1, "16 scale");
    k.v_ldexp_f32(sc16, sc, 4);  // exact: a power-of-two multiple
    k.global_store_dword(soff, sc16, k.arg("sc16"));
  }
  k.v_add_u32(g, W, g);
  k.v_add_u32(gk, stride, gk);
  k.end_loop();
  return k.build();
}

codeobj::CodeObject build_fast(isa::Target target) {
  Kernel k(rows_signature(RowsKind::Fast), target, {.waves_per_simd = 8, .max_workgroup = 1024, .dispatch_ptr = true});
  const Label exit = k.exit();
  const RowStreams s = row_streams(k, "q", exit);
  const SGPR packet = k.sgpr(1, "packet size"), W = k.sgpr(1, "threads"), NG = k.sgpr(1, "groups"),
             last = k.sgpr(1, "last group");
  k.s_load_dword(packet, k.dispatch_pointer(), 0x4);  // hsa_kernel_dispatch_packet_t.workgroup_size_x
  k.s_and_b32(W, packet, 0xffff);
  k.s_mov_b32(NG, k.arg("NG"));
  k.s_sub_u32(last, NG, 1);
  const VGPR lane = k.local_id();
  for (int lanes : {16, 8, 4, 2}) {
    const int shift = std::countr_zero(unsigned(lanes));
    k.s_cmp_eq_u32(s.G, 8 * lanes);
    k.if_(Cond::Scc1);
    {
      const SGPR slots = k.sgpr(1, "slots"), first = k.sgpr(1, "wave's first slot");
      k.s_lshr_b32(slots, W, shift);
      k.v_readfirstlane_b32(first, lane);
      k.s_lshr_b32(first, first, shift);
      const GroupQuantiser gq(k, kInt4Codes, lanes);
      const VGPR g = k.vgpr(1, "group"), gl = k.vgpr(1, "loaded group"), unit = k.vgpr(1, "unit"),
                 xoff = k.vgpr(1, "x offset"), qoff = k.vgpr(1, "q offset"), x8 = k.vgpr(8, "x"),
                 codes = k.vgpr(8, "codes"), word = k.vgpr(1, "word");
      k.v_lshrrev_b32(g, shift, lane);  // slot = local id / (G/8): its first group
      k.v_and_b32(unit, lanes - 1, lane);
      // Lanes past the last whole slot (a partial wave) take no group.
      k.v_cmp_gt_u32(vcc, slots, g);
      k.if_(vcc);
      k.loop_();  // the wave's slots take groups while its first slot's is below NG
      k.s_cmp_ge_u32(first, NG);
      k.break_(Cond::Scc1);
      k.v_min_u32(gl, last, g);  // lanes past NG quantise the last group again and store nothing
      k.v_lshl_add_u32(xoff, gl, shift, unit);  // unit index in the row = group * G/8 + unit
      k.v_lshlrev_b32(qoff, 2, xoff);
      k.v_lshlrev_b32(xoff, 5, xoff);
      k.global_load_dwordx4(x8.sub(0, 4), xoff, s.x);
      k.global_load_dwordx4(x8.sub(4, 4), xoff, s.x, offset(16));
      const VGPR sc = gq.quantise(codes, x8);
      gq.nibbles(word, codes);
      k.v_cmp_gt_u32(vcc, NG, g);
      k.if_(vcc);
      k.global_store_dword(qoff, word, s.q);
      k.v_cmp_eq_u32(vcc, 0, unit);
      k.if_(vcc);
      k.global_store_dword(scale_offset(k, g, s), sc, k.arg("sc"));
      k.end_if();
      k.end_if();
      k.v_add_u32(g, slots, g);
      k.s_add_u32(first, first, slots);
      k.end_loop();
      k.end_if();
    }
    k.end_if();
  }
  return k.build();
}

}  // namespace

codeobj::CodeObject build_rows_kernel(isa::Target target, RowsKind kind) {
  return kind == RowsKind::Fast ? build_fast(target) : build_serial(target, kind == RowsKind::Digits);
}

}  // namespace k100::kernels::w4act
