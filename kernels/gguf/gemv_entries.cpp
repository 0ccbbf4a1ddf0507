// The entries of the fast GEMVs: their signatures, and the start of every
// kernel before its bodies (gemv_skeleton.h): the argument block read once
// per workgroup and handed on through LDS, the waves and tiles of the
// workgroup, the decoder's table into LDS, the shared tile, one body per M.
#include <algorithm>
#include <functional>
#include <string>

#include "gemv_skeleton.h"
#include "k100/quant/gemv_tile_shares.h"
#include "k100/quant/tensor_type.h"

namespace k100::kernels::gguf_gemv {

using namespace codegen;
using as::offset, as::exec, as::vcc, as::exec_lo, as::exec_hi;
using quant::TensorType;
using namespace skeleton;

GroupShape group_shape(TensorType type) {
  const quant::GemvLayout l = quant::gemv_layout(type, 1, quant::traits(type).block_elems);
  return GroupShape{type, l.block_elems, l.blocks_per_group, l.header_dwords, l.slice_dwords, l.slices};
}

namespace {

std::string kernel_name(TensorType t) {
  switch (t) {
    case TensorType::Q4_0: return "q4_0_gemv_k";
    case TensorType::Q8_0: return "q8_0_gemv_k";
    case TensorType::Q2_0: return "q2_0_gemv_k";
    case TensorType::Q4_K: return "q4k_gemv_k";
    case TensorType::Q5_K: return "q5k_gemv_k";
    case TensorType::Q6_K: return "q6k_gemv_k";
    case TensorType::IQ4_NL: return "iq4nl_gemv_k";
    case TensorType::IQ4_XS: return "iq4xs_gemv_k";
    case TensorType::IQ2_S: return "iq2s_gemv_k";
    case TensorType::IQ3_S: return "iq3s_gemv_k";
    case TensorType::IQ3_XXS: return "iq3xxs_gemv_k";
    case TensorType::Q4_1: return "q4_1_gemv_k";
    case TensorType::Q5_0: return "q5_0_gemv_k";
    case TensorType::Q5_1: return "q5_1_gemv_k";
    case TensorType::MXFP4: return "mxfp4_gemv_k";
    case TensorType::Q2_K: return "q2k_gemv_k";
    case TensorType::Q3_K: return "q3k_gemv_k";
    case TensorType::IQ2_XXS: return "iq2xxs_gemv_k";
    case TensorType::IQ2_XS: return "iq2xs_gemv_k";
    case TensorType::IQ1_S: return "iq1s_gemv_k";
    case TensorType::IQ1_M: return "iq1m_gemv_k";
    case TensorType::TQ2_0: return "tq2_0_gemv_k";
    default: throw Error("gemv: no fast GEMV for type " + quant::type_name(t));
  }
}



// The decoder's table (at the start of the weights) into LDS in two halves.
// issue(): right after the arguments, each thread loads its first `rounds`
// 16-byte pieces (piece = thread + r * threads), before the prologue's weight
// loads, since vector memory returns in order and a load issued after them
// would wait for them. finish(): once the prologue's loads are issued, the
// pieces go to LDS, a loop copies what the rounds did not cover (workgroups
// of fewer waves than the rounds were sized for), and a barrier.
class TableCopy {
 public:
  TableCopy(Kernel& k, uint32_t bytes) : k_(k), pieces_(bytes / 16) {
    rounds_ = std::clamp(int((pieces_ + 255) / 256), 1, 3);  // four waves of 64 threads
  }
  void issue(SGPR wave, VGPR lane, SGPR threads, SGPR w) {
    threads_ = threads;
    w_ = w;
    piece_ = k_.vgpr(1, "piece");
    k_.v_lshl_add_u32(piece_, wave, 6, lane);
    const VGPR p = k_.vgpr(1, "piece");
    k_.v_mov_b32(p, piece_);
    each_round(p, [&](int, VGPR goff) {
      data_.push_back(k_.vgpr(4, "table data"));
      k_.global_load_dwordx4(data_.back(), goff, w_);
    });
  }
  void finish() {
    each_round(piece_, [&](int r, VGPR goff) { k_.ds_write_b128(goff, data_[size_t(r)], offset(kTableLds)); });
    const SGPR pieces = k_.sgpr(1, "table pieces"), saved = k_.sgpr(2, "exec");
    const VGPR goff = k_.vgpr(1, "table offset"), data = k_.vgpr(4, "table data");
    k_.s_mov_b32(pieces, pieces_);
    Label loop = k_.label("table"), copied = k_.label("table copied");
    k_.bind(loop);
    k_.v_cmp_gt_u32(vcc, pieces, piece_);
    k_.s_and_saveexec_b64(saved, vcc);
    k_.s_cbranch_execz(copied);
    k_.v_lshlrev_b32(goff, 4, piece_);
    k_.global_load_dwordx4(data, goff, w_);
    k_.ds_write_b128(goff, data, offset(kTableLds));
    k_.v_add_u32(piece_, threads_, piece_);
    k_.s_mov_b64(exec, saved);
    k_.s_branch(loop);
    k_.bind(copied);
    k_.s_mov_b64(exec, saved);
    k_.s_barrier();
  }

 private:
  // f(r, byte offset) for each round r under the mask of the threads that
  // have a piece in it, the piece counted in p (past the rounds afterwards).
  template <class F>
  void each_round(VGPR p, F f) {
    const SGPR saved = k_.sgpr(2, "exec"), pieces = k_.sgpr(1, "table pieces");
    const VGPR goff = k_.vgpr(1, "table offset");
    k_.s_mov_b32(pieces, pieces_);
    for (int r = 0; r < rounds_; ++r) {
      if (r) k_.v_add_u32(p, threads_, p);
      k_.v_cmp_gt_u32(vcc, pieces, p);
      k_.s_and_saveexec_b64(saved, vcc);
      k_.v_lshlrev_b32(goff, 4, p);
      f(r, goff);
      k_.s_mov_b64(exec, saved);
    }
    k_.v_add_u32(p, threads_, p);
  }
  Kernel& k_;
  uint32_t pieces_;
  int rounds_ = 1;
  SGPR threads_, w_;
  VGPR piece_;
  std::vector<VGPR> data_;
};

}  // namespace

Signature gemv_signature(TensorType type) {
  std::vector<codegen::Param> p = {in("w", "u8"),       in("x", "f32"),      out("y", "f32"),
                                   in("ids", "u32"),    value("n", "u32"),   value("k", "u32"),
                                   value("m", "u32"),   value("x_stride", "u32"), value("split", "u32")};
  // the kernels that share tiles: their workspace (read at the end, not with the others)
  if (gemv_shares_tiles(type)) p.push_back(inout("ws", "u8"));
  return Signature(kernel_name(type), p, codeobj::HiddenArgLayout::Compact);
}

bool gemv_shares_tiles(TensorType type, std::optional<GemvFusion> fusion) {
  return fusion != GemvFusion::SwiGlu && make_decoder(type)->shares_tiles();
}

std::string gemv_fused_name(TensorType type, GemvFusion fusion) {
  const std::string base = kernel_name(type);  // "<type>_gemv_k"
  const char* suffix = fusion == GemvFusion::Accumulate ? "acc" : fusion == GemvFusion::RmsScale ? "rms" : "swiglu";
  return base.substr(0, base.size() - 1) + suffix + "_k";
}

Signature gemv_fused_signature(TensorType type, GemvFusion fusion) {
  std::vector<codegen::Param> p = {in("w", "u8")};
  if (fusion == GemvFusion::SwiGlu) p.push_back(in("up", "u8"));
  p.push_back(in("x", "f32"));
  p.push_back(fusion == GemvFusion::Accumulate ? inout("y", "f32") : out("y", "f32"));
  for (codegen::Param q : {in("ids", "u32"), value("n", "u32"), value("k", "u32"), value("m", "u32"),
                           value("x_stride", "u32"), value("split", "u32")})
    p.push_back(std::move(q));
  if (fusion == GemvFusion::Accumulate) {
    p.push_back(in("scale", "f32"));
    p.push_back(out("y_scaled", "f32"));
    p.push_back(out("ss", "f32"));
  } else {
    p.push_back(in("ss", "f32"));
    p.push_back(value("eps", "f32"));
  }
  if (gemv_shares_tiles(type, fusion)) p.push_back(inout("ws", "u8"));
  return Signature(gemv_fused_name(type, fusion), p, codeobj::HiddenArgLayout::Compact);
}

namespace {

// dst[0..n) = the kernel-argument dwords from byte `at` on, in loads of 8, 4, 2 and 1 dwords.
void load_kernarg_dwords(Kernel& k, SGPR dst, int at, int n) {
  for (int d = 0; d < n;) {
    const int w = n - d >= 8 ? 8 : n - d >= 4 ? 4 : n - d >= 2 ? 2 : 1;
    const SGPR part = dst.sub(d, w);
    switch (w) {
      case 8: k.s_load_dwordx8(part, k.kernarg_pointer(), at + 4 * d); break;
      case 4: k.s_load_dwordx4(part, k.kernarg_pointer(), at + 4 * d); break;
      case 2: k.s_load_dwordx2(part, k.kernarg_pointer(), at + 4 * d); break;
      default: k.s_load_dword(part, k.kernarg_pointer(), at + 4 * d); break;
    }
    d += w;
  }
}


// The kernel of `shape` and `dec` with signature `sig`. The GGUF types'
// kernels (GEMV layout) take w, x, y, ids, n, k, m, x_stride, split (and a
// fused form's or shared tiles' arguments); a kernel over row storage
// (GroupShape::rows, no fusion) takes w, scale, x, y, nrows, k, m, is dense
// (no ids), reads x rows k apart and puts `rows_split` waves on a tile.
codeobj::CodeObject build_kernel(isa::Target target, const GroupShape& shape, GemvDecoder* dec, const Signature& sig,
                                 std::optional<GemvFusion> fusion, int rows_split) {
  if (shape.rows && fusion) throw Error("gemv: " + sig.kernel() + ": row storage has no fused forms");
  // The explicit arguments: 16 dwords, or 20 for a fused variant's longer list.
  // The arguments read first: all but ws (of the kernels that share tiles,
  // read at the end by the shares alone).
  const bool shares = !shape.rows && gemv_shares_tiles(shape.type, fusion);
  uint32_t args_end = 0;
  for (const codegen::Param& q : sig.params())
    if (q.name != "ws") args_end = std::max(args_end, sig.offset(q.name) + sig.size(q.name));
  const int block_dwords = args_end > 64 ? 20 : 16;
  if (args_end > uint32_t(4 * block_dwords))
    throw Error("gemv: the argument block of " + sig.kernel() + " is not " + std::to_string(4 * block_dwords) + " bytes");
  const uint32_t lds = kTableLds + dec->lds_table_bytes();
  Kernel k(sig, target, {.waves_per_simd = dec->waves_per_simd(), .lds_bytes = lds, .max_workgroup = 64 * kMaxWaves, .workgroup_dims = 2});

  // Arguments: wave 0 reads the explicit block (one host-link request: the
  // first 64-byte line) and passes it on through LDS: one argument read per
  // workgroup. The wave count comes from LDS too rather than from the hidden
  // group size, which lies in the next line and would cost a second request
  // queued behind every workgroup's first: wave 0 clears a counter with the
  // arguments, after a barrier every wave adds its lanes to it, and after a
  // second one every wave reads it.
  Entry en;
  en.wave = wave_index(k);
  const SGPR block = k.sgpr(16, "argument block"), lanes = k.sgpr(1, "lanes");
  const int used = int((args_end + 3) / 4);
  SGPR tail;  // dwords 16..19 of a fused variant's longer list
  if (block_dwords > 16) tail = k.sgpr(4, "argument block tail");
  {
    // Wave 0 asks first thing: the link serves the workgroups' requests in
    // the order they are made, so a few instructions more before it, slower
    // on a CU that holds more waves, would put the workgroups of the CUs
    // with the most work at the end of the queue.
    Label asked = k.label("arguments asked for");
    k.s_cmp_lg_u32(en.wave, 0);
    k.s_cbranch_scc1(asked);
    // Only the dwords the arguments occupy: the host link carries every
    // byte asked for, and a dispatch's workgroups ask one after the other.
    load_kernarg_dwords(k, block, 0, std::min(used, 16));
    if (block_dwords > 16) load_kernarg_dwords(k, tail, 64, used - 16);
    k.bind(asked);
  }
  const SGPR mine = k.sgpr(1, "lanes of the wave");
  k.s_bcnt1_i32_b64(mine, exec);  // the launch's lanes, before whole_wave_lane_id sets them all
  en.lane = whole_wave_lane_id(k);
  const VGPR staging = k.vgpr(4, "argument staging"), zero = k.vgpr(1, "zero");
  const uint32_t count_at = kArgsLds + 4 * uint32_t(block_dwords);
  k.v_mov_b32(zero, 0);
  Label read = k.label("read arguments");
  k.s_cmp_lg_u32(en.wave, 0);
  k.s_cbranch_scc1(read);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_write_b32(zero, zero, offset(count_at));
  for (int d = 0; d < used; d += 4) {
    const int w = std::min(4, used - d);
    for (int i = 0; i < w; ++i) k.v_mov_b32(staging[i], d + i < 16 ? block[d + i] : tail[d + i - 16]);
    const auto at = offset(kArgsLds + 4 * uint32_t(d));
    switch (w) {
      case 1: k.ds_write_b32(zero, staging[0], at); break;
      case 2: k.ds_write_b64(zero, staging.sub(0, 2), at); break;
      case 3: k.ds_write_b96(zero, staging.sub(0, 3), at); break;
      default: k.ds_write_b128(zero, staging, at); break;
    }
  }
  if (fusion) {
    k.v_mov_b32(staging[0], k.workgroup_id(1));
    k.ds_write_b32(zero, staging[0], offset(kArgsLds + 4 * block_dwords + 4));
  }
  k.s_mov_b64(exec, -1);
  k.bind(read);
  k.s_barrier();
  {
    // the counter is clear: every wave adds its lanes
    const VGPR v = k.vgpr(1, "lanes of the wave");
    k.v_mov_b32(v, mine);
    k.s_mov_b32(exec_lo, 1);
    k.s_mov_b32(exec_hi, 0);
    k.ds_add_u32(zero, v, offset(count_at));
    k.s_mov_b64(exec, -1);
  }
  {
    // Wave 0 has the arguments in SGPRs already; the others read the ones
    // that go into SGPRs (the rest of a fused variant's list stays in LDS
    // for Body::late_arg) into registers of their own, so one LDS round
    // trip covers them, while the counter fills up.
    const int n = std::min(used, 16);
    const VGPR copy = k.vgpr(n, "argument copy"), ccopy = k.vgpr(1, "lane count copy");
    Label have = k.label("arguments in SGPRs"), copied = k.label("arguments copied");
    k.s_cmp_eq_u32(en.wave, 0);
    k.s_cbranch_scc1(have);
    for (int d = 0; d < n; d += 4) {
      const int w = std::min(4, n - d);
      read_arg_dwords(k, copy.sub(d, w), zero, d, w);
    }
    k.s_barrier();
    k.ds_read_b32(ccopy, zero, offset(count_at));
    for (int i = 0; i < n; ++i) k.v_readfirstlane_b32(block[i], copy[i]);
    k.s_branch(copied);
    k.bind(have);
    k.s_barrier();
    k.ds_read_b32(ccopy, zero, offset(count_at));
    k.bind(copied);
    k.v_readfirstlane_b32(lanes, ccopy);
  }
  auto arg = [&](const char* name) {
    const uint32_t off = sig.offset(name);
    if (off >= 64) throw Error("gemv: argument " + std::string(name) + " of " + sig.kernel() + " is read from LDS");
    return block.sub(int(off / 4), std::max(1, int(sig.size(name) / 4)));
  };
  en.w = arg("w");
  en.x = arg("x");
  en.y = arg("y");
  if (shape.rows) {
    // dense, x rows k apart: no ids, x_stride 0
    en.scales = arg("scale");
    en.ids = k.sgpr(2, "no ids");
    k.s_mov_b64(en.ids, 0);
    en.xstride = k.sgpr(1, "no x stride");
    k.s_mov_b32(en.xstride, 0);
    en.n = arg("nrows");
  } else {
    en.ids = arg("ids");
    en.n = arg("n");
  }
  en.kcols = arg("k");
  en.m = arg("m");
  if (!shape.rows) en.xstride = arg("x_stride");
  en.fusion = fusion;
  en.grp_at = uint32_t(4 * block_dwords + 4);
  en.lds_dwords = uint32_t(block_dwords + 2);
  en.n_at = sig.offset(shape.rows ? "nrows" : "n");
  en.k_at = sig.offset("k");
  if (!shape.rows) en.xstride_at = sig.offset("x_stride");
  if (fusion == GemvFusion::Accumulate) {
    en.scale = sig.offset("scale");
    en.yscaled = sig.offset("y_scaled");
    en.ss_at = sig.offset("ss");
  } else if (fusion) {
    en.s = sig.offset("ss");
    en.eps = sig.offset("eps");
  }
  // Waves W = (lanes of the workgroup) / 64 and split S, each rounded down to a power of
  // two, S <= W <= 8; waves past W do nothing. Wave v: tile W/S * wg + v / S, part v % S.
  auto pow2_floor = [&](SGPR r) {
    const SGPR hi = k.sgpr(1, "top bit");
    k.s_max_u32(r, r, 1);
    k.s_flbit_i32_b32(hi, r);  // leading zeros
    k.s_sub_u32(hi, 31, hi);
    k.s_lshl_b32(r, 1, hi);
  };
  const SGPR waves = k.sgpr(1, "waves");
  k.s_lshr_b32(waves, lanes, 6);
  k.s_min_u32(waves, waves, kMaxWaves);
  pow2_floor(waves);
  Label active = k.label("active wave");
  k.s_cmp_lt_u32(en.wave, waves);
  k.s_cbranch_scc1(active);
  k.s_endpgm();
  k.bind(active);
  en.split = k.sgpr(1, "split");
  SGPR tiles_per_group;
  SGPR wanted;
  if (shape.rows) {
    wanted = k.sgpr(1, "split");
    k.s_mov_b32(wanted, rows_split);
  } else {
    wanted = arg("split");
  }
  if (shares) {
    wanted = k.sgpr(1, "split asked for");
    k.s_and_b32(wanted, arg("split"), 0xff);  // S; the shared tiles above it
  }
  SGPR half;  // SwiGlu: the wave's matrix (0 gate, 1 up)
  if (en.halves() == 2) {
    // 2S waves per tile: a one-wave workgroup has no tile and writes nothing
    Label two = k.label("two waves");
    k.s_cmp_ge_u32(waves, 2);
    k.s_cbranch_scc1(two);
    k.s_endpgm();
    k.bind(two);
    k.s_lshr_b32(en.split, waves, 1);
    k.s_min_u32(en.split, wanted, en.split);
  } else {
    k.s_min_u32(en.split, wanted, waves);
  }
  pow2_floor(en.split);
  {
    const SGPR logs = k.sgpr(1, "log2 split"), per = k.sgpr(1, "tiles per workgroup");
    k.s_ff1_i32_b32(logs, en.split);
    if (en.halves() == 2) {
      half = k.sgpr(1, "half");
      k.s_lshr_b32(half, en.wave, logs);
      k.s_and_b32(half, half, 1);
      k.s_add_u32(logs, logs, 1);  // log2 of the waves per tile
    }
    k.s_lshr_b32(per, waves, logs);
    tiles_per_group = per;
    en.part = k.sgpr(1, "part");
    k.s_sub_u32(en.part, en.split, 1);
    k.s_and_b32(en.part, en.part, en.wave);
    en.tile = k.sgpr(1, "tile");
    k.s_lshr_b32(en.tile, en.wave, logs);
    const SGPR first = k.sgpr(1, "first tile");
    k.s_mul_i32(first, k.workgroup_id(0), per);
    k.s_add_u32(en.tile, en.tile, first);
  }
  en.grp = k.workgroup_id(1);
  const SGPR threads = k.sgpr(1, "threads");
  k.s_lshl_b32(threads, waves, 6);

  std::optional<TableCopy> table;
  if (const uint32_t bytes = dec->lds_table_bytes()) {
    table.emplace(k, bytes);
    table->issue(en.wave, en.lane, threads, en.w);
  }
  if (table) en.finish_table = [&] { table->finish(); };
  if (shares) {
    // The row in blocks and block groups, and the units the workgroup's
    // waves share (after the table's loads, which wait for nothing of this).
    en.nb = k.sgpr(1, "blocks per row");
    en.ng = k.sgpr(1, "groups per row");
    row_units(k, en.kcols, shape, en.nb, en.ng);
    const SGPR units = dec->block_shares() ? en.nb : en.ng;
    en.unit0 = k.sgpr(1, "first unit");
    en.unit1 = k.sgpr(1, "end unit");
    k.s_mov_b32(en.unit0, 0);
    k.s_mov_b32(en.unit1, units);
    en.ws_at = sig.offset("ws");
    share_tile(k, en, arg("split"), tiles_per_group, units);
  }
  if (en.halves() == 2) {
    // the up matrix's waves read the rows at `up` (the table stays the one at w)
    const SGPR w = k.sgpr(2, "matrix");
    k.s_cmp_eq_u32(half, 1);
    k.s_cselect_b64(w, arg("up"), en.w);
    en.w = w;
  }

  // One body per M, each a hop from the previous one (a body can be longer
  // than half a branch's reach); m outside 1..4 ends after the last hop.
  for (int m = 1; m <= 4; ++m) {
    Label next = k.label("next body");
    k.s_cmp_lg_u32(en.m, m);
    k.s_cbranch_scc1(next);
    Body body(k, shape, *dec, m, en);
    body.emit();
    k.bind(next);
  }
  k.s_endpgm();
  return k.build();
}

}  // namespace

codeobj::CodeObject build_gemv(isa::Target target, TensorType type) {
  std::unique_ptr<GemvDecoder> dec = make_decoder(type);
  return build_kernel(target, group_shape(type), dec.get(), gemv_signature(type), std::nullopt, 0);
}

codeobj::CodeObject build_gemv_fused(isa::Target target, TensorType type, GemvFusion fusion) {
  std::unique_ptr<GemvDecoder> dec = make_decoder(type);
  return build_kernel(target, group_shape(type), dec.get(), gemv_fused_signature(type, fusion), fusion, 0);
}

codeobj::CodeObject build_gemv_rows(isa::Target target, const codegen::Signature& sig, const GroupShape& shape,
                                    GemvDecoder& dec, int split) {
  if (!shape.rows) throw Error("gemv: " + sig.kernel() + ": build_gemv_rows takes a shape of row storage");
  return build_kernel(target, shape, &dec, sig, std::nullopt, split);
}

}  // namespace k100::kernels::gguf_gemv
