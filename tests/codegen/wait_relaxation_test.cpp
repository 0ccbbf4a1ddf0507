// Relaxing the waits an author wrote, on the text form (registers already
// physical, as insert_waits sees them): a wait stricter than what the
// instructions up to the next wait read is weakened to what they need; one
// before a barrier, s_endpgm, a store, or a memory read while a store may be
// in flight stays as written; without relaxing every hand wait stays.
#include <gtest/gtest.h>

#include <string>

#include "k100/codegen/address.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/kernel.h"
#include "k100/codegen/passes.h"

namespace {

using namespace k100::codegen;

const char* kFourLoads =
    "  global_load_dword v1, v0, s[4:5]\n"
    "  global_load_dword v2, v0, s[4:5] offset:4\n"
    "  global_load_dword v3, v0, s[4:5] offset:8\n"
    "  global_load_dword v4, v0, s[4:5] offset:12\n";

// The waits (one per line, in order) after insert_waits.
std::vector<std::string> waits_of(const std::string& body, bool relax) {
  MFunction f = parse_ir(".kernel relax_k\nbb0:\n" + body);
  build_cfg(f);
  insert_waits(f, relax);
  const std::string t = print_ir(f);
  std::vector<std::string> out;
  for (size_t at = t.find("s_waitcnt"); at != std::string::npos; at = t.find("s_waitcnt", at + 1))
    out.push_back(t.substr(at, t.find('\n', at) - at));
  return out;
}

using Waits = std::vector<std::string>;

TEST(WaitRelaxation, AWaitForFourLoadsOfWhichOnlyTheFirstIsReadWaitsForThatOne) {
  const std::string body = std::string(kFourLoads) +
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_add_f32 v5, v1, v1\n"
                           "  s_waitcnt vmcnt(0)\n"  // kept whole: s_endpgm follows
                           "  v_add_f32 v5, v4, v5\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(3)", "s_waitcnt vmcnt(0)"}));
  EXPECT_EQ(waits_of(body, false), (Waits{"s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, TheWaitCoversEveryReadUpToTheNextWait) {
  const std::string body = std::string(kFourLoads) +
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_add_f32 v5, v1, v2\n"
                           "  v_add_f32 v5, v3, v5\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_add_f32 v5, v4, v5\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(1)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, EachCounterIsCoveredUpToTheNextWaitOnIt) {
  // the lgkmcnt wait between does not take the vector loads over
  const std::string body = std::string(kFourLoads) +
                           "  ds_read_b32 v6, v0\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_add_f32 v5, v1, v1\n"
                           "  s_waitcnt lgkmcnt(0)\n"
                           "  v_add_f32 v5, v6, v2\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(2)", "s_waitcnt lgkmcnt(0)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, LdsReadsReturnInOrderToo) {
  const std::string body =
      "  ds_read_b32 v1, v0\n"
      "  ds_read_b32 v2, v0 offset:4\n"
      "  s_waitcnt lgkmcnt(0)\n"
      "  v_add_f32 v5, v1, v1\n"
      "  s_waitcnt lgkmcnt(0)\n"
      "  v_add_f32 v5, v2, v5\n"
      "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt lgkmcnt(1)", "s_waitcnt lgkmcnt(0)"}));
}

TEST(WaitRelaxation, AWaitNothingUpToTheNextNeedsGoes) {
  const std::string body = std::string(kFourLoads) +
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_mov_b32 v6, 0\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_add_f32 v5, v2, v6\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, AWaitWhoseStretchLeavesTheBlockStays) {
  // what the next blocks rely on is not seen from here
  const std::string body = std::string(kFourLoads) +
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_mov_b32 v6, 0\n"
                           "  s_cbranch_scc1 bb1\n"
                           "bb1:\n"
                           "  v_add_f32 v5, v2, v6\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, ACountKeptBeforeAStoreStillCompletesWhatTheAuthorsWaitsDid) {
  // with the first wait as written, only the third load is in flight at the
  // second; relaxed, the second load is too: the second wait becomes vmcnt(1)
  const std::string body =
      "  global_load_dword v1, v0, s[4:5]\n"
      "  global_load_dword v2, v0, s[4:5] offset:4\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_f32 v5, v1, v1\n"
      "  global_load_dword v3, v0, s[4:5] offset:8\n"
      "  s_waitcnt vmcnt(2)\n"
      "  global_store_dword v0, v5, s[4:5] offset:64\n"
      "  s_waitcnt vmcnt(0)\n"
      "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(1)", "s_waitcnt vmcnt(1)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, AWaitBeforeABarrierStays) {
  const std::string body = std::string(kFourLoads) +
                           "  ds_write_b32 v0, v0\n"
                           "  s_waitcnt vmcnt(0) lgkmcnt(0)\n"
                           "  s_barrier\n"
                           "  v_add_f32 v5, v1, v1\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(0) lgkmcnt(0)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, AStoreAfterTheWaitKeepsItsMemoryCounts) {
  // the store may alias what the loads read: they complete first
  const std::string body = std::string(kFourLoads) +
                           "  s_waitcnt vmcnt(0)\n"
                           "  v_add_f32 v5, v1, v1\n"
                           "  global_store_dword v0, v5, s[4:5] offset:64\n"
                           "  s_waitcnt vmcnt(0)\n"
                           "  s_endpgm\n";
  EXPECT_EQ(waits_of(body, true), (Waits{"s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, ALoadAfterTheWaitWhileAStoreMayBeInFlightKeepsItsMemoryCounts) {
  // the second load may read what the store writes
  const std::string body =
      "  global_store_dword v0, v0, s[4:5]\n"
      "  global_load_dword v1, v0, s[4:5] offset:4\n"
      "  s_waitcnt vmcnt(0)\n"
      "  global_load_dword v2, v0, s[4:5]\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_f32 v5, v1, v2\n"
      "  s_waitcnt vmcnt(0)\n"
      "  s_endpgm\n";
  const Waits w = waits_of(body, true);
  ASSERT_EQ(w.size(), 3u);
  EXPECT_EQ(w[0], "s_waitcnt vmcnt(0)");
  // no store in flight at the second: it waits for what the add reads
  EXPECT_EQ(w[1], "s_waitcnt vmcnt(0)");
  // without the store the first wait would not be needed at all
  const std::string no_store =
      "  global_load_dword v1, v0, s[4:5] offset:4\n"
      "  s_waitcnt vmcnt(0)\n"
      "  global_load_dword v2, v0, s[4:5]\n"
      "  s_waitcnt vmcnt(0)\n"
      "  v_add_f32 v5, v1, v2\n"
      "  s_waitcnt vmcnt(0)\n"
      "  s_endpgm\n";
  EXPECT_EQ(waits_of(no_store, true), (Waits{"s_waitcnt vmcnt(0)", "s_waitcnt vmcnt(0)"}));
}

TEST(WaitRelaxation, AKernelMayKeepEveryHandWaitAsWritten) {
  const Signature sig("relax_option_k", {in("x", "f32"), out("y", "f32")});
  std::string text[2];
  for (int keep = 0; keep < 2; ++keep) {
    Kernel k(sig, k100::isa::Target::gfx926, {.relax_waits = keep == 0});
    const VGPR off = k.vgpr(1, "off"), a = k.vgpr(4, "a"), s = k.vgpr(1, "s");
    k.v_mov_b32(off, 0);
    for (int i = 0; i < 4; ++i) k.global_load_dword(a[i], off, k.arg("x"), k100::as::offset(4 * i));
    k.s_waitcnt(vmcnt(0));
    k.v_add_f32(s, a[0], a[0]);
    k.s_waitcnt(vmcnt(0));
    k.v_add_f32(s, s, a[3]);
    k.global_store_dword(off, s, k.arg("y"));
    k.build();
    text[keep] = k.assembly();
  }
  EXPECT_NE(text[0].find("s_waitcnt vmcnt(3)\n\tv_add_f32"), std::string::npos) << text[0];
  EXPECT_EQ(text[1].find("vmcnt(3)"), std::string::npos) << text[1];
  EXPECT_NE(text[1].find("offset:12\n\ts_waitcnt vmcnt(0)\n\tv_add_f32"), std::string::npos) << text[1];
}

}  // namespace
