// The arguments of the decode-attention kernels, read once per workgroup.
//
// The kernarg segment lives in host memory: every wave that loads its
// arguments makes a host-link request per 64-byte line, and a dispatch's
// requests queue on the link one after the other (docs/PERFORMANCE.md,
// "Kernel arguments come over the host link"). These kernels have no hidden
// arguments, and four waves per workgroup: wave 0 alone loads the explicit
// arguments and passes them on through LDS, and the workgroup size is checked
// without the dispatch packet (another host-memory line per wave): every wave
// adds its launched lanes to a counter in LDS, and all of them leave unless
// it reaches the size the kernel is written for.
#include "attention/flash_decode_kernels.h"

#include <algorithm>

namespace k100::kernels::flash_decode {

using namespace codegen;

SGPR SharedArguments::operator()(std::string_view name) const {
  const uint32_t at = sig->offset(name), size = sig->size(name);
  const int dword = int(at / 4), width = size == 8 ? 2 : 1;
  return blocks[size_t(dword / 16)].sub(dword % 16, width);
}

SharedArguments share_arguments(Kernel& k, uint32_t lds_at, uint32_t threads, Label exit) {
  SharedArguments a;
  a.sig = &k.signature();
  uint32_t end = 0;
  for (const Param& p : a.sig->params()) end = std::max(end, a.sig->offset(p.name) + a.sig->size(p.name));
  const int dwords = int((end + 3) / 4);
  const uint32_t count_at = lds_at + 4 * uint32_t((dwords + 3) / 4 * 4);
  a.wave = wave_index(k);
  const SGPR mine = k.sgpr(1, "launched lanes of the wave");
  k.s_bcnt1_i32_b64(mine, exec);
  for (int c = 0; c * 16 < dwords; ++c) a.blocks.push_back(k.sgpr(16, "arguments"));
  auto dword = [&](int d) { return a.blocks[size_t(d / 16)][d % 16]; };

  // wave 0 asks first thing: only the dwords the arguments occupy
  Label asked = k.label("arguments asked for");
  k.s_cmp_lg_u32(a.wave, 0);
  k.s_cbranch_scc1(asked);
  for (int c = 0; c * 16 < dwords; ++c) {
    int pos = 0, left = std::min(16, dwords - 16 * c);
    for (int w : {16, 8, 4, 2, 1})
      while (left >= w) {
        k.emit(w == 1 ? "s_load_dword" : "s_load_dwordx" + std::to_string(w),
               {a.blocks[size_t(c)].sub(pos, w), k.kernarg_pointer(), 4 * (16 * c + pos)});
        pos += w;
        left -= w;
      }
  }
  k.bind(asked);

  const VGPR zero = k.vgpr(1, "zero"), staging = k.vgpr(4, "argument staging"), v = k.vgpr(1, "lanes");
  k.v_mov_b32(zero, 0);
  Label written = k.label("arguments written");
  k.s_cmp_lg_u32(a.wave, 0);
  k.s_cbranch_scc1(written);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_write_b32(zero, zero, offset(count_at));
  for (int d = 0; d < dwords; d += 4) {
    const int w = std::min(4, dwords - d);
    for (int i = 0; i < w; ++i) k.v_mov_b32(staging[i], dword(d + i));
    const auto at = offset(lds_at + 4 * uint32_t(d));
    switch (w) {
      case 1: k.ds_write_b32(zero, staging[0], at); break;
      case 2: k.ds_write_b64(zero, staging.sub(0, 2), at); break;
      case 3: k.ds_write_b96(zero, staging.sub(0, 3), at); break;
      default: k.ds_write_b128(zero, staging, at); break;
    }
  }
  k.s_mov_b64(exec, -1);
  k.bind(written);
  k.s_waitcnt(lgkmcnt(0));
  k.s_barrier();
  // every wave adds its lanes; the other waves copy the arguments
  k.v_mov_b32(v, mine);
  k.s_mov_b32(exec_lo, 1);
  k.s_mov_b32(exec_hi, 0);
  k.ds_add_u32(zero, v, offset(count_at));
  k.s_mov_b64(exec, -1);
  Label have = k.label("arguments in SGPRs");
  k.s_cmp_eq_u32(a.wave, 0);
  k.s_cbranch_scc1(have);
  for (int d = 0; d < dwords; d += 16) {
    const int n = std::min(16, dwords - d);
    const VGPR copy = k.vgpr(n, "argument copy");
    for (int i = 0; i < n; i += 4) {
      const int w = std::min(4, n - i);
      const auto at = offset(lds_at + 4 * uint32_t(d + i));
      switch (w) {
        case 1: k.ds_read_b32(copy[i], zero, at); break;
        case 2: k.ds_read_b64(copy.sub(i, 2), zero, at); break;
        case 3: k.ds_read_b96(copy.sub(i, 3), zero, at); break;
        default: k.ds_read_b128(copy.sub(i, 4), zero, at); break;
      }
    }
    for (int i = 0; i < n; ++i) k.v_readfirstlane_b32(dword(d + i), copy[i]);
  }
  k.bind(have);
  k.s_waitcnt(lgkmcnt(0));
  k.s_barrier();
  const SGPR count = k.sgpr(1, "workgroup lanes");
  k.ds_read_b32(v, zero, offset(count_at));
  k.v_readfirstlane_b32(count, v);
  k.s_cmp_lg_u32(count, threads);
  k.s_cbranch_scc1(exit);  // another workgroup size than the kernel's: nothing is written
  return a;
}

}  // namespace k100::kernels::flash_decode
