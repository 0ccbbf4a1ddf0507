// Structured control flow on the emulator, with its checks on and the waves
// of a workgroup run in a random interleaving: nested divergent if/else inside
// a divergent loop with break_ and continue_, each lane's results against a
// host model of the same program; uniform forms; and the errors the layer
// gives for a whole-wave building block inside a divergent region and for a
// value in SCC overwritten by the lowering.
#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/codegen/codegen.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"
#include "test_kernels.h"

namespace {

using namespace k100::codegen;

using test_kernels::launched_here;
using namespace k100::kernels;
using k100::as::off;

const Signature kSig("divergent_flow_k", {out("y", "u32"), in("limit", "u32"), value("n", "u32")});

// Per lane (i = global id < n):
//   acc = 0, k = i
//   loop:
//     k += 7
//     if k % 3 == 0:           acc += k
//     else:
//       if k & 1:              acc += 2k; if acc > 500: break
//       else:                  acc ^= 5; if k & 4: continue
//     acc += 1
//     if k >= limit[i]: break
//   y[2i] = acc, y[2i+1] = k
void host_model(uint32_t i, uint32_t limit, uint32_t* acc_out, uint32_t* k_out) {
  uint32_t acc = 0, k = i;
  for (;;) {
    k += 7;
    if (k % 3 == 0) {
      acc += k;
    } else if (k & 1) {
      acc += 2 * k;
      if (acc > 500) break;
    } else {
      acc ^= 5;
      if (k & 4) continue;
    }
    acc += 1;
    if (k >= limit) break;
  }
  *acc_out = acc;
  *k_out = k;
}

k100::codeobj::CodeObject build_divergent(k100::isa::Target target) {
  Kernel k(kSig, target);
  const VGPR i = k.vgpr(1, "i"), acc = k.vgpr(1, "acc"), kk = k.vgpr(1, "k"), t = k.vgpr(1, "t"),
             limit = k.vgpr(1, "limit"), addr = k.vgpr(1, "address");
  const SGPR first = k.sgpr(1, "first"), magic = k.sgpr(1, "magic");
  k.s_lshl_b32(first, k.workgroup_id(), 6);
  k.v_add_u32(i, first, k.local_id());
  k.v_cmp_gt_u32(vcc, k.arg("n"), i);
  k.if_(vcc);
  {
    k.v_lshlrev_b32(addr, 2, i);
    k.global_load_dword(limit, addr, k.arg("limit"));
    k.v_mov_b32(acc, 0);
    k.v_mov_b32(kk, i);
    k.loop_();
    {
      k.v_add_u32(kk, 7, kk);
      // k % 3 == 0  <=>  k * 0xAAAAAAAB <= 0x55555555 (mod 2^32)
      k.s_mov_b32(magic, 0xAAAAAAABu);
      k.v_mul_lo_u32(t, kk, magic);
      k.v_cmp_ge_u32(vcc, 0x55555555u, t);
      k.if_(vcc);
      k.v_add_u32(acc, acc, kk);
      k.else_();
      {
        k.v_and_b32(t, 1, kk);
        k.v_cmp_ne_u32(vcc, 0, t);
        k.if_(vcc);
        k.v_lshlrev_b32(t, 1, kk);
        k.v_add_u32(acc, acc, t);
        k.v_cmp_lt_u32(vcc, 500, acc);
        k.break_(vcc);
        k.else_();
        k.v_xor_b32(acc, 5, acc);
        k.v_and_b32(t, 4, kk);
        k.v_cmp_ne_u32(vcc, 0, t);
        k.continue_(vcc);
        k.end_if();
      }
      k.end_if();
      k.v_add_u32(acc, 1, acc);
      k.v_cmp_ge_u32(vcc, kk, limit);
      k.break_(vcc);
    }
    k.end_loop();
    k.v_lshlrev_b32(addr, 3, i);
    k.global_store_dword(addr, acc, k.arg("y"));
    k.global_store_dword(addr, kk, k.arg("y"), k100::as::offset(4));
  }
  k.end_if();
  return k.build();
}

TEST(ControlFlow, NestedDivergentBranchesInADivergentLoopMatchEachLane) {
  Registry r;
  KernelDef d = launched_here(kSig, build_divergent);
  r.add(std::move(d));
  EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  ASSERT_TRUE(dev.broken().empty()) << dev.broken()[0].second;
  for (uint64_t seed : {1u, 2u, 3u}) {
    dev.options().schedule = {k100::emu::Schedule::Random, seed};
    dev.options().checks = {};  // every check on
    const uint32_t n = 300;     // five workgroups of 64, the last one partly outside n
    std::vector<uint32_t> limit(n);
    for (uint32_t j = 0; j < n; ++j) limit[j] = (j * 37 + seed * 11) % 160;
    DeviceBuffer<uint32_t> dl(dev, limit), dy(dev, 2 * 320);
    dev.launch("divergent_flow_k", {5}, {64}, kSig.pack({dy.addr(), dl.addr(), int64_t(n)}));
    const auto y = dy.download();
    for (uint32_t j = 0; j < n; ++j) {
      uint32_t acc, kk;
      host_model(j, limit[j], &acc, &kk);
      ASSERT_EQ(y[2 * j], acc) << "lane " << j << " seed " << seed;
      ASSERT_EQ(y[2 * j + 1], kk) << "lane " << j << " seed " << seed;
    }
  }
}

const Signature kUniformSig("uniform_flow_k", {out("y", "u32"), value("n", "u32")});

// Uniform loop and branches on SCC: y[lane] = sum over j < n of (j odd ? j : 2j).
k100::codeobj::CodeObject build_uniform(k100::isa::Target target) {
  Kernel k(kUniformSig, target);
  const SGPR j = k.sgpr(1, "j"), sum = k.sgpr(1, "sum"), t = k.sgpr(1, "t");
  const VGPR v = k.vgpr(1, "v"), addr = k.vgpr(1, "address");
  k.s_mov_b32(j, 0);
  k.s_mov_b32(sum, 0);
  k.loop_();
  k.s_cmp_ge_u32(j, k.arg("n"));
  k.break_(Cond::Scc1);
  k.s_and_b32(t, j, 1);
  k.s_cmp_eq_u32(t, 1);
  k.if_(Cond::Scc1);
  k.s_add_u32(sum, sum, j);
  k.else_();
  k.s_lshl_b32(t, j, 1);
  k.s_add_u32(sum, sum, t);
  k.end_if();
  k.s_add_u32(j, j, 1);
  k.end_loop();
  k.v_mov_b32(v, sum);
  k.v_lshlrev_b32(addr, 2, k.local_id());
  k.global_store_dword(addr, v, k.arg("y"));
  return k.build();
}

TEST(ControlFlow, UniformLoopsAndBranchesOnScc) {
  Registry r;
  r.add(launched_here(kUniformSig, build_uniform));
  EmuTestDevice dev(r, std::string(K100_SOURCE_DIR) + "/kernels");
  ASSERT_TRUE(dev.broken().empty()) << dev.broken()[0].second;
  for (uint32_t n : {0u, 1u, 7u, 20u}) {
    DeviceBuffer<uint32_t> dy(dev, 64);
    dev.launch("uniform_flow_k", {1}, {64}, kUniformSig.pack({dy.addr(), int64_t(n)}));
    uint32_t want = 0;
    for (uint32_t j = 0; j < n; ++j) want += (j & 1) ? j : 2 * j;
    const auto y = dy.download();
    for (int lane = 0; lane < 64; ++lane) ASSERT_EQ(y[size_t(lane)], want) << "n " << n;
  }
}

std::string build_error(const std::function<void(Kernel&)>& body) {
  Kernel k(kSig, k100::isa::Target::gfx926);
  body(k);
  try {
    k.build();
  } catch (const k100::Error& e) {
    return e.what();
  }
  return "";
}

TEST(ControlFlow, AWholeWaveBlockInsideADivergentRegionIsANamedError) {
  const std::string e = build_error([](Kernel& k) {
    const VGPR v = k.vgpr(1, "v");
    k.v_mov_b32(v, 1);
    k.v_cmp_gt_u32(vcc, 10, k.local_id());
    k.if_(vcc);
    lane_reduce(k, {{ReduceOp::Add, v}});
    k.end_if();
  });
  EXPECT_NE(e.find("divergent_flow_k"), std::string::npos) << e;
  EXPECT_NE(e.find("lane_reduce needs the whole wave"), std::string::npos) << e;
}

TEST(ControlFlow, AWholeWaveBlockAfterAnAuthorsExecWriteIsANamedError) {
  const std::string e = build_error([](Kernel& k) {
    const VGPR v = k.vgpr(1, "v");
    const SGPR saved = k.sgpr(2, "saved");
    k.v_mov_b32(v, 1);
    k.v_cmp_gt_u32(vcc, 10, k.local_id());
    k.s_and_saveexec_b64(saved, vcc);
    lane_reduce(k, {{ReduceOp::Add, v}});
    k.s_mov_b64(exec, saved);
  });
  EXPECT_NE(e.find("lane_reduce needs the whole wave, but EXEC may be narrowed here by"), std::string::npos) << e;
  EXPECT_NE(e.find("s_and_saveexec_b64"), std::string::npos) << e;
}

TEST(ControlFlow, SccKeptAcrossADivergentRegionIsANamedError) {
  const std::string e = build_error([](Kernel& k) {
    const VGPR v = k.vgpr(1, "v");
    k.v_mov_b32(v, 1);
    k.s_cmp_eq_u32(k.arg("n"), 3);  // SCC: the kernel's value
    k.v_cmp_gt_u32(vcc, 10, k.local_id());
    k.if_(vcc);
    k.v_add_u32(v, 1, v);
    k.end_if();
    k.s_cbranch_scc1(k.exit());  // reads the kernel's SCC, which the if_ overwrote
    k.global_store_dword(v, v, k.arg("y"));
  });
  EXPECT_NE(e.find("SCC written by the kernel"), std::string::npos) << e;
  EXPECT_NE(e.find("control flow lowering overwrites it"), std::string::npos) << e;
}

TEST(ControlFlow, UnclosedRegionsAreNamedErrors) {
  EXPECT_NE(build_error([](Kernel& k) { k.loop_(); }).find("loop_ is never closed"), std::string::npos);
  EXPECT_THROW(
      {
        Kernel k(kSig, k100::isa::Target::gfx926);
        k.else_();
      },
      k100::Error);
  EXPECT_THROW(
      {
        Kernel k(kSig, k100::isa::Target::gfx926);
        k.break_(Cond::Scc1);
      },
      k100::Error);
}

TEST(ControlFlow, AKernelWithoutAnEndGetsOne) {
  Kernel k(kUniformSig, k100::isa::Target::gfx926);
  const VGPR v = k.vgpr(1, "v");
  k.v_mov_b32(v, 0);
  k.global_store_dword(v, v, k.arg("y"));
  k.build();
  const std::string t = k.assembly();
  EXPECT_NE(t.rfind("s_endpgm"), std::string::npos) << t;
}

}  // namespace
