// k100-bench kernels: per-kernel memory traffic, instruction mix, occupancy
// and a MODELED K100_LC time with the limiter that sets it.
//
// Each kernel runs its benchmark case (KernelDef::bench_case, else its first
// test case) on the emulator with detailed profiling and the timing model's
// recorder attached; the result is also checked against the host reference.
// Traffic is split per argument buffer: the device wrapper below records every
// allocation and, at launch, names the buffers the pointer arguments point
// into, so the report can say how many of a buffer's lines were requested and
// how many distinct lines exist.
//
// The time comes from the timing model (k100/timing/simulator.h) over the
// kernel's own dispatches, back to back after a warm-up; the plain roofline
// from the profile counters is printed beside it as a bound. Both are models,
// not measurements (docs/PERFORMANCE.md).
//
// `-j N` runs the kernels in N worker processes forked after the package is
// built (the emulator starts its host threads per dispatch, so none exist at
// the fork); each worker takes the next kernel not yet taken and writes its
// report to a file of its own, and the output is assembled in the order of
// the registry, as without -j.
//
// A run longer than a few seconds shows its progress on standard error
// (run_progress.h), and the text report ends with a summary table.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>

#include "bench_registry.h"
#include "command_table.h"
#include "k100/base/error.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/group_bench_cases.h"
#include "k100/kernels/lookup_list.h"
#include "k100/kernels/registry.h"
#include "k100/timing/simulator.h"
#include "kernel_measure.h"
#include "parameter_override.h"
#include "run_progress.h"

namespace {

using namespace k100;
using namespace k100::bench;
using kernels::Case;
using kernels::KernelDef;

std::string us(double seconds) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f us", seconds * 1e6);
  return b;
}

std::string mb(uint64_t bytes) {
  char b[48];
  std::snprintf(b, sizeof b, "%llu B (%.3f MB)", (unsigned long long)bytes, double(bytes) / 1e6);
  return b;
}

// The text report's options: --timeline adds each dispatch's execution per microsecond.
struct TextOptions {
  bool json = false, timeline = false;
};

// One line per interval of the execution: HBM and host-link service begun
// in it, waves started and ended (the ramp and the tail of a dispatch).
void print_timeline(std::FILE* out, const timing::DispatchTiming& d) {
  std::fprintf(out, "  timeline of %s (per %.2f us of the execution: HBM busy, host link busy, waves started, ended):\n",
               d.kernel.c_str(), d.timeline_interval_s * 1e6);
  for (size_t i = 0; i < d.timeline.size(); ++i) {
    const timing::DispatchTiming::Interval& v = d.timeline[i];
    std::fprintf(out, "    %7.2f us  HBM %5.1f%%  host %5.1f%%  started %5u  ended %5u\n", double(i) * d.timeline_interval_s * 1e6,
                 100 * v.dram_busy, 100 * v.host_busy, v.waves_started, v.waves_ended);
  }
}

void print_text(std::FILE* out, const Report& r, bool timeline) {
  const emu::Profile& p = r.profile;
  std::fprintf(out, "\n== %s [%s]  %s  check: %s\n", r.lookup.c_str(), r.family.c_str(), r.dims.c_str(), r.check.c_str());
  std::fprintf(out, "  dispatches %llu, workgroups %llu, waves %llu\n", (unsigned long long)r.dispatches,
              (unsigned long long)r.groups, (unsigned long long)r.waves);
  std::fprintf(out, "  bytes requested by lanes   %s\n", mb(r.requested_bytes).c_str());
  if (r.ideal_bytes)
    std::fprintf(out, "  ideal bytes                %s\n", mb(r.ideal_bytes).c_str());
  else
    std::fprintf(out, "  ideal bytes                (not declared)\n");
  std::fprintf(out, "  DRAM (lines read+written) %s%s\n", mb(r.dram_bytes).c_str(),
              r.ideal_bytes ? (" = " + std::to_string(double(r.dram_bytes) / double(r.ideal_bytes)).substr(0, 5) + "x ideal").c_str() : "");
  std::fprintf(out, "  cache requests (lines x 64)%s = %.3fx DRAM\n", (" " + mb(r.cache_request_bytes)).c_str(),
              r.dram_bytes ? double(r.cache_request_bytes) / double(r.dram_bytes) : 0.0);
  for (const auto& reg : r.regions)
    std::fprintf(out, "    %-12s %12llu B  lines requested %10llu  distinct %10llu  (%.3f requests per line)\n",
                reg.name.c_str(), (unsigned long long)reg.bytes, (unsigned long long)reg.requested,
                (unsigned long long)reg.distinct, reg.distinct ? double(reg.requested) / double(reg.distinct) : 0.0);
  std::fprintf(out, "  wave-instructions %llu:", (unsigned long long)p.wave_instructions);
  for (int i = 0; i < emu::kInstClassCount; ++i)
    std::fprintf(out, " %s %llu", emu::inst_class_name(emu::InstClass(i)), (unsigned long long)p.by_class[size_t(i)]);
  std::fprintf(out, "\n  VALU utilization %.1f%%, LDS bank-conflict cycles %llu\n", 100 * p.valu_utilization(),
              (unsigned long long)p.lds_bank_conflicts);
  std::fprintf(out, "  VGPR %u, SGPR %u, LDS %u B, scratch %u B -> %.2f waves/SIMD (limit: %s)\n", r.vgprs, r.sgprs, r.lds,
              r.scratch, r.waves_per_simd, r.occupancy_limit);
  std::fprintf(out, "  roofline (bound): dram %s, valu %s, scalar %s, lds %s, tex %s, launch %s -> %s (%s)\n",
              us(r.t_dram).c_str(), us(r.t_valu).c_str(), us(r.t_scalar).c_str(), us(r.t_lds).c_str(),
              us(r.t_tex).c_str(), us(r.t_launch).c_str(), us(r.roofline).c_str(), r.roofline_term);
  if (!r.timed) {
    std::fprintf(out, "  MODELED time: not available (%s)\n", r.timing_error.c_str());
    return;
  }
  for (const auto& d : r.timing.dispatches)
    std::fprintf(out, "  dispatch %s: floor %s + execution %s; HBM %.0f%% busy, host link %.0f%%, issue %.0f%%, LDS %.0f%%; "
                "%.0f KiB in flight; %.0f of %.0f waves resident (%.2f/SIMD allowed by %s); waits %.0f%%; per wave %.0f "
                "instructions, %.1f dependent memory round trips\n",
                d.kernel.c_str(), us(d.floor_s).c_str(), us(d.exec_s).c_str(), 100 * d.dram_utilization,
                100 * d.host_utilization, 100 * d.issue_utilization, 100 * d.lds_utilization, d.bytes_in_flight / 1024,
                d.resident_waves, d.wave_capacity, d.occupancy.resident_waves_per_simd,
                timing::occupancy_limit_name(d.occupancy.limit), 100 * d.wait_fraction, d.instructions_per_wave,
                d.round_trips_per_wave);
  if (timeline)
    for (const auto& d : r.timing.dispatches) print_timeline(out, d);
  std::fprintf(out, "  MODELED time %s, limiter: %s (%s)", us(r.modeled).c_str(), timing::limiter_name(r.timing.limiter),
              r.timing.reason.c_str());
  if (r.ideal_bytes) std::fprintf(out, "; achieved %.1f GB/s = %.1f%% of 896 GB/s", r.achieved_gbs, 100 * r.peak_fraction);
  if (r.bound > 0) std::fprintf(out, "; bandwidth bound %s, modeled/bound %.3fx", us(r.bound).c_str(), r.modeled / r.bound);
  std::fprintf(out, "\n");
}

std::string json_escape(const std::string& s) {
  std::string o;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') o += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", ch);
      o += b;
      continue;
    }
    o += ch;
  }
  return o;
}

std::string to_json(const Report& r) {
  std::ostringstream o;
  o.precision(9);
  const emu::Profile& p = r.profile;
  o << "{\"lookup\":\"" << json_escape(r.lookup) << "\",\"family\":\"" << r.family << "\",\"dims\":\""
    << json_escape(r.dims) << "\",\"pass\":" << (r.pass ? "true" : "false") << ",\"check\":\"" << json_escape(r.check)
    << "\",\"dispatches\":" << r.dispatches << ",\"workgroups\":" << r.groups << ",\"waves\":" << r.waves
    << ",\"requested_bytes\":" << r.requested_bytes << ",\"ideal_bytes\":" << r.ideal_bytes
    << ",\"dram_bytes\":" << r.dram_bytes << ",\"cache_request_bytes\":" << r.cache_request_bytes
    << ",\"buffers\":[";
  for (size_t i = 0; i < r.regions.size(); ++i)
    o << (i ? "," : "") << "{\"name\":\"" << json_escape(r.regions[i].name) << "\",\"bytes\":" << r.regions[i].bytes
      << ",\"lines_requested\":" << r.regions[i].requested << ",\"lines_distinct\":" << r.regions[i].distinct << "}";
  o << "],\"wave_instructions\":{";
  for (int i = 0; i < emu::kInstClassCount; ++i)
    o << (i ? "," : "") << "\"" << emu::inst_class_name(emu::InstClass(i)) << "\":" << p.by_class[size_t(i)];
  o << "},\"valu_active_lanes\":" << p.valu_active_lanes << ",\"lds_bank_conflicts\":" << p.lds_bank_conflicts
    << ",\"vgprs\":" << r.vgprs << ",\"sgprs\":" << r.sgprs << ",\"lds\":" << r.lds << ",\"scratch\":" << r.scratch
    << ",\"waves_per_simd\":" << r.waves_per_simd << ",\"occupancy_limit\":\"" << r.occupancy_limit << "\""
    << ",\"roofline\":{\"dram_s\":" << r.t_dram << ",\"valu_s\":" << r.t_valu << ",\"scalar_s\":" << r.t_scalar
    << ",\"lds_s\":" << r.t_lds << ",\"tex_s\":" << r.t_tex << ",\"launch_s\":" << r.t_launch
    << ",\"time_s\":" << r.roofline << ",\"term\":\"" << r.roofline_term << "\",\"bandwidth_bound_s\":" << r.bound
    << "},\"modeled\":{";
  if (r.timed) {
    o << "\"time_s\":" << r.modeled << ",\"limiter\":\"" << timing::limiter_name(r.timing.limiter)
      << "\",\"reason\":\"" << json_escape(r.timing.reason) << "\",\"achieved_gbs\":" << r.achieved_gbs
      << ",\"peak_fraction\":" << r.peak_fraction << ",\"bandwidth_bound_s\":" << r.bound << ",\"dispatches\":[";
    for (size_t i = 0; i < r.timing.dispatches.size(); ++i) {
      const auto& d = r.timing.dispatches[i];
      o << (i ? "," : "") << "{\"kernel\":\"" << json_escape(d.kernel) << "\",\"floor_s\":" << d.floor_s
        << ",\"exec_s\":" << d.exec_s << ",\"limiter\":\"" << timing::limiter_name(d.limiter)
        << "\",\"dram_utilization\":" << d.dram_utilization << ",\"host_utilization\":" << d.host_utilization
        << ",\"issue_utilization\":" << d.issue_utilization << ",\"lds_utilization\":" << d.lds_utilization
        << ",\"bytes_in_flight\":" << d.bytes_in_flight << ",\"resident_waves\":" << d.resident_waves
        << ",\"wave_capacity\":" << d.wave_capacity << ",\"wait_fraction\":" << d.wait_fraction
        << ",\"instructions_per_wave\":" << d.instructions_per_wave << ",\"round_trips_per_wave\":" << d.round_trips_per_wave
        << "}";
    }
    o << "]";
  } else {
    o << "\"error\":\"" << json_escape(r.timing_error) << "\"";
  }
  o << "}}";
  return o.str();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

// One kernel's finished report: its JSON object and its summary row (the
// text block is printed as it finishes without -j).
struct Finished {
  bool finished = false, pass = false;
  std::string json;
  SummaryRow row;
};

SummaryRow summary_row(const Report& r) {
  SummaryRow s;
  s.lookup = r.lookup;
  s.family = r.family;
  s.finished = true;
  s.pass = r.pass;
  if (r.timed) {
    s.modeled_s = r.modeled;
    s.limiter = timing::limiter_name(r.timing.limiter);
    if (r.ideal_bytes) s.peak_fraction = r.peak_fraction;
  }
  return s;
}

using Work = std::vector<std::pair<const KernelDef*, Case>>;

std::vector<Finished> run_in_process(const Work& work, kernels::EmuTestDevice& dev, const timing::MachineParams& m,
                                     TextOptions text, RunProgress& progress) {
  std::vector<Finished> done(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    Report r = measure(*work[i].first, dev, work[i].second, m);
    if (!text.json) print_text(stdout, r, text.timeline);
    std::fflush(stdout);
    done[i] = {true, r.pass, to_json(r), summary_row(r)};
    progress.finished(r.lookup);
  }
  progress.done();
  return done;
}

std::string read_file(const std::string& path, bool& found) {
  std::ifstream in(path, std::ios::binary);
  found = bool(in);
  std::ostringstream o;
  o << in.rdbuf();
  return o.str();
}

// Forks `jobs` workers that share a counter of the next kernel to take. A
// worker writes kernel i's text block to <dir>/i.txt and its summary row (a
// line) plus its JSON object to <dir>/i.json, the JSON file last (renamed
// into place), so that a report counts as finished only when both exist;
// the parent watches those files for the progress line.
std::vector<Finished> run_in_workers(const Work& work, kernels::EmuTestDevice& dev, const timing::MachineParams& m,
                                     int jobs, TextOptions text, RunProgress& progress) {
  char dir_template[] = "/tmp/k100-bench-kernels-XXXXXX";
  if (!mkdtemp(dir_template)) throw Error("k100-bench kernels -j: cannot create a directory under /tmp");
  const std::string dir = dir_template;
  void* shared = mmap(nullptr, sizeof(std::atomic<size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) throw Error("k100-bench kernels -j: cannot map the shared work counter");
  auto* next = new (shared) std::atomic<size_t>(0);
  auto path = [&](size_t i, const char* ext) { return dir + "/" + std::to_string(i) + ext; };
  std::vector<pid_t> workers;
  for (int w = 0; w < jobs && size_t(w) < work.size(); ++w) {
    pid_t pid = fork();
    if (pid < 0) break;  // run with the workers that started
    if (pid == 0) {
      for (size_t i; (i = next->fetch_add(1)) < work.size();) {
        Report r;
        try {
          r = measure(*work[i].first, dev, work[i].second, m);
        } catch (const std::exception& e) {
          std::fprintf(stderr, "k100-bench kernels: %s: %s\n", work[i].first->lookup.c_str(), e.what());
          continue;  // no report: the parent names the kernel as unfinished
        }
        if (!text.json) {
          if (std::FILE* f = std::fopen(path(i, ".txt").c_str(), "w")) {
            print_text(f, r, text.timeline);
            std::fclose(f);
          }
        }
        std::string tmp = path(i, ".part");
        std::ofstream(tmp, std::ios::binary) << summary_row(r).encode() << '\n' << to_json(r);
        std::rename(tmp.c_str(), path(i, ".json").c_str());
      }
      std::fflush(nullptr);
      _exit(0);
    }
    workers.push_back(pid);
  }
  if (workers.empty()) {
    munmap(shared, sizeof(std::atomic<size_t>));
    ::rmdir(dir.c_str());
    return run_in_process(work, dev, m, text, progress);
  }
  std::vector<bool> seen(work.size(), false);
  auto watch = [&] {  // reports that appeared since the last look
    for (size_t i = 0; i < work.size(); ++i)
      if (!seen[i] && ::access(path(i, ".json").c_str(), F_OK) == 0) {
        seen[i] = true;
        progress.finished(work[i].first->lookup);
      }
  };
  for (size_t running = workers.size(); running;) {
    for (pid_t& pid : workers) {
      if (pid <= 0) continue;
      int status = 0;
      pid_t r = waitpid(pid, &status, WNOHANG);
      if (r == pid || (r < 0 && errno != EINTR)) {
        pid = 0;
        --running;
      }
    }
    watch();
    if (running) ::usleep(200000);
  }
  watch();
  progress.done();
  munmap(shared, sizeof(std::atomic<size_t>));
  std::vector<Finished> done(work.size());
  for (size_t i = 0; i < work.size(); ++i) {
    bool found = false;
    std::string j = read_file(path(i, ".json"), found);
    size_t eol = j.find('\n');
    if (found && eol != std::string::npos) {
      SummaryRow row = SummaryRow::decode(j.substr(0, eol));
      done[i] = {row.finished, row.pass, j.substr(eol + 1), row};
    }
    bool has_text = false;
    const std::string block = read_file(path(i, ".txt"), has_text);
    if (!text.json && has_text) std::fputs(block.c_str(), stdout);
    std::remove(path(i, ".json").c_str());
    std::remove(path(i, ".txt").c_str());
    std::remove(path(i, ".part").c_str());
  }
  ::rmdir(dir.c_str());
  std::fflush(stdout);
  return done;
}

int usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: k100-bench kernels [--only a,b] [--group g,h] [--dims n=4096,k=4096] [--json] [--plot roofline.png]\n"
               "                          [--package file.hsaco] [--list] [--set name=value ...] [--timeline] [-j N]\n"
               "                          [--no-progress | --progress-after SECONDS]\n"
               "Runs each kernel's benchmark case on the emulator with detailed profiling and prints traffic,\n"
               "instruction mix, occupancy, the MODELED K100_LC time of the timing model with its limiter, and the\n"
               "plain roofline as a bound (both explained in the header). --set changes one timing-model parameter\n"
               "(names: k100/timing/machine.h) for a sensitivity study. --timeline adds each dispatch's\n"
               "execution per microsecond (HBM and host-link busy, waves started and ended: the ramp and the\n"
               "tail). -j N runs N kernels at a time in worker processes (same output, in the same order).\n"
               "A run longer than 10 s (--progress-after) shows a progress line on standard error (kernels\n"
               "done, time spent, an estimate of the time left; --no-progress turns it off), and the text\n"
               "report ends with a summary table: each kernel's check, MODELED time, limiter and %% of 896 GB/s.\n"
               "A group may add cases of its own after its kernels' (--group attention: the grouped-query decode\n"
               "attention at 4096 and 32768 rows, f32 and f16 caches).\n");
  return code;
}

int run(int argc, char** argv) {
  std::vector<std::string> only, groups;
  std::map<std::string, int64_t> dims_override;
  bool json = false, list = false, timeline = false, show_progress = true;
  double progress_after = 10;
  int jobs = 1;
  std::string plot, package;
  timing::MachineParams machine = timing::k100_lc();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* flag) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "k100-bench kernels: %s needs a value\n", flag);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--only") {
      for (auto& s : kernels::split_lookup_list(value("--only"))) only.push_back(s);
    } else if (a == "--group") {
      for (auto& s : kernels::split_lookup_list(value("--group"))) groups.push_back(s);
    } else if (a == "--dims") {
      for (auto& kv : split(value("--dims"), ',')) {
        auto eq = kv.find('=');
        char* end = nullptr;
        long long v = eq == std::string::npos ? 0 : std::strtoll(kv.c_str() + eq + 1, &end, 0);
        if (eq == std::string::npos || !end || *end || v < 0) {
          std::fprintf(stderr, "k100-bench kernels: --dims wants name=value pairs, got '%s'\n", kv.c_str());
          return 2;
        }
        dims_override[kv.substr(0, eq)] = v;
      }
    } else if (a == "--json") {
      json = true;
    } else if (a == "--timeline") {
      timeline = true;
    } else if (a == "--no-progress") {
      show_progress = false;
    } else if (a == "--progress-after") {
      std::string v = value("--progress-after");
      char* end = nullptr;
      progress_after = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || !(progress_after >= 0)) {
        std::fprintf(stderr, "k100-bench kernels: --progress-after wants seconds (0 or more), got '%s'\n", v.c_str());
        return 2;
      }
    } else if (a == "--plot") {
      plot = value("--plot");
    } else if (a == "--package") {
      package = value("--package");
    } else if (a == "--list") {
      list = true;
    } else if (a == "--set") {
      if (!bench::apply_set_option(machine, "kernels", value("--set"))) return 2;
    } else if (a == "-j" || a == "--jobs") {
      std::string v = value("-j");
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (!end || *end || n < 1 || n > 64) {
        std::fprintf(stderr, "k100-bench kernels: -j wants a number of workers from 1 to 64, got '%s'\n", v.c_str());
        return 2;
      }
      jobs = int(n);
    } else if (a == "--help" || a == "-h") {
      return usage(0);
    } else {
      std::fprintf(stderr, "k100-bench kernels: %s\n",
                   k100::tools::unknown_option(a, {"--only", "--group", "--dims", "--json", "--plot", "--package",
                                                   "--list", "--set", "--timeline", "-j", "--no-progress",
                                                   "--progress-after", "--help"}).c_str());
      return usage(2);
    }
  }
  const kernels::Registry& reg = kernels::registry();
  for (const auto& name : only)
    if (!reg.find(name)) {
      std::fprintf(stderr, "k100-bench kernels: no kernel named '%s' (see --list)\n", name.c_str());
      return 2;
    }
  for (const auto& g : groups) {
    auto fams = reg.families();
    if (std::find(fams.begin(), fams.end(), g) == fams.end()) {
      std::fprintf(stderr, "k100-bench kernels: no group '%s'\n", g.c_str());
      return 2;
    }
  }
  std::vector<const KernelDef*> selected;
  for (const auto& d : reg.all()) {
    if (!only.empty() && std::find(only.begin(), only.end(), d.lookup) == only.end()) continue;
    if (!groups.empty() && std::find(groups.begin(), groups.end(), d.family) == groups.end()) continue;
    selected.push_back(&d);
  }
  if (list) {
    for (const auto* d : selected) std::printf("%-28s %s\n", d->lookup.c_str(), d->family.c_str());
    return 0;
  }
  try {
    std::unique_ptr<kernels::EmuTestDevice> dev;
    if (!package.empty()) {
      dev = std::make_unique<kernels::EmuTestDevice>(package);
    } else {
      const char* env = std::getenv("K100_KERNELS_DIR");
      dev = std::make_unique<kernels::EmuTestDevice>(reg, env ? env : std::string(K100_SOURCE_DIR) + "/kernels");
      for (const auto& [name, why] : dev->broken())
        std::fprintf(stderr, "k100-bench kernels: %s did not build: %s\n", name.c_str(), why.c_str());
    }
    // Every case first, so that a wrong --dims is reported before anything runs.
    std::vector<std::pair<const KernelDef*, Case>> work;
    for (const KernelDef* d : selected) {
      Case c;
      if (d->bench_case) {
        c = d->bench_case();
      } else {
        auto cs = d->cases(false);
        if (cs.empty()) continue;
        c = cs.back();
      }
      for (const auto& [k, v] : dims_override) {
        if (!c.dims.count(k)) {
          std::fprintf(stderr, "k100-bench kernels: %s has no size '%s' (it has %s)\n", d->lookup.c_str(), k.c_str(),
                       c.describe().c_str());
          return 2;
        }
        c.dims[k] = v;
      }
      work.emplace_back(d, std::move(c));
    }
    // the groups' own cases (kernels/*/..._bench.cpp), with the --dims a case has; the summary names their sizes
    std::map<size_t, std::string> group_case_label;
    if (only.empty())
      for (const auto& g : groups)
        for (auto& [lookup, c] : kernels::group_bench_cases(g)) {
          const KernelDef* d = reg.find(lookup);
          if (!d) continue;  // a kernel left out of this package
          for (const auto& [k, v] : dims_override)
            if (c.dims.count(k)) c.dims[k] = v;
          // the summary names the group and the sizes that differ from the kernel's own case
          std::string label = " (" + g;
          const Case own = d->bench_case ? d->bench_case() : Case{};
          for (const auto& [k, v] : c.dims)
            if (!own.dims.count(k) || own.dims.at(k) != v) label += " " + k + "=" + std::to_string(v);
          group_case_label[work.size()] = label + ")";
          work.emplace_back(d, std::move(c));
        }
    if (!json) std::printf("%s", kModelHeader);
    std::fflush(stdout);
    RunProgress progress(work.size(), show_progress, progress_after);
    std::vector<Finished> done =
        jobs > 1 && work.size() > 1
            ? run_in_workers(work, *dev, machine, jobs, {json, timeline}, progress)
            : run_in_process(work, *dev, machine, {json, timeline}, progress);
    std::string all = "{\"model\":\"" + json_escape(kModelHeader) + "\",\"kernels\":[";
    bool ok = true, first = true;
    for (size_t i = 0; i < done.size(); ++i) {
      if (!done[i].finished) {
        std::fprintf(stderr, "k100-bench kernels: %s: its worker process ended before the report was written\n",
                     work[i].first->lookup.c_str());
        ok = false;
        continue;
      }
      ok = ok && done[i].pass;
      all += (first ? "\n" : ",\n") + done[i].json;
      first = false;
    }
    all += "\n]}\n";
    if (json) std::printf("%s", all.c_str());
    if (!json) {
      std::vector<SummaryRow> rows;
      for (size_t i = 0; i < done.size(); ++i) {
        SummaryRow row = done[i].row;
        if (!done[i].finished) {
          row.lookup = work[i].first->lookup;
          row.family = work[i].first->family;
        }
        if (group_case_label.count(i)) row.lookup += group_case_label[i];
        rows.push_back(row);
      }
      print_summary(stdout, rows);
    }
    if (!plot.empty()) {
      std::string tmp = plot + ".json";
      std::ofstream(tmp) << all;
      std::string cmd = std::string(K100_PYTHON3) + " '" + std::string(K100_SOURCE_DIR) + "/tools/k100-bench/roofline.py' '" + tmp + "' '" +
                        plot + "'";
      int rc = std::system(cmd.c_str());
      std::remove(tmp.c_str());
      if (rc != 0) {
        std::fprintf(stderr, "k100-bench kernels: the roofline plot failed (python3-matplotlib installed?)\n");
        return 1;
      }
      if (!json) std::printf("\nroofline plot written to %s\n", plot.c_str());
    }
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-bench kernels: %s\n", e.what());
    return 1;
  }
}

k100::bench::Register reg("kernels", "per-kernel traffic, instruction mix, occupancy and modeled K100_LC time", run);

}  // namespace
