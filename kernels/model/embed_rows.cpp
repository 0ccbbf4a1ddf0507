// Token embedding rows from f32 and bf16 tables: embed_f32_k, embed_bf16_k
// (embed_f16_k of the ops family covers f16 tables; quantised tables are
// decoded a row at a time by the block decoders at the row's offset).
//
// Same interface as embed_f16_k: one workgroup per token row, its threads
// walking the row one element each (thread t takes t, t + W, ...). A decode
// step embeds one token, so the kernel is small next to everything else.
#include <cstring>

#include "model/model_parts.h"

namespace k100::kernels {

namespace {

using namespace codegen;
using namespace model_family;

Signature embed_signature(bool bf16) {
  return Signature(bf16 ? "embed_bf16_k" : "embed_f32_k",
                   {out("y", "f32"), in("ids", "u32"), in("table", bf16 ? "bf16" : "f32"), value("rows", "u32"),
                    value("dim", "u32")},
                   codeobj::HiddenArgLayout::Compact);
}

codeobj::CodeObject build_embed(isa::Target target, bool bf16) {
  Kernel k(embed_signature(bf16), target, options());
  Label exit = k.label("exit");
  const SGPR dim = k.arg("dim");
  k.s_cmp_ge_u32(k.workgroup_id(), k.arg("rows"));
  k.s_cbranch_scc1(exit);
  const SGPR sIdOff = k.sgpr(1, "id offset"), sId = k.sgpr(1, "token id");
  k.s_lshl_b32(sIdOff, k.workgroup_id(), 2);
  k.s_load_dword(sId, k.arg("ids"), sIdOff);
  const SGPR dst = scaled_address(k, k.arg("y"), k.workgroup_id(), dim, 2);
  const SGPR src = scaled_address(k, k.arg("table"), sId, dim, bf16 ? 1 : 2);
  const VGPR off = k.vgpr(1, "offset"), v = k.vgpr(1, "value");
  row_walk(k, dim, group_size_x(k), [&](VGPR unit) {
    if (bf16) {
      k.v_lshlrev_b32(off, 1, unit);
      k.global_load_ushort(v, off, src);
      bf16_to_f32(k, v, v, 0);
    } else {
      k.v_lshlrev_b32(off, 2, unit);
      k.global_load_dword(v, off, src);
    }
    k.v_lshlrev_b32(off, 2, unit);
    k.global_store_dword(off, v, dst);
  });
  k.bind(exit);
  k.s_endpgm();
  return k.build();
}

void add_embed(Registry& reg, bool bf16) {
  KernelDef d = generated_kernel("model", embed_signature(bf16), [bf16](isa::Target t) { return build_embed(t, bf16); });
  d.description = std::string("Token embedding lookup from a") + (bf16 ? " bf16" : "n f32") +
                  " table [vocab][dim] into f32 rows, bit-exact" + (bf16 ? " (bf16 is the high half of an f32)" : "") +
                  ". One workgroup per token row; its threads walk the row one element each. Same arguments as "
                  "embed_f16_k.";
  d.semantics = std::string("y[r][d] = ") + (bf16 ? "f32(table[ids[r]][d])" : "table[ids[r]][d]") +
                " for r < rows, d < dim";
  d.geometry = "grid = rows (workgroups past rows do nothing), wg = 64 (any)";
  d.launch = "sizes rows\nworkgroup = 64\ngrid = rows";
  d.limits = "ids[r] < vocab (not checked: the table size is not an argument)";
  d.tolerance = Tolerance{};
  d.cases = [](bool sweep) {
    std::vector<Case> c = {make_case({{"rows", 1}, {"dim", 4}, {"vocab", 3}, {"wg", 64}, {"grid", 1}}, 1),
                           make_case({{"rows", 5}, {"dim", 640}, {"vocab", 40}, {"wg", 64}, {"grid", 5}}, 2),
                           make_case({{"rows", 3}, {"dim", 101}, {"vocab", 7}, {"wg", 128}, {"grid", 4}}, 3)};
    if (sweep)
      for (int64_t dim : {1, 63, 64, 65, 1000, 5120})
        for (int64_t wg : {32, 64, 256, 1024})
          c.push_back(make_case({{"rows", 4}, {"dim", dim}, {"vocab", 20}, {"wg", wg}, {"grid", 6}}, uint32_t(dim + wg)));
    return c;
  };
  d.run = [bf16](TestDevice& dev, const Case& c) {
    const int64_t rows = c["rows"], dim = c["dim"], vocab = c["vocab"];
    Rng rng(c.seed);
    std::vector<uint32_t> table(size_t(vocab * dim));
    for (auto& w : table) w = rng.engine()();
    std::vector<uint16_t> halves(table.size());
    for (size_t i = 0; i < table.size(); ++i) halves[i] = uint16_t(table[i] >> 7);
    auto idv = rng.integers(size_t(rows), 0, int32_t(vocab - 1));
    std::vector<uint32_t> ids(idv.begin(), idv.end());
    std::vector<uint32_t> want(size_t(rows * dim));
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t e = 0; e < dim; ++e) {
        const size_t i = size_t(ids[size_t(r)] * dim + e);
        want[size_t(r * dim + e)] = bf16 ? uint32_t(halves[i]) << 16 : table[i];
      }
    std::vector<uint32_t> guard(want.size() + 16, 0x7fc0dead);
    DeviceBuffer<uint32_t> y(dev, guard), did(dev, ids), dt32(dev, bf16 ? std::vector<uint32_t>{0} : table);
    DeviceBuffer<uint16_t> dt16(dev, bf16 ? halves : std::vector<uint16_t>{0});
    launch(dev, embed_signature(bf16), {uint32_t(c["grid"])}, {uint32_t(c["wg"])},
           {y.addr(), did.addr(), bf16 ? dt16.addr() : dt32.addr(), rows, dim});
    std::vector<uint32_t> got = y.download();
    for (size_t i = 0; i < 16; ++i) want.push_back(0x7fc0dead);  // nothing written past the rows
    return compare_exact_u32(got, want);
  };
  d.ideal_bytes = [bf16](const Case& c) { return uint64_t(c["rows"] * (c["dim"] * (bf16 ? 6 : 8) + 4)); };
  reg.add(std::move(d));
}

}  // namespace

void register_model_embed_kernels(Registry& r) {
  add_embed(r, false);
  add_embed(r, true);
}

}  // namespace k100::kernels
