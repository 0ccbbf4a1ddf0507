// k100-bench validate: the timing model against K100_LC measurements it was
// NOT calibrated on (PERFORMANCE_FACTS sections 7, 14, 15, 17), at the
// measured shapes; the table prints measured, MODELED and their ratio.
// Where the measured kernel is described well enough to be re-created
// (RMSNorm, row softmax, split decode attention), the validation point is a
// replica of it (validate/replica_kernels.h); our package kernel of the same
// family runs at the same point too, labelled "ours", for comparison (its
// code differs, so may its time: docs/PERFORMANCE.md). The GEMVs and the
// cross-block reduction are validated with our kernels, which share the
// measured ones' structure.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "command_table.h"
#include "kernel_measure.h"
#include "parameter_override.h"
#include "validate/replica_runs.h"

namespace {

using namespace k100;
using Dims = std::map<std::string, int64_t>;

struct Step {
  const char* kernel;
  Dims dims;
};

using Replica = std::function<bench::validate::ReplicaRun(bench::calibrate::ProbeDevice&)>;

struct Point {
  const char* group;
  std::string shape;
  std::vector<Step> steps;  // our kernels, dispatched back to back; modeled = sum
  double measured_us;
  const char* source;
  // A replica of the measured kernel: the validation point; `steps` then run
  // for comparison only.
  Replica replica;
  std::string replica_name;
};

std::vector<Point> points() {
  std::vector<Point> p;
  // Section 17: f32 GEMV, one wave per row against 8 rows per wave.
  const struct {
    int64_t n, k;
    double warp, rows8;
  } gemv[] = {{16384, 128, 126.0, 19.5}, {65536, 128, 367.9, 50.8}, {16384, 512, 134.0, 87.4}, {16384, 1024, 130.9, 242.6}};
  for (const auto& g : gemv) {
    std::string shape = std::to_string(g.n) + " x " + std::to_string(g.k);
    p.push_back({"gemv", shape, {{"gemv_f32_warp_k", {{"n", g.n}, {"k", g.k}}}}, g.warp, "17 (v1.8.3)", {}, {}});
    p.push_back({"gemv", shape, {{"gemv_f32_rows8_k", {{"n", g.n}, {"k", g.k}}}}, g.rows8, "17 (v1.8.3)", {}, {}});
  }
  // Section 7: the f32 layer at 17408 x 5120 (k > 512: the wave-per-row kernel).
  p.push_back({"gemv", "17408 x 5120", {{"gemv_f32_warp_k", {{"n", 17408}, {"k", 5120}}}}, 699, "7 (0.695-0.701 ms)", {}, {}});
  // Section 17: RMSNorm of one row, 4 and 16 loads per wait.
  const struct {
    int64_t dim;
    double fast, deep;
  } norm[] = {{128, 7.5, 7.5}, {512, 10.4, 18.2}, {2560, 15.5, 16.3}, {5120, 26.5, 13.0}, {10240, 48.2, 20.2}};
  for (const auto& n : norm) {
    std::string shape = "dim " + std::to_string(n.dim) + ", 1 row";
    const uint32_t dim = uint32_t(n.dim);
    p.push_back({"rmsnorm", shape, {{"rmsnorm_fast_k", {{"dim", n.dim}, {"rows", 1}}}}, n.fast,
                 n.dim == 128 ? "17 (~7.5)" : "17", [=](auto& dev) { return bench::validate::run_rmsnorm(dev, 4, dim); },
                 "4 loads per wait"});
    p.push_back({"rmsnorm", shape, {{"rmsnorm_deep_k", {{"dim", n.dim}, {"rows", 1}}}}, n.deep,
                 n.dim == 128 ? "17 (~7.5)" : "17", [=](auto& dev) { return bench::validate::run_rmsnorm(dev, 16, dim); },
                 "16 loads per wait"});
  }
  // Section 17: row softmax, one row, one wave.
  const struct {
    int64_t cols;
    double scalar, vec;
  } soft[] = {{1024, 40.2, 20.5}, {4096, 95.6, 47.6}, {16384, 287.1, 126.3}};
  for (const auto& s : soft) {
    std::string shape = std::to_string(s.cols) + " columns, 1 row";
    const uint32_t cols = uint32_t(s.cols);
    p.push_back({"softmax", shape, {{"softmax_k", {{"cols", s.cols}, {"rows", 1}}}}, s.scalar, "17 (v1.7.8)",
                 [=](auto& dev) { return bench::validate::run_softmax(dev, 1, cols); }, "scalar"});
    p.push_back({"softmax", shape, {{"softmax_vec_k", {{"cols", s.cols}, {"rows", 1}}}}, s.vec, "17 (v1.7.8)",
                 [=](auto& dev) { return bench::validate::run_softmax(dev, 4, cols); }, "vectorised"});
  }
  // Section 14: the blocked softmax's cross-block reduction (one value per lane + LDS tree).
  p.push_back({"softmax", "64 block partials", {{"reduce_max1_k", {{"nbpr", 64}}}}, 8.0, "14 (v1.8.3)", {}, {}});
  // Section 15: split decode attention, combine (8 heads x 128).
  const double comb[] = {10.5, 8.5, 7.5, 7.3, 10.6, 18.0, 31.6};
  for (int i = 0; i < 7; ++i) {
    int64_t nsplit = int64_t(1) << i;
    bench::validate::AttentionShape a{8, 128, uint32_t(64 * nsplit), uint32_t(i), 4, false, true};
    p.push_back({"attention", "8 x 128, nsplit " + std::to_string(nsplit),
                 {{"flash_dec_comb_k", {{"heads", 8}, {"dh", 128}, {"nsplit", nsplit}}}}, comb[i], "15 (v1.9.6)",
                 [=](auto& dev) { return bench::validate::run_attention(dev, a); }, "combine, 4-split groups"});
  }
  // Section 15: the part kernel's split-size sweep (8 heads x 64, n_kv 4096; R rows per split).
  const struct {
    int64_t cshift;
    double us;
  } sweep[] = {{0, 1510}, {2, 413}, {4, 119}, {5, 64.5}, {6, 67}};
  for (const auto& s : sweep) {
    bench::validate::AttentionShape a{8, 64, 4096, uint32_t(s.cshift), 4, true, false};
    p.push_back({"attention", "8 x 64, n_kv 4096, R " + std::to_string(4096 >> s.cshift),
                 {{"flash_dec_part_k",
                   {{"heads", 8}, {"dh", 64}, {"n_kv", 4096}, {"max_len", 4096}, {"pad", 4096}, {"cshift", s.cshift}}}},
                 s.us, "15", [=](auto& dev) { return bench::validate::run_attention(dev, a); }, "part, batches of 4"});
  }
  // Section 15: the whole forward (part + combine), 8 heads.
  const struct {
    int64_t dh, n_kv, cshift;
    double us;
  } fwd[] = {{64, 1024, 4, 28.0}, {64, 2048, 5, 30.2}, {64, 4096, 6, 63.1}, {128, 1024, 4, 48.7}, {128, 2048, 5, 56.9}, {128, 4096, 6, 145.3}};
  for (const auto& f : fwd) {
    bench::validate::AttentionShape a{8, uint32_t(f.dh), uint32_t(f.n_kv), uint32_t(f.cshift), 8, true, true};
    p.push_back({"attention", "forward 8 x " + std::to_string(f.dh) + ", n_kv " + std::to_string(f.n_kv) + ", nsplit " +
                                  std::to_string(int64_t(1) << f.cshift),
                 {{"flash_dec_part_k",
                   {{"heads", 8}, {"dh", f.dh}, {"n_kv", f.n_kv}, {"max_len", f.n_kv}, {"pad", f.n_kv}, {"cshift", f.cshift}}},
                  {"flash_dec_comb_k", {{"heads", 8}, {"dh", f.dh}, {"nsplit", int64_t(1) << f.cshift}}}},
                 f.us, "15 (v1.9.8)", [=](auto& dev) { return bench::validate::run_attention(dev, a); },
                 "part, batches of 8, + combine"});
  }
  return p;
}

kernels::Case case_for(const kernels::KernelDef& d, const Dims& dims) {
  kernels::Case c;
  if (d.bench_case) {
    c = d.bench_case();
  } else {
    auto cs = d.cases(false);
    if (!cs.empty()) c = cs.back();
  }
  for (const auto& [k, v] : dims) {
    if (!c.dims.count(k)) throw Error("validate: " + d.lookup + " has no size '" + k + "' (it has " + c.describe() + ")");
    c.dims[k] = v;
  }
  return c;
}

int run(int argc, char** argv) {
  std::string only;
  timing::MachineParams machine = timing::k100_lc();
  std::vector<std::string> overrides;
  bool detail = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--group" && i + 1 < argc) {
      only = argv[++i];
    } else if (a == "--set" && i + 1 < argc) {
      std::string kv = argv[++i];
      if (!bench::apply_set_option(machine, "validate", kv)) return 2;
      overrides.push_back(kv);
    } else if (a == "--detail") {
      detail = true;
    } else if (a == "--help" || a == "-h") {
      std::printf("usage: k100-bench validate [--group gemv|rmsnorm|softmax|attention] [--set name=value ...] [--detail]\n"
                  "Runs replicas of the measured kernels (and ours beside them) at measured K100_LC shapes and\n"
                  "compares the MODELED time with the measurement\n"
                  "(a check of the timing model; none of these numbers set a parameter). --set changes one model\n"
                  "parameter (names: k100/timing/machine.h) for a sensitivity study; --detail adds, per dispatch, its\n"
                  "waves, execution time, and the longest wave's lifetime, dependent round trips and instructions.\n");
      return 0;
    } else {
      std::fprintf(stderr, "k100-bench validate: %s\n",
                   k100::tools::unknown_option(a, {"--group", "--set", "--detail", "--help"}).c_str());
      return 2;
    }
  }
  try {
    const kernels::Registry& reg = kernels::registry();
    const char* env = std::getenv("K100_KERNELS_DIR");
    kernels::EmuTestDevice dev(reg, env ? env : std::string(K100_SOURCE_DIR) + "/kernels");
    std::printf("MODELED K100_LC times (timing model) against measurements the model was not calibrated on.\n");
    for (const auto& o : overrides) std::printf("  overridden: %s\n", o.c_str());
    std::printf("\n");
    std::printf("| group | kernel | shape | measured us (card) | MODELED us | MODELED / measured | limiter (MODELED) | PERFORMANCE_FACTS |\n");
    std::printf("|---|---|---|---:|---:|---:|---|---|\n");
    struct Row {
      std::string group, shape;
      bool validation;  // a validation point (a replica, or our kernel where no replica stands)
      double measured, modeled;
    };
    std::vector<Row> rows;
    auto detail_of = [](const timing::Timing& t) {
      std::string out;
      for (const auto& d : t.dispatches) {
        char b[256];
        std::snprintf(b, sizeof b,
                      "    %s: %llu waves; execution %.1f us; the longest wave %.1f us with %u dependent round trips "
                      "and %llu instructions; %.0f host-link reads\n",
                      d.kernel.c_str(), (unsigned long long)d.waves, d.exec_s * 1e6, d.longest_wave_s * 1e6,
                      d.longest_wave_round_trips, (unsigned long long)d.longest_wave_instructions,
                      double(d.host_requests));
        out += b;
      }
      return out;
    };
    auto print_row = [&](const Point& p, const std::string& kernel, double us, const std::string& limiter,
                         const std::string& failed, const std::string& details, bool validation) {
      std::printf("| %s | %s | %s | %.1f | %.1f | %.2f | %s | %s |%s\n", p.group, kernel.c_str(), p.shape.c_str(),
                  p.measured_us, us, us / p.measured_us, limiter.c_str(), p.source,
                  failed.empty() ? "" : (" CHECK FAILED:" + failed).c_str());
      if (detail) std::printf("%s", details.c_str());
      std::fflush(stdout);
      rows.push_back({p.group, p.shape, validation, p.measured_us, us});
    };
    for (const Point& p : points()) {
      if (!only.empty() && only != p.group) continue;
      double modeled = 0;
      std::string names, limiter, failed, details;
      double longest = -1;
      for (const Step& s : p.steps) {
        const kernels::KernelDef* d = reg.find(s.kernel);
        if (!d) throw Error(std::string("validate: no kernel ") + s.kernel);
        bench::Report r = bench::measure(*d, dev, case_for(*d, s.dims), machine);
        if (!r.pass) failed += " " + std::string(s.kernel) + ": " + r.check;
        if (!r.timed) throw Error(std::string("validate: ") + s.kernel + ": " + r.timing_error);
        modeled += r.modeled;
        details += detail_of(r.timing);
        names += (names.empty() ? "" : " + ") + std::string("`") + s.kernel + "`";
        if (r.modeled > longest) {
          longest = r.modeled;
          limiter = timing::limiter_name(r.timing.limiter);
        }
      }
      if (p.replica) {
        // A fresh device per point: its buffers' addresses (and so their HBM
        // channels) do not depend on which points ran before.
        bench::calibrate::ProbeDevice replica_dev;
        bench::validate::ReplicaRun run = p.replica(replica_dev);
        timing::Timing t = run.model(machine);
        print_row(p, "replica (" + p.replica_name + ")", t.total_s * 1e6, timing::limiter_name(t.limiter),
                  run.pass ? "" : " " + run.check, detail_of(t), true);
      }
      print_row(p, (p.replica ? "ours: " : "") + names, modeled * 1e6, limiter, failed, details, !p.replica);
    }
    // Ordering of the two GEMV kernels per shape, and the spread per group.
    std::printf("\n");
    for (size_t i = 0; i + 1 < rows.size(); ++i)
      if (rows[i].group == "gemv" && rows[i + 1].group == "gemv" && rows[i].shape == rows[i + 1].shape) {
        bool card = rows[i].measured > rows[i + 1].measured, model = rows[i].modeled > rows[i + 1].modeled;
        std::printf("order at %s: card %s, model %s: %s\n", rows[i].shape.c_str(),
                    card ? "wave-per-row slower" : "wave-per-row faster", model ? "wave-per-row slower" : "wave-per-row faster",
                    card == model ? "same" : "DIFFERENT");
        ++i;
      }
    std::map<std::string, std::pair<int, int>> within, ours;
    int in = 0, all = 0;
    for (const Row& r : rows) {
      double q = r.modeled / r.measured;
      bool ok = q <= 1.5 && q >= 1 / 1.5;
      auto& w = r.validation ? within[r.group] : ours[r.group];
      ++w.second;
      if (ok) ++w.first;
      if (r.validation) ++all, in += ok;
    }
    for (const auto& [g, w] : ours)
      std::printf("%s, our kernels beside the replicas (for comparison): %d of %d within a factor 1.5\n", g.c_str(),
                  w.first, w.second);
    for (const auto& [g, w] : within)
      std::printf("%s: %d of %d validation points within a factor 1.5\n", g.c_str(), w.first, w.second);
    std::printf("%d of %d validation points within a factor 1.5 of the measurement\n", in, all);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-bench validate: %s\n", e.what());
    return 1;
  }
}

k100::bench::Register reg("validate", "the timing model against K100_LC measurements it was not calibrated on", run);

}  // namespace
