// fa_decode_comb_k and fa_decode_rows_comb_k: the combine of split-KV decode
// partials. One workgroup of 256 threads per head (and row), thread t = output
// dim t:
//   M = max_s pmax[s] (in split order), a_s = exp(pmax[s] - M),
//   den = sum_s a_s psum[s] (fmac in split order), num = sum_s a_s pout[s][t],
//   out[t] = num / den (IEEE division, correctly rounded)
// written only when M > -inf and den > 0 (a head with no keys keeps its
// output). The rows form recomputes row r's split count from n_kv0 + r.
#include "attention/flash_decode_kernels.h"

#include "w4act/activation_quantiser.h"

namespace k100::kernels::flash_decode {

using namespace codegen;

const Signature kCombineSig("fa_decode_comb_k", {out("out", "f32"), in("pout", "f32"), in("pmax", "f32"),
                                                 in("psum", "f32"), value("n_split", "i32"),
                                                 value("out_stride", "i32")});

const Signature kRowsCombineSig("fa_decode_rows_comb_k",
                                {out("out", "f32"), in("pout", "f32"), in("pmax", "f32"), in("psum", "f32"),
                                 value("n_kv0", "i32"), value("n_heads", "i32"), value("max_split", "i32"),
                                 value("force_split", "i32"), value("sc_stride", "i32"), value("out_stride", "i32"),
                                 value("out_row_stride", "u64")});

codeobj::CodeObject build_combine(isa::Target target, bool rows) {
  Kernel k(rows ? kRowsCombineSig : kCombineSig, target,
           {.waves_per_simd = 8, .lds_bytes = kSharedArgumentsLds, .max_workgroup = 256, .workgroup_dims = rows ? 2 : 1});
  Label exit = k.exit();
  auto s1 = [&](const char* n) { return k.sgpr(1, n); };
  auto v1 = [&](const char* n) { return k.vgpr(1, n); };
  const SharedArguments A = share_arguments(k, 0, 256, exit);
  const SGPR sH = k.workgroup_id(0), sT = s1("t"), sSlot = s1("first slot"), sOut = s1("output index");
  const VGPR vD = k.local_id(0), vD4 = v1("4 d");
  SGPR sNs;
  if (rows) {
    const SGPR sR = k.workgroup_id(1), sNkv = s1("n_kv");
    k.s_add_u32(sNkv, A("n_kv0"), sR);
    sNs = row_split_count(k, sNkv, A("max_split"), A("force_split"));
    // slots of row r: r n_heads sc_stride + h sc_stride
    k.s_mul_i32(sSlot, sR, A("n_heads"));
    k.s_add_u32(sSlot, sSlot, sH);
    k.s_mul_i32(sSlot, sSlot, A("sc_stride"));
    k.s_mul_i32(sOut, sR, A("out_row_stride")[0]);
    k.s_mul_i32(sT, sH, A("out_stride"));
    k.s_add_u32(sOut, sOut, sT);
  } else {
    sNs = A("n_split");
    k.s_mul_i32(sSlot, sH, sNs);
    k.s_mul_i32(sOut, sH, A("out_stride"));
  }
  k.s_cmp_lt_i32(sNs, 1);
  k.s_cbranch_scc1(exit);
  const SGPR sPm = offset_address(k, A("pmax"), sSlot, 2), sPs = offset_address(k, A("psum"), sSlot, 2),
             sPo = offset_address(k, A("pout"), sSlot, 10), sAt = k.sgpr(2, "at"), sM = s1("max");
  const VGPR vM = v1("max"), vA = v1("weight"), vDen = v1("den"), vNum = v1("num"), vQ = v1("quotient");
  k.v_lshlrev_b32(vD4, 2, vD);
  // M = max_s pmax[s]; eight splits' loads in flight at a time
  const SGPR sLeft = s1("splits left"), sVals = k.sgpr(8, "pmax values"), sSums = k.sgpr(8, "psum values");
  const VGPR vPos = k.vgpr(8, "pout values");
  k.v_mov_b32(vM, kNegInfBits);
  k.s_mov_b64(sAt, sPm);
  k.s_mov_b32(sLeft, sNs);
  countdown_groups(k, sLeft, {8, 1}, [&](int n) {
    for (int i = 0; i < n; ++i) k.s_load_dword(sVals[i], sAt, 4 * i);
    for (int i = 0; i < n; ++i) k.v_max_f32(vM, sVals[i], vM);
    add64(k, sAt, 4 * n);
  });
  k.v_readfirstlane_b32(sM, vM);
  k.s_cmp_eq_u32(sM, kNegInfBits);
  k.s_cbranch_scc1(exit);  // no split has a key
  // den, num in split order
  k.v_mov_b32(vDen, 0);
  k.v_mov_b32(vNum, 0);
  k.s_mov_b32(sLeft, sNs);
  countdown_groups(k, sLeft, {4, 1}, [&](int n) {  // 4: the loads' offsets stay below 4 KiB
    for (int i = 0; i < n; ++i) {
      k.s_load_dword(sVals[i], sPm, 4 * i);
      k.s_load_dword(sSums[i], sPs, 4 * i);
      k.global_load_dword(vPos[i], vD4, sPo, offset(1024 * i));
    }
    for (int i = 0; i < n; ++i) {
      exp2_scaled_difference(k, vA, sVals[i], vM, kLog2E);
      k.v_fmac_f32(vDen, sSums[i], vA);
      k.v_fmac_f32(vNum, vA, vPos[i]);
    }
    add64(k, sPm, 4 * n);
    add64(k, sPs, 4 * n);
    add64(k, sPo, 1024 * n);
  });
  k.v_cmp_lt_f32(vcc, 0, vDen);
  k.s_cbranch_vccz(exit);  // den is the same in every lane
  w4act::divide_f32(k, vQ, vNum, vDen);
  const SGPR sO = offset_address(k, A("out"), sOut, 2);
  k.global_store_dword(vD4, vQ, sO);
  return k.build();
}

}  // namespace k100::kernels::flash_decode
