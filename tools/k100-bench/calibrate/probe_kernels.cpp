#include "probe_kernels.h"

#include <functional>

#include "k100/asm/builder.h"

namespace k100::bench::calibrate {

using namespace as;

namespace {

const SGPR kKernarg = s(0, 2), kGroup = s(2);

void interface(KernelBuilder& b, uint32_t kernarg_bytes) {
  b.setting(".amdhsa_user_sgpr_kernarg_segment_ptr", 1)
      .setting(".amdhsa_system_sgpr_workgroup_id_x", 1)
      .setting(".amdhsa_kernarg_size", kernarg_bytes);
}

// v[dst] = workgroup * size + local id (size in an SGPR); scratch: one SGPR.
void global_id(KernelBuilder& b, VGPR dst, SGPR size, SGPR scratch) {
  b.s_mul_i32(scratch, kGroup, size);
  b.v_add_u32(dst, scratch, v(0));
}

// The loop counter `n` counts down from its value; zero trips skip to `done`.
void loop_head(KernelBuilder& b, SGPR counter, SGPR n, Label done) {
  b.s_mov_b32(counter, n);
  b.s_cmp_eq_u32(counter, 0);
  b.s_cbranch_scc1(done);
}
void loop_tail(KernelBuilder& b, SGPR counter, Label loop) {
  b.s_sub_u32(counter, counter, 1);
  b.s_cmp_lg_u32(counter, 0);
  b.s_cbranch_scc1(loop);
}

}  // namespace

const char* alu_op_name(AluOp op) {
  switch (op) {
    case AluOp::Fma: return "FP32 FMA";
    case AluOp::Dot4: return "INT8 dot4";
    case AluOp::Dot8: return "INT4 dot8";
  }
  return "?";
}

double alu_probe_expected(AluOp op, uint32_t iterations) {
  double per = op == AluOp::Fma ? 0.5 : op == AluOp::Dot4 ? 4 : 8;
  return 16 * per * iterations;
}

codeobj::CodeObject alu_probe(AluOp op) {
  const char* name = op == AluOp::Fma ? "probe_fma" : op == AluOp::Dot4 ? "probe_dot4" : "probe_dot8";
  KernelBuilder b(name);
  const SGPR sOut = s(4, 2), sIters = s(6), sSize = s(7), sCount = s(8), sT = s(9);
  const VGPR vA = v(2), vB = v(3), vId = v(1);
  auto acc = [](int c) { return v(8 + c); };
  Label loop = b.label("loop"), done = b.label("done");
  b.s_load_dwordx4(s(4, 4), kKernarg, 0x0);
  b.s_waitcnt(waitcnt(63, 7, 0));
  for (int c = 0; c < 16; ++c) b.v_mov_b32(acc(c), 0);
  // Operands whose product (or dot product) adds 0.5, 4 or 8 per instruction.
  if (op == AluOp::Fma) {
    b.v_mov_b32(vA, 0.5f);
    b.v_mov_b32(vB, 1.0f);
  } else {
    uint32_t ones = op == AluOp::Dot4 ? 0x01010101u : 0x11111111u;
    b.v_mov_b32(vA, ones);
    b.v_mov_b32(vB, ones);
  }
  loop_head(b, sCount, sIters, done);
  b.bind(loop);
  for (int c = 0; c < 16; ++c) {
    if (op == AluOp::Fma) b.v_fmac_f32(acc(c), vA, vB);
    else if (op == AluOp::Dot4) b.v_dot4_i32_i8(acc(c), vA, vB, acc(c));
    else b.v_dot8_i32_i4(acc(c), vA, vB, acc(c));
  }
  loop_tail(b, sCount, loop);
  b.bind(done);
  for (int c = 1; c < 16; ++c) {
    if (op == AluOp::Fma) b.v_add_f32(acc(0), acc(0), acc(c));
    else b.v_add_u32(acc(0), acc(0), acc(c));
  }
  global_id(b, vId, sSize, sT);
  b.v_lshlrev_b32(vId, 2, vId);
  b.global_store_dword(vId, acc(0), sOut);
  b.s_endpgm();
  interface(b, 16);
  b.arg("out", "global_buffer", op == AluOp::Fma ? "f32*" : "i32*", "write_only");
  b.arg("iterations", "by_value", "u32");
  b.arg("workgroup_size", "by_value", "u32");
  return b.code_object();
}

namespace {

// The two-deep software-pipelined read loop (ReadProbe::in_flight = 2): data
// registers alternate between two sets, so the loads of the next trip are in
// flight while the wave waits for the current one. Trips go in pairs.
void pipelined_read_loop(KernelBuilder& b, int U, const VGPR& vOff, SGPR sStep, SGPR sCount, SGPR sIters,
                         const std::function<SGPR(int)>& base, const std::function<VGPR(int)>& acc,
                         const std::function<VGPR(int, int)>& data, Label loop, Label last, Label done) {
  auto issue = [&](int set) {
    for (int u = 0; u < U; ++u) {
      b.global_load_dwordx4(data(u, set), vOff, base(u));
      b.s_add_u32(base(u)[0], base(u)[0], sStep);
      b.s_addc_u32(base(u)[1], base(u)[1], 0);
    }
  };
  auto consume = [&](int set) {
    for (int u = 0; u < U; ++u) b.v_add_u32(acc(u), acc(u), data(u, set)[0]);
  };
  b.s_lshr_b32(sCount, sIters, 1);  // trip pairs
  b.s_cmp_eq_u32(sCount, 0);
  b.s_cbranch_scc1(done);
  issue(0);
  b.bind(loop);
  issue(1);
  b.s_waitcnt(waitcnt(U));  // set 0 is back, set 1 still in flight
  consume(0);
  b.s_sub_u32(sCount, sCount, 1);
  b.s_cmp_eq_u32(sCount, 0);
  b.s_cbranch_scc1(last);
  issue(0);
  b.s_waitcnt(waitcnt(U));
  consume(1);
  b.s_branch(loop);
  b.bind(last);
  b.s_waitcnt(waitcnt(0));
  consume(1);
}

}  // namespace

codeobj::CodeObject read_probe(const ReadProbe& p) {
  KernelBuilder b(p.wait_each_load ? "probe_read_drain" : p.in_flight > 1 ? "probe_read_pipelined" : "probe_read");
  const int U = p.streams;
  const SGPR sSrc = s(4, 2), sOut = s(6, 2), sStride = s(8, 2), sIters = s(10), sSize = s(11), sStep = s(12),
             sCount = s(13);
  auto base = [](int u) { return s(16 + 2 * u, 2); };
  auto acc = [](int u) { return v(4 + u); };
  auto data = [](int u) { return v(8 + 4 * u, 4); };
  const VGPR vId = v(1), vOff = v(2), vOut = v(3);
  Label loop = b.label("loop"), done = b.label("done");
  b.s_load_dwordx8(s(4, 8), kKernarg, 0x0);
  b.s_load_dword(sStep, kKernarg, 0x20);
  b.s_waitcnt(waitcnt(63, 7, 0));
  global_id(b, vId, sSize, sCount);
  b.v_lshlrev_b32(vOff, 4, vId);
  b.s_mov_b64(base(0), sSrc);
  for (int u = 1; u < U; ++u) {
    b.s_add_u32(base(u)[0], base(u - 1)[0], sStride[0]);
    b.s_addc_u32(base(u)[1], base(u - 1)[1], sStride[1]);
  }
  for (int u = 0; u < U; ++u) b.v_mov_b32(acc(u), 0);
  if (p.in_flight > 1) {
    Label last = b.label("last");
    pipelined_read_loop(b, U, vOff, sStep, sCount, sIters, base, acc,
                        [&](int u, int set) { return v(8 + 4 * u + 16 * set, 4); }, loop, last, done);
  } else {
    loop_head(b, sCount, sIters, done);
    b.bind(loop);
    for (int u = 0; u < U; ++u) {
      b.global_load_dwordx4(data(u), vOff, base(u));
      if (p.wait_each_load) b.s_waitcnt(waitcnt(0));
    }
    if (!p.wait_each_load) b.s_waitcnt(waitcnt(0));
    for (int u = 0; u < U; ++u) b.v_add_u32(acc(u), acc(u), data(u)[0]);
    for (int u = 0; u < U; ++u) {
      b.s_add_u32(base(u)[0], base(u)[0], sStep);
      b.s_addc_u32(base(u)[1], base(u)[1], 0);
    }
    loop_tail(b, sCount, loop);
  }
  b.bind(done);
  for (int u = 1; u < U; ++u) b.v_add_u32(acc(0), acc(0), acc(u));
  b.v_lshlrev_b32(vOut, 2, vId);
  b.global_store_dword(vOut, acc(0), sOut);
  b.s_endpgm();
  interface(b, 40);
  if (p.vgprs > 0) b.setting(".amdhsa_next_free_vgpr", p.vgprs);
  b.arg("src", "global_buffer", "const u32*", "read_only");
  b.arg("out", "global_buffer", "u32*", "write_only");
  b.arg("stream_stride", "by_value", "u64");
  b.arg("iterations", "by_value", "u32");
  b.arg("workgroup_size", "by_value", "u32");
  b.arg("step", "by_value", "u32");
  return b.code_object();
}

codeobj::CodeObject fill_probe() {
  KernelBuilder b("probe_fill");
  const SGPR sDst = s(4, 2), sValue = s(6), sIters = s(7), sSize = s(8), sStep = s(9), sCount = s(10), sPtr = s(12, 2);
  const VGPR vId = v(1), vOff = v(2), vData = v(8, 4);
  Label loop = b.label("loop"), done = b.label("done");
  b.s_load_dwordx4(s(4, 4), kKernarg, 0x0);
  b.s_load_dwordx2(s(8, 2), kKernarg, 0x10);
  b.s_waitcnt(waitcnt(63, 7, 0));
  global_id(b, vId, sSize, sCount);
  b.v_lshlrev_b32(vOff, 4, vId);
  for (int c = 0; c < 4; ++c) b.v_mov_b32(vData[c], sValue);
  b.s_mov_b64(sPtr, sDst);
  loop_head(b, sCount, sIters, done);
  b.bind(loop);
  b.global_store_dwordx4(vOff, vData, sPtr);
  b.s_add_u32(sPtr[0], sPtr[0], sStep);
  b.s_addc_u32(sPtr[1], sPtr[1], 0);
  loop_tail(b, sCount, loop);
  b.bind(done);
  b.s_endpgm();
  interface(b, 24);
  b.arg("dst", "global_buffer", "f32*", "write_only");
  b.arg("value", "by_value", "f32");
  b.arg("iterations", "by_value", "u32");
  b.arg("workgroup_size", "by_value", "u32");
  b.arg("step", "by_value", "u32");
  return b.code_object();
}

codeobj::CodeObject gemv_probe() {
  KernelBuilder b("probe_gemv");
  const SGPR sW = s(4, 2), sX = s(6, 2), sY = s(8, 2), sWaves = s(10), sWave = s(12), sT = s(13), sRow0 = s(14),
             sOff = s(15), sBlock = s(16, 2), sSave = s(18, 2);
  const VGPR vLane = v(1), vQ = v(2), vR = v(3), vWoff = v(4), vXoff = v(5), vYoff = v(6);
  auto wv = [](int i) { return v(8 + 4 * i, 4); };
  auto xv = [](int i) { return v(24 + 4 * i, 4); };
  const VGPR vAcc = v(40, 4);
  b.s_load_dwordx8(s(4, 8), kKernarg, 0x0);
  b.s_waitcnt(waitcnt(63, 7, 0));
  // Global wave index -> first row of the wave's 8-row block.
  b.v_readfirstlane_b32(sWave, v(0));
  b.s_lshr_b32(sWave, sWave, 6);
  b.s_mul_i32(sT, kGroup, sWaves);
  b.s_add_u32(sT, sT, sWave);
  b.s_lshl_b32(sRow0, sT, 3);
  b.s_lshl_b32(sOff, sRow0, 9);  // 128 columns x 4 bytes per row
  b.s_add_u32(sBlock[0], sW[0], sOff);
  b.s_addc_u32(sBlock[1], sW[1], 0);
  b.v_and_b32(vLane, 63, v(0));
  b.v_lshrrev_b32(vQ, 3, vLane);
  b.v_and_b32(vR, 7, vLane);
  b.v_lshlrev_b32(vWoff, 9, vQ);
  b.v_lshlrev_b32(vXoff, 4, vR);
  b.v_add_u32(vWoff, vWoff, vXoff);
  for (int i = 0; i < 4; ++i) {
    b.global_load_dwordx4(wv(i), vWoff, sBlock, offset(128 * i));
    b.global_load_dwordx4(xv(i), vXoff, sX, offset(128 * i));
  }
  b.s_waitcnt(waitcnt(0));
  for (int c = 0; c < 4; ++c) b.v_mul_f32(vAcc[c], wv(0)[c], xv(0)[c]);
  for (int i = 1; i < 4; ++i)
    for (int c = 0; c < 4; ++c) b.v_fmac_f32(vAcc[c], wv(i)[c], xv(i)[c]);
  b.v_add_f32(vAcc[0], vAcc[0], vAcc[1]);
  b.v_add_f32(vAcc[2], vAcc[2], vAcc[3]);
  b.v_add_f32(vAcc[0], vAcc[0], vAcc[2]);
  // Sum over the 8 lanes of a row: swap neighbours, swap pairs, mirror the
  // half-row (a DPP source needs 2 wait states after its write).
  b.s_nop(1);
  b.v_add_f32(vAcc[0], vAcc[0], vAcc[0], quad_perm(1, 0, 3, 2));
  b.s_nop(1);
  b.v_add_f32(vAcc[0], vAcc[0], vAcc[0], quad_perm(2, 3, 0, 1));
  b.s_nop(1);
  b.v_add_f32(vAcc[0], vAcc[0], vAcc[0], row_half_mirror());
  b.v_add_u32(vYoff, sRow0, vQ);
  b.v_lshlrev_b32(vYoff, 2, vYoff);
  b.v_cmp_eq_u32(vcc, 0, vR);
  b.s_and_saveexec_b64(sSave, vcc);
  b.global_store_dword(vYoff, vAcc[0], sY);
  b.s_endpgm();
  interface(b, 32);
  b.arg("w", "global_buffer", "const f32*", "read_only");
  b.arg("x", "global_buffer", "const f32*", "read_only");
  b.arg("y", "global_buffer", "f32*", "write_only");
  b.arg("waves_per_group", "by_value", "u32");
  return b.code_object();
}

codeobj::CodeObject empty_probe() {
  KernelBuilder b("probe_empty");
  b.s_endpgm();
  interface(b, 8);
  return b.code_object();
}

}  // namespace k100::bench::calibrate
