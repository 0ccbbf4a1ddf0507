// The fused native-block dot products of KERNELS.md 3.3 and reduce_blocks_k.
//
// `<type>_dot_k`: work-item i = workgroup * group_size + local id (i <
// nblocks) owns weight block i and writes partial[i], with the section 3.3
// indexing by magic multipliers (division.h): q1 = i / nbpr (weight row),
// b = i % nbpr, e = q1 / rows_per_exp (activation group), ew = q1 /
// rows_per_w (weight group), local = (q1 - ew * rows_per_w) * nbpr + b; the
// block is at w + ids[ew] * stride + local * block_bytes and is dotted with
// x[e][b * QK .. b * QK + QK - 1]. The type's emitter decodes the block; its
// batches announce their element positions first, so the 16-byte activation
// loads are issued before the values are computed, then four accumulators
// (one per run component) take fused multiply-adds and are summed at the end
// as (a0 + a1) + (a2 + a3).
//
// reduce_blocks_k: lane r = workgroup * 64 + lane sums partial[r * nbpr ..
// r * nbpr + nbpr - 1] in index order from 0, 16 loads in flight per step.
#include "gguf/dot_block_index.h"
#include "gguf/gguf_generators.h"

namespace k100::kernels::gguf {

using namespace codegen;
using as::off, as::offset, as::vcc;

namespace {

// The dot kernels keep a batch's values and activations (32 VGPRs) live
// next to the block's own registers; a resident block takes more.
int dot_waves(const BlockFormat& f) { return f.resident ? resident_waves(f) : 4; }

}  // namespace

std::string dot_lookup(const BlockFormat& f) { return f.prefix + "_dot_k"; }

Signature dot_signature(const BlockFormat& f) {
  std::vector<Param> p = {in("w", "u8"),          in("x", "f32"),          out("partial", "f32"),
                          value("nblocks", "u32"),  value("group_size", "u32"), value("nbpr", "u32"),
                          value("magic_nbpr", "u32"), value("rows_per_exp", "u32"), value("magic_rpe", "u32")};
  for (const TableParam& t : f.tables) p.push_back(in(t.name, t.element));
  p.insert(p.end(), {in("ids", "u32"), value("stride", "u32"), value("rows_per_w", "u32"), value("magic_rpw", "u32")});
  return Signature(dot_lookup(f), p);
}

codeobj::CodeObject build_dot(isa::Target target, const BlockFormat& f) {
  Kernel k(dot_signature(f), target, {.waves_per_simd = dot_waves(f)});
  const SGPR first = k.sgpr(1, "first block");
  const VGPR i = k.vgpr(1, "block");
  k.s_mul_i32(first, k.workgroup_id(), k.arg("group_size"));
  k.v_add_u32(i, first, k.local_id());
  if_lanes_below(k, k.arg("nblocks"), i, [&] {
    const auto [x, w, slot, local] = dot_block(k, i, uint32_t(f.elems), uint32_t(f.bytes));

    std::vector<SGPR> tables;
    for (const TableParam& p : f.tables) tables.push_back(k.arg(p.name));
    const VGPR acc = k.vgpr(4, "acc");
    for (int c = 0; c < 4; ++c) k.v_mov_b32(acc[c], 0);
    std::vector<VGPR> pending;  // the activations of the batch in flight
    const BlockSink dot{[&](const std::vector<int>& firsts) {
                          for (int first : firsts) {
                            const VGPR xv = k.vgpr(4, "x");
                            k.global_load_dwordx4(xv, x, off, offset(4 * first));
                            pending.push_back(xv);
                          }
                        },
                        [&](const std::vector<ValueRun>& runs) {
                          for (size_t r = 0; r < runs.size(); ++r)
                            for (int c = 0; c < 4; ++c) k.v_fmac_f32(acc[c], runs[r].values[c], pending[r][c]);
                          pending.clear();
                        }};
    BlockInput input{w, tables, std::nullopt};
    if (f.resident) input.resident = load_resident(k, w, f.bytes);
    f.decode(k, input, dot);
    k.v_add_f32(acc[0], acc[0], acc[1]);
    k.v_add_f32(acc[2], acc[2], acc[3]);
    k.v_add_f32(acc[0], acc[0], acc[2]);
    const VGPR p = lane_address(k, k.arg("partial"), i, 4u);
    k.global_store_dword(p, acc[0], off);
  });
  return k.build();
}

Signature reduce_blocks_signature() {
  return Signature("reduce_blocks_k",
                   {in("partial", "f32"), out("y", "f32"), value("nrows", "u32"), value("nbpr", "u32")});
}

codeobj::CodeObject build_reduce_blocks(isa::Target target) {
  Kernel k(reduce_blocks_signature(), target, {.waves_per_simd = 8});
  constexpr int kInFlight = 16;
  const Label exit = k.exit();
  exit_unless_first_wave(k, exit);
  const SGPR first = k.sgpr(1, "first row"), left = k.sgpr(1, "partials left"), pitch = k.sgpr(1, "row bytes");
  const VGPR r = k.vgpr(1, "row"), sum = k.vgpr(1, "sum"), part = k.vgpr(kInFlight, "partials");
  k.s_lshl_b32(first, k.workgroup_id(), 6);
  k.v_add_u32(r, first, lane_of_local_id(k));
  if_lanes_below(k, k.arg("nrows"), r, [&] {
    k.s_lshl_b32(pitch, k.arg("nbpr"), 2);
    const VGPR p = lane_address(k, k.arg("partial"), r, Operand(pitch));
    k.v_mov_b32(sum, 0);
    k.s_mov_b32(left, k.arg("nbpr"));
    countdown_groups(k, left, {kInFlight, 1}, [&](int n) {
      for (int j = 0; j < n; ++j) k.global_load_dword(part[j], p, off, offset(4 * j));
      for (int j = 0; j < n; ++j) k.v_add_f32(sum, sum, part[j]);
      add_lane_bytes(k, p, 4 * n);
    });
    const VGPR y = lane_address(k, k.arg("y"), r, 4u);
    k.global_store_dword(y, sum, off);
  });
  return k.build();
}

}  // namespace k100::kernels::gguf
