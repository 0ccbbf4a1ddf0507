// The emulator checks through k100-run: for every case of
// checks/check_rules.txt the kernel that breaks a rule exits 1 with a report
// naming the rule, its corrected twin exits 0; every hazard rule of the table
// and every wait rule has such a case; --no-check and K100_EMU_CHECK=0 turn
// the checks off;
// --schedule=random:SEED makes an order-dependent kernel give different
// results for different seeds.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "k100/isa/hazards.h"
#include "tools.h"

namespace k100::emu::test {

namespace {

namespace fs = std::filesystem;

const std::string kDir = std::string(K100_SOURCE_DIR) + "/tests/emu/checks";

struct Case {
  std::string name, rule;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  std::ifstream f(kDir + "/check_rules.txt");
  std::string line;
  while (std::getline(f, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream in(line);
    Case c;
    in >> c.name >> c.rule;
    if (!c.name.empty()) out.push_back(c);
  }
  return out;
}

class CheckRules : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    work_ = (fs::temp_directory_path() / ("k100_check_rules_" + std::to_string(::getpid()))).string();
    fs::create_directories(work_);
    std::string out;
    int rc = k100::test::run_shell(std::string(K100_TOOLS_BIN) + "/k100-as -o " + work_ + "/rules.hsaco " + kDir +
                                       "/check_rules.s",
                                   &out);
    ASSERT_EQ(rc, 0) << out;
  }
  static void TearDownTestSuite() { fs::remove_all(work_); }

  // k100-run on one kernel of the rules package: one workgroup of 128.
  static int run(const std::string& kernel, const std::string& extra, std::string* out,
                 const std::string& env = "") {
    std::string o = work_ + "/" + kernel + ".out";
    return k100::test::run_shell(env + " " + std::string(K100_TOOLS_BIN) + "/k100-run " + work_ + "/rules.hsaco " +
                                     kernel + " --grid 1 --wg 128 " + extra + " out:4096:" + o,
                                 out);
  }
  static std::string work_;
};
std::string CheckRules::work_;

TEST_F(CheckRules, EveryBrokenKernelIsReportedAndItsTwinPasses) {
  std::vector<Case> cs = cases();
  ASSERT_GE(cs.size(), 20u);
  for (const Case& c : cs) {
    std::string out;
    if (c.rule != "-") {
      EXPECT_EQ(run(c.name + "_bad", "", &out), 1) << c.name << ":\n" << out;
      EXPECT_NE(out.find("rule:        " + c.rule), std::string::npos) << c.name << ":\n" << out;
      EXPECT_NE(out.find("fix:"), std::string::npos) << c.name << ":\n" << out;
      EXPECT_NE(out.find("other:"), std::string::npos) << c.name << ":\n" << out;
      // Without the checks the same kernel "passes": that is what they are for.
      std::string quiet;
      EXPECT_EQ(run(c.name + "_bad", "--no-check", &quiet), 0) << c.name << ":\n" << quiet;
    }
    out.clear();
    EXPECT_EQ(run(c.name + "_good", "", &out), 0) << c.name << ":\n" << out;
  }
}

TEST_F(CheckRules, EveryHazardRuleHasACase) {
  std::set<std::string> covered;
  for (const Case& c : cases()) covered.insert(c.rule);
  for (const isa::HazardRule& r : isa::hazard_rules())
    EXPECT_TRUE(covered.count(std::string("hazard.") + r.id)) << "no check_rules case for hazard rule " << r.id;
  for (const char* w : {"waitcnt.read_in_flight", "waitcnt.overwrite_in_flight", "waitcnt.data_in_flight",
                        "waitcnt.lds_at_barrier",
                        "lds_race.write_read", "lds_race.read_write", "lds_race.write_write"})
    EXPECT_TRUE(covered.count(w)) << w;
}

TEST(CheckRulesDoc, EveryRuleIsDocumented) {
  std::ifstream f(std::string(K100_SOURCE_DIR) + "/docs/EMULATOR_CHECKS.md");
  std::string doc((std::istreambuf_iterator<char>(f)), {});
  for (const isa::HazardRule& r : isa::hazard_rules())
    EXPECT_NE(doc.find(std::string("`") + r.id + "`"), std::string::npos) << r.id << " missing from EMULATOR_CHECKS.md";
  for (const Case& c : cases()) {
    if (c.rule == "-" || c.rule.rfind("hazard.", 0) == 0) continue;
    EXPECT_NE(doc.find("`" + c.rule + "`"), std::string::npos) << c.rule << " missing from EMULATOR_CHECKS.md";
  }
}

TEST_F(CheckRules, EnvironmentTurnsChecksOffAndSelectsSome) {
  std::string out;
  EXPECT_EQ(run("vmem_read_bad", "", &out, "K100_EMU_CHECK=0"), 0) << out;
  out.clear();
  EXPECT_EQ(run("vmem_read_bad", "", &out, "K100_EMU_CHECK=hazards,races"), 0) << out;
  out.clear();
  EXPECT_EQ(run("vgpr_dpp_bad", "", &out, "K100_EMU_CHECK=hazards"), 1) << out;
  out.clear();
  EXPECT_EQ(run("vmem_read_bad", "", &out, "K100_EMU_CHECK=sometimes"), 2) << out;
  EXPECT_NE(out.find("K100_EMU_CHECK"), std::string::npos) << out;
  out.clear();
  EXPECT_EQ(run("vmem_read_good", "--schedule=sideways", &out), 2) << out;
}

TEST_F(CheckRules, RandomScheduleChangesAnOrderDependentResult) {
  // Lane 64 (wave 1, lane 0) stores what it read from LDS[0]: 1 when wave 0
  // wrote first, 0 otherwise.
  std::set<uint32_t> seen;
  for (int seed = 1; seed <= 12; ++seed) {
    std::string out;
    ASSERT_EQ(run("order_dependent", "--no-check --schedule=random:" + std::to_string(seed), &out), 0) << out;
    std::ifstream f(work_ + "/order_dependent.out", std::ios::binary);
    std::vector<uint32_t> v(1024);
    f.read(reinterpret_cast<char*>(v.data()), 4096);
    seen.insert(v[64]);
  }
  EXPECT_EQ(seen, (std::set<uint32_t>{0, 1}));
  // The same seed gives the same interleaving.
  std::string a, b;
  run("order_dependent", "--no-check --schedule=random:5", &a);
  std::ifstream fa(work_ + "/order_dependent.out", std::ios::binary);
  std::string bytes_a((std::istreambuf_iterator<char>(fa)), {});
  run("order_dependent", "--no-check --schedule=random:5", &b);
  std::ifstream fb(work_ + "/order_dependent.out", std::ios::binary);
  std::string bytes_b((std::istreambuf_iterator<char>(fb)), {});
  EXPECT_EQ(bytes_a, bytes_b);
  // With the checks on, the race is reported whatever the schedule: as a
  // read after wave 0's write, or as wave 0's write after the read.
  std::set<std::string> rules;
  for (int seed = 0; seed <= 12; ++seed) {
    std::string out;
    EXPECT_EQ(run("order_dependent", seed ? "--schedule=random:" + std::to_string(seed) : "", &out), 1) << out;
    size_t at = out.find("rule:        lds_race.");
    ASSERT_NE(at, std::string::npos) << out;
    rules.insert(out.substr(at + 13, out.find('\n', at) - at - 13));
  }
  EXPECT_EQ(rules, (std::set<std::string>{"lds_race.write_read", "lds_race.read_write"}));
}

}  // namespace

}  // namespace k100::emu::test
