// The device side of the GEMV load-time repack (k100/quant/gemv_layout.h)
// for the types whose transcoding only moves whole bytes: Q8_0, IQ2_S,
// IQ3_S, IQ3_XXS (`*_gemv_repack_k`). The bit-field types (4-, 5-, 6- and
// 2-bit codes) are repacked on the host only.
//
// Workgroup t * groups + g (a one-dimensional grid, as every launcher takes)
// writes group g of 64-row tile t: lane l reads row 64t + l's G blocks of the
// group with the byte runs of quant::gemv_byte_runs (unrolled: one dword,
// half-word or byte load per run, at an immediate offset from the row's
// group) and stores each lane dword to its row's slot of the piece
// (quant::GemvLayout::lane_dword_offset), so the 64 lanes' stores of a dword
// are adjacent. Rows past the matrix store
// zeros. The table at the start of the layout is the caller's (host) part.
#include <algorithm>
#include <bit>
#include <cstring>

#include "gemv_reference.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/registry.h"
#include "k100/kernels/test_support.h"
#include "k100/quant/gemv_layout.h"

namespace k100::kernels::gguf_gemv {

namespace {

using namespace codegen;
using as::offset;
using quant::TensorType;

constexpr TensorType kByteTypes[] = {TensorType::Q8_0, TensorType::IQ2_S, TensorType::IQ3_S, TensorType::IQ3_XXS};

// Named as the GEMVs: q8_0_gemv_k -> q8_0_gemv_repack_k.
std::string repack_name(TensorType t) {
  switch (t) {
    case TensorType::Q8_0: return "q8_0_gemv_repack_k";
    case TensorType::IQ2_S: return "iq2s_gemv_repack_k";
    case TensorType::IQ3_S: return "iq3s_gemv_repack_k";
    default: return "iq3xxs_gemv_repack_k";
  }
}

int blocks_per_group(TensorType t) { return quant::gemv_layout(t, 1, quant::traits(t).block_elems).blocks_per_group; }

Signature repack_signature(TensorType t) {
  return Signature(repack_name(t), {in("w", "u8"), out("y", "u8"), value("nrows", "u32"), value("nbpr", "u32")},
                   codeobj::HiddenArgLayout::Compact);
}

codeobj::CodeObject build_repack(isa::Target target, TensorType t) {
  const quant::GemvLayout l = quant::gemv_layout(t, 1, quant::traits(t).block_elems);
  // By lane byte: a dword's low bytes load straight into it before the others are or-ed in.
  std::vector<quant::GemvByteRun> runs = quant::gemv_byte_runs(t);
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.lane_byte < b.lane_byte; });
  const int dwords = l.lane_dwords(), G = l.blocks_per_group, bb = l.block_bytes;
  Kernel k(repack_signature(t), target, {.waves_per_simd = 2, .max_workgroup = 64});
  // Workgroup index = t * groups + g, groups = ceil(nbpr / G) (G a power of two).
  const SGPR index = k.workgroup_id(0), groups = k.sgpr(1, "groups"), group = k.sgpr(1, "group");
  const SGPR row_bytes = k.sgpr(1, "row bytes"), first = k.sgpr(1, "first row"), src_group = k.sgpr(1, "group byte in row");
  k.s_add_u32(groups, k.arg("nbpr"), uint32_t(G - 1));
  k.s_lshr_b32(groups, groups, uint32_t(std::countr_zero(uint32_t(G))));
  const SGPR tile = divide_scalar(k, make_divider(k, groups), index);
  k.s_mul_i32(group, tile, groups);
  k.s_sub_u32(group, index, group);
  const SGPR dst = scaled_address(k, k.arg("y"), index, uint32_t(l.group_bytes()), 0);
  k.s_mul_i32(row_bytes, k.arg("nbpr"), bb);
  k.s_mul_i32(src_group, group, G * bb);
  k.s_lshl_b32(first, tile, 6);
  // Blocks of the row in this group: fewer than G in a row's last group,
  // whose missing blocks stay zero (their runs are skipped).
  const SGPR present = k.sgpr(1, "blocks present");
  k.s_mul_i32(present, group, G);
  k.s_sub_u32(present, k.arg("nbpr"), present);
  // The lane's row and its group's byte offset in w (32-bit: the matrix is below 4 GiB).
  const VGPR lane = k.local_id(), row = k.vgpr(1, "row"), src = k.vgpr(1, "source");
  k.v_add_u32(row, first, lane);
  k.v_mul_lo_u32(src, row, row_bytes);
  k.v_add_u32(src, src_group, src);
  std::vector<VGPR> value;
  for (int d = 0; d < dwords; ++d) {
    value.push_back(k.vgpr(1, "lane dword"));
    k.v_mov_b32(value.back(), 0);
  }
  if_lanes_below(k, k.arg("nrows"), row, [&] {
    for (const quant::GemvByteRun& r : runs) {
      const int d = r.lane_byte / 4, shift = 8 * (r.lane_byte % 4), block = r.group_byte / bb;
      Label skip = k.label("missing block");
      if (block > 0) {
        k.s_cmp_le_u32(present, uint32_t(block));
        k.s_cbranch_scc1(skip);
      }
      for (int at = 0; at < r.bytes;) {
        const int n = r.bytes - at >= 4 ? 4 : r.bytes - at >= 2 ? 2 : 1;
        const bool direct = shift + 8 * at == 0;  // the dword's low bytes load straight into it
        const VGPR v = direct ? value[size_t(d)] : k.vgpr(1, "run");
        if (n == 4) k.global_load_dword(v, src, k.arg("w"), offset(r.group_byte + at));
        else if (n == 2) k.global_load_ushort(v, src, k.arg("w"), offset(r.group_byte + at));
        else k.global_load_ubyte(v, src, k.arg("w"), offset(r.group_byte + at));
        if (!direct) k.v_lshl_or_b32(value[size_t(d)], v, uint32_t(shift + 8 * at), value[size_t(d)]);
        at += n;
      }
      k.bind(skip);
    }
  });
  // Dword d of row l: lane_dword_offset(0, d) + 4 * l * (its piece's width).
  const VGPR lane4 = k.vgpr(1, "lane * 4"), at = k.vgpr(1, "store offset");
  k.v_lshlrev_b32(lane4, 2, lane);
  for (int d = 0; d < dwords; ++d) {
    const int64_t base = l.lane_dword_offset(0, d), width = (l.lane_dword_offset(1, d) - base) / 4;
    k.v_mul_u32_u24(at, uint32_t(width), lane4);
    k.v_add_u32(at, uint32_t(base), at);
    k.global_store_dword(at, value[size_t(d)], dst, offset(0));
  }
  k.s_endpgm();
  return k.build();
}

std::vector<Case> repack_cases(TensorType t, bool sweep) {
  const int64_t G = blocks_per_group(t);
  std::vector<Case> c;
  uint32_t seed = 1;
  // Whole groups, and rows whose last group holds 1 .. G-1 blocks.
  for (auto [rows, blocks] : std::vector<std::pair<int64_t, int64_t>>{
           {64, G}, {65, 3 * G}, {1, 2 * G}, {130, 5 * G}, {70, 2 * G + 1}, {1, 1}, {129, 3 * G - 1}})
    c.push_back(make_case({{"nrows", rows}, {"nbpr", blocks}}, seed++));
  if (sweep)
    for (int64_t rows : {63, 127, 200})
      for (int64_t blocks : {G, 4 * G, 7 * G, G + G / 2 + 1, 5 * G - 1})
        c.push_back(make_case({{"nrows", rows}, {"nbpr", blocks}}, seed++));
  return c;
}

CaseResult run_repack(TestDevice& dev, const Case& c, TensorType t) {
  const int64_t rows = c["nrows"], nbpr = c["nbpr"];
  const quant::GemvLayout l = quant::gemv_layout(t, rows, nbpr * quant::traits(t).block_elems);
  Rng rng(c.seed);
  const std::vector<uint8_t> w = rng.bytes(size_t(rows * nbpr * l.block_bytes));
  std::vector<uint8_t> want(size_t(l.bytes()));
  quant::repack_for_gemv(l, w.data(), want.data());
  DeviceBuffer<uint8_t> dw(dev, w);
  // Poisoned output: every byte of the tiles must be written.
  DeviceBuffer<uint8_t> dy(dev, std::vector<uint8_t>(size_t(l.bytes() - l.table_bytes), 0xA5));
  launch(dev, repack_signature(t), {uint32_t(l.tiles * l.groups)}, {64},
         {dw.addr(), dy.addr(), uint64_t(rows), uint64_t(nbpr)});
  const std::vector<uint8_t> got = dy.download();
  std::vector<uint32_t> g(got.size() / 4), e(got.size() / 4);
  std::memcpy(g.data(), got.data(), got.size());
  std::memcpy(e.data(), want.data() + l.table_bytes, got.size());
  return compare_exact_u32(g, e);
}

}  // namespace

void register_gguf_gemv_repack_kernels(Registry& r) {
  for (TensorType t : kByteTypes) {
    KernelDef d = generated_kernel("gguf", repack_signature(t), [t](isa::Target target) { return build_repack(target, t); });
    const std::string type = quant::type_name(t);
    d.description =
        "Device side of the GEMV load-time repack for " + type +
        " (its transcoding only moves whole bytes): workgroup t * groups + g writes group g of 64-row tile t of "
        "the GEMV layout (k100/quant/gemv_layout.h); lane l reads row 64t + l's blocks of the group with one "
        "dword, half-word or byte load per byte run and stores each lane dword into its row's slot of the piece. "
        "Bit-exact with quant::repack_for_gemv; y is the layout after its table (the host writes the table).";
    d.semantics = "y[tile bytes] = repack_for_gemv(w)[table_bytes ..], rows past nrows zero";
    d.geometry = "grid = ceil(nrows/64) * ceil(nbpr/G), wg = 64 (G = " + std::to_string(blocks_per_group(t)) +
                 " blocks per group; a row's last group may hold fewer, the rest of it is zero as on the host)";
    d.launch = "sizes nrows groups\nworkgroup = 64\ngrid = ceil_div(nrows, 64) * groups";
    d.limits = "nbpr >= 1; nrows * nbpr * block bytes < 2^32";
    d.tolerance = Tolerance{};
    d.cases = [t](bool sweep) { return repack_cases(t, sweep); };
    d.run = [t](TestDevice& dev, const Case& c) { return run_repack(dev, c, t); };
    d.ideal_bytes = [t](const Case& c) {
      return 2 * uint64_t(c["nrows"]) * uint64_t(c["nbpr"]) * quant::traits(t).block_bytes;
    };
    d.bench_case = [t] {
      return make_case({{"nrows", 17408}, {"nbpr", 5120 / int64_t(quant::traits(t).block_elems)}});
    };
    r.add(std::move(d));
  }
}

}  // namespace k100::kernels::gguf_gemv
