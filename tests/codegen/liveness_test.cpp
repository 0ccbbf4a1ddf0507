// Liveness and allocation on the text form: writes end values (SGPR writes
// always, VGPR writes within one EXEC region and along each lane's control
// flow), copies coalesce, the budget is honoured.
#include <gtest/gtest.h>

#include <string>

#include "k100/base/error.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"

namespace {

using namespace k100::codegen;

AllocationResult allocate_text(const std::string& text, int vbudget = 32, int sbudget = 94, MFunction* out = nullptr) {
  MFunction f = parse_ir(text);
  lower_control_flow(f);
  build_cfg(f);
  AllocationOptions o;
  o.vgpr_budget = vbudget;
  o.sgpr_budget = sbudget;
  o.spill = false;
  AllocationResult r = allocate_registers(f, o);
  if (out) *out = std::move(f);
  return r;
}

// A loop whose body writes `n` short-lived VGPR and SGPR temporaries, each
// read once right after it is written, around one accumulator.
std::string loop_with_temporaries(int n, bool nested) {
  std::string t = ".kernel temporaries\n.vgpr %acc, %x\n.sgpr %count, %inner\n.entry vgpr %tid = v0\n";
  for (int i = 0; i < n; ++i) t += ".vgpr %t" + std::to_string(i) + "\n.sgpr %s" + std::to_string(i) + "\n";
  auto body = [&](const std::string& p) {
    std::string b;
    for (int i = 0; i < n; ++i) {
      const std::string v = "%t" + std::to_string(i), s = "%s" + std::to_string(i);
      b += "  s_add_u32 " + s + ", %count, " + std::to_string(i + 1) + "\n";
      b += "  v_add_u32 " + v + ", " + s + ", %x\n";
      b += "  v_add_u32 %acc, %acc, " + v + "\n";
    }
    return p.empty() ? b : b;
  };
  t += "bb0:\n  v_mov_b32 %acc, 0\n  v_mov_b32 %x, %tid\n  s_mov_b32 %count, 4\n  loop_\n";
  if (nested) t += "  s_mov_b32 %inner, 3\n  loop_\n" + body("inner") +
                   "  s_sub_u32 %inner, %inner, 1\n  s_cmp_eq_u32 %inner, 0\n  break_ scc1\n  end_loop\n";
  t += body("");
  t += "  s_sub_u32 %count, %count, 1\n  s_cmp_eq_u32 %count, 0\n  break_ scc1\n  end_loop\n";
  t += "  v_mov_b32 %x, %acc\n  s_endpgm\n";
  return t;
}

TEST(Liveness, ThirtyTwoTemporariesInALoopBodyNeedFewRegisters) {
  const AllocationResult r = allocate_text(loop_with_temporaries(32, false));
  EXPECT_LE(r.allocation.vgprs, 4);
  EXPECT_LE(r.allocation.sgprs, 8);
}

TEST(Liveness, TemporariesOfNestedLoopsDoNotStayLiveAcrossTheOuterLoop) {
  const AllocationResult r = allocate_text(loop_with_temporaries(32, true));
  EXPECT_LE(r.allocation.vgprs, 4);
  EXPECT_LE(r.allocation.sgprs, 8);
}

TEST(Liveness, AVgprWrittenUnderANarrowedExecStaysLiveForTheOtherLanes) {
  // %a is written for the lanes of vcc only, then EXEC is restored and %a read
  // for all lanes: the lanes outside vcc still need its first value, so %t
  // (written in between) cannot take its register.
  const std::string text = R"(.kernel narrowed
.vgpr %a, %t
.sgpr 2 %saved
.entry vgpr %tid = v0
bb0:
  v_mov_b32 %a, 1
  v_cmp_gt_u32 vcc, 32, %tid
  s_and_saveexec_b64 %saved, vcc
  v_mov_b32 %t, 2
  v_add_u32 %a, %t, %tid
  s_mov_b64 exec, %saved
  v_add_u32 %a, %a, %tid
  s_endpgm
)";
  MFunction f;
  const AllocationResult r = allocate_text(text, 32, 94, &f);
  EXPECT_EQ(r.allocation.vgprs, 3) << print_ir(f);  // tid, a, t all distinct
}

TEST(Liveness, AVgprWrittenInsideOneExecRegionEndsThere) {
  // The same with no EXEC write between the write and the reads: %a's first
  // value is dead at its second write, so %t may share its register.
  const std::string text = R"(.kernel one_region
.vgpr %a, %t
.entry vgpr %tid = v0
bb0:
  v_mov_b32 %a, 1
  v_add_u32 %a, %a, %tid
  v_mov_b32 %t, 2
  v_add_u32 %a, %t, %tid
  v_add_u32 %a, %a, %tid
  s_endpgm
)";
  const AllocationResult r = allocate_text(text);
  EXPECT_EQ(r.allocation.vgprs, 2);
}

TEST(Liveness, ThenBranchValuesShareRegistersWithElseBranchValues) {
  // In a divergent if/else, a then-branch temporary and an else-branch
  // temporary live on different lanes' paths: one register for both, beside
  // the one that lives through both branches.
  const std::string text = R"(.kernel branches
.vgpr %r, %p, %q
.entry vgpr %tid = v0
bb0:
  v_mov_b32 %r, 1
  v_cmp_gt_u32 vcc, 32, %tid
  if_ vcc
  v_add_u32 %p, 5, %tid
  v_mul_lo_u32 %p, %p, %tid
  v_add_u32 %r, %r, %p
  else_
  v_add_u32 %q, 7, %tid
  v_mul_lo_u32 %q, %q, %q
  v_add_u32 %r, %r, %q
  end_if
  v_add_u32 %r, %r, %tid
  s_endpgm
)";
  MFunction f;
  const AllocationResult r = allocate_text(text, 32, 94, &f);
  EXPECT_EQ(r.allocation.vgprs, 3) << print_ir(f);  // tid, r, and one for p and q
}

TEST(Liveness, CopiesBetweenRegistersThatDoNotInterfereDisappear) {
  const std::string text = R"(.kernel copies
.vgpr %a, %b
.entry vgpr %tid = v0
bb0:
  v_add_u32 %a, 3, %tid
  v_mov_b32 %b, %a
  v_add_u32 %b, %b, %tid
  s_endpgm
)";
  MFunction f;
  allocate_text(text, 32, 94, &f);
  const std::string t = print_ir(f);
  EXPECT_EQ(t.find("v_mov_b32"), std::string::npos) << t;
}

TEST(Liveness, OverBudgetWithoutSpillingNamesWhatIsLive) {
  std::string text = ".kernel crowded\n.entry vgpr %tid = v0\n";
  for (int i = 0; i < 6; ++i) text += ".vgpr %v" + std::to_string(i) + "\n";
  text += "bb0:\n";
  for (int i = 0; i < 6; ++i) text += "  v_add_u32 %v" + std::to_string(i) + ", " + std::to_string(i) + ", %tid\n";
  for (int i = 1; i < 6; ++i) text += "  v_add_u32 %v0, %v0, %v" + std::to_string(i) + "\n";
  text += "  s_endpgm\n";
  try {
    allocate_text(text, 4);
    FAIL() << "six live values fit in four VGPRs";
  } catch (const k100::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("kernel 'crowded'"), std::string::npos) << m;
    EXPECT_NE(m.find("does not fit in 4 VGPRs"), std::string::npos) << m;
    EXPECT_NE(m.find("dwords are live: "), std::string::npos) << m;
  }
}

TEST(IrText, PrintsAndParsesBack) {
  const std::string text = loop_with_temporaries(2, true);
  const MFunction f = parse_ir(text);
  const std::string printed = print_ir(f);
  EXPECT_EQ(print_ir(parse_ir(printed)), printed);
  EXPECT_NE(printed.find("v_add_u32_e32 %t0, %s0, %x"), std::string::npos) << printed;
  EXPECT_NE(printed.find("break_ scc1"), std::string::npos) << printed;
}

TEST(IrText, ErrorsNameLineAndColumn) {
  try {
    parse_ir(".kernel bad\n.vgpr %a\nbb0:\n  v_add_u32 %a, %b, %a\n");
    FAIL() << "an undeclared register was accepted";
  } catch (const k100::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("line 4"), std::string::npos) << m;
    EXPECT_NE(m.find("'%b' is not declared"), std::string::npos) << m;
  }
  try {
    parse_ir(".kernel bad\n.vgpr %a\nbb0:\n  v_add_f32 %a, %a\n");
    FAIL() << "a missing operand was accepted";
  } catch (const k100::Error& e) {
    EXPECT_NE(std::string(e.what()).find("line 4"), std::string::npos) << e.what();
  }
}

}  // namespace
