// k100-bench kernels: per-kernel memory traffic, instruction mix, occupancy
// and a modeled K100_LC time, all from the emulator's profile counters.
//
// Each kernel runs its benchmark case (KernelDef::bench_case, else its first
// test case) on the emulator with detailed profiling; the result is also
// checked against the host reference. Traffic is split per argument buffer:
// the device wrapper below records every allocation and, at launch, names the
// buffers the pointer arguments point into, so the report can say how many of
// a buffer's lines were requested and how many distinct lines exist.
//
// The time is a model, not a measurement; the formula is printed with the
// report and documented in docs/PERFORMANCE.md.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "k100/base/error.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/registry.h"

namespace {

using namespace k100;
using kernels::Case;
using kernels::KernelDef;

// K100_LC constants (docs/PERFORMANCE.md, "The model").
constexpr double kComputeUnits = 120;
constexpr double kClockHz = 1.27e9;
constexpr double kDramBytesPerSecond = 896e9;
constexpr double kLaneSlotsPerSecond = kComputeUnits * 64 * kClockHz;  // 9.7536e12
constexpr double kLaunchFloorSeconds = 7.3e-6;
constexpr double kLdsCyclesPerInstruction = 2;  // 256 bytes per wave at 128 B/clk per CU
constexpr int kSimds = 4;

const char* kModelHeader =
    "MODELED K100_LC time (not a measurement): t = max(t_dram, t_valu, t_scalar, t_lds, t_tex) + t_launch\n"
    "  t_dram   = DRAM bytes / 896 GB/s; DRAM bytes = (distinct 64-byte lines read + distinct lines written) x 64\n"
    "             (infinite-cache approximation: each line fetched at most once and written back at most once)\n"
    "  t_valu   = VALU wave-instructions x 64 lanes / 9.7536e12 lane-slots/s (120 CU x 64 x 1.27 GHz)\n"
    "  t_scalar = (SALU + SMEM + branch + waitcnt + other) wave-instructions / (120 CU x 1.27 GHz)\n"
    "  t_lds    = (2 x DS wave-instructions + bank-conflict cycles) / (120 CU x 1.27 GHz)\n"
    "  t_tex    = cache-request lines (distinct lines per memory instruction, summed) / (120 CU x 1.27 GHz)\n"
    "  t_launch = 7.3 us per dispatch (measured dispatch floor)\n"
    "  bound    = ideal bytes / 896 GB/s (what the operation must move at least)\n";

struct Region {
  std::string name;  // the argument's name
  uint64_t bytes = 0;
  uint64_t requested = 0, distinct = 0;  // lines
};

struct Launch {
  std::string lookup;
  uint64_t groups = 0, wg_size = 0;
  emu::Profile profile;
  std::vector<Region> regions;
  uint32_t vgprs = 0, sgprs = 0, lds = 0, scratch = 0;
};

// A TestDevice over the emulator that records allocations and per-launch profiles.
class BenchDevice : public kernels::TestDevice {
 public:
  explicit BenchDevice(kernels::EmuTestDevice& inner) : inner_(inner) {
    inner_.options().detailed_profile = true;
  }
  uint64_t alloc(size_t bytes) override {
    uint64_t a = inner_.alloc(bytes);
    allocs_[a] = bytes;
    return a;
  }
  void free(uint64_t address) override {
    allocs_.erase(address);
    inner_.free(address);
  }
  void upload(uint64_t dst, const void* src, size_t bytes) override { inner_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { inner_.download(dst, src, bytes); }
  void fill(uint64_t dst, uint8_t value, size_t bytes) override { inner_.fill(dst, value, bytes); }
  std::string backend() const override { return "emu"; }

  void launch(const std::string& lookup, kernels::Dim3 grid, kernels::Dim3 workgroup,
              const std::vector<uint64_t>& argv) override {
    const emu::KernelSpec* spec = inner_.program().find_kernel(inner_.symbol_for(lookup));
    Launch l;
    l.lookup = lookup;
    l.groups = uint64_t(grid.x) * grid.y * grid.z;
    l.wg_size = uint64_t(workgroup.x) * workgroup.y * workgroup.z;
    std::vector<emu::AddressRange> ranges;
    if (spec) {
      auto args = spec->explicit_args();
      for (size_t i = 0; i < argv.size() && i < args.size(); ++i) {
        if (args[i]->kind != emu::ArgKind::GlobalBuffer) continue;
        auto it = allocs_.upper_bound(argv[i]);
        if (it == allocs_.begin()) continue;
        --it;
        if (argv[i] >= it->first + std::max<uint64_t>(it->second, 1)) continue;
        bool seen = false;
        for (const auto& r : ranges) seen = seen || r.begin == it->first;
        if (seen) continue;
        ranges.push_back({it->first, it->first + it->second});
        l.regions.push_back({args[i]->name.empty() ? "arg" + std::to_string(i) : args[i]->name, it->second});
      }
      l.vgprs = ((spec->rsrc1 & 0x3f) + 1) * 4;
      l.sgprs = (((spec->rsrc1 >> 6) & 0xf) + 1) * 8;
      l.lds = spec->group_segment_fixed_size;
      l.scratch = spec->private_segment_fixed_size;
    }
    inner_.options().line_regions = ranges;
    inner_.launch(lookup, grid, workgroup, argv);
    l.profile = inner_.last_profile();
    for (size_t r = 0; r < l.regions.size() && r < l.profile.regions.size(); ++r) {
      l.regions[r].requested = l.profile.regions[r].requested;
      l.regions[r].distinct = l.profile.regions[r].distinct;
    }
    launches.push_back(std::move(l));
  }

  std::vector<Launch> launches;

 private:
  kernels::EmuTestDevice& inner_;
  std::map<uint64_t, size_t> allocs_;
};

struct Report {
  std::string lookup, family, dims;
  bool pass = false;
  std::string check;  // "pass" or the failure
  uint64_t dispatches = 0, groups = 0, waves = 0;
  uint64_t requested_bytes = 0, ideal_bytes = 0, dram_bytes = 0, cache_request_bytes = 0;
  emu::Profile profile;
  std::vector<Region> regions;
  uint32_t vgprs = 0, sgprs = 0, lds = 0, scratch = 0;
  double waves_per_simd = 0;
  const char* occupancy_limit = "";
  double t_dram = 0, t_valu = 0, t_scalar = 0, t_lds = 0, t_tex = 0, t_launch = 0, modeled = 0, bound = 0;
  const char* limiter = "";
};

// Waves per SIMD from the register and LDS use of one workgroup (GFX9 limits:
// 256 VGPRs per lane in granules of 4, 800 SGPRs per SIMD in granules of 16,
// 64 KiB LDS per CU shared by whole workgroups, at most 10 waves per SIMD).
// LDS-limited counts are averages over the CU's 4 SIMDs (3 one-wave
// workgroups per CU give 0.75).
double waves_per_simd(const Launch& l, const char** limit) {
  double by_vgpr = 256 / std::max<uint32_t>(l.vgprs, 4);
  double by_sgpr = 800 / ((std::max<uint32_t>(l.sgprs, 16) + 15) / 16 * 16);
  uint32_t waves_per_group = uint32_t((l.wg_size + 63) / 64);
  double by_lds = 10;
  if (l.lds) by_lds = double((65536 / l.lds) * waves_per_group) / kSimds;
  double w = std::min({10.0, by_vgpr, by_sgpr, by_lds});
  *limit = w == 10 ? "max" : w == by_vgpr ? "VGPR" : w == by_sgpr ? "SGPR" : "LDS";
  return w;
}

Report measure(const KernelDef& def, kernels::EmuTestDevice& emu_dev, const Case& c) {
  Report r;
  r.lookup = def.lookup;
  r.family = def.family;
  r.dims = c.describe();
  BenchDevice dev(emu_dev);
  try {
    kernels::CaseResult cr = def.run(dev, c);
    r.pass = cr.pass;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s (max abs %.3g, max rel %.3g)", cr.pass ? "pass" : "FAIL", cr.max_abs, cr.max_rel);
    r.check = buf;
    if (!cr.pass && !cr.note.empty()) r.check += ": " + cr.note;
  } catch (const std::exception& e) {
    r.check = std::string("FAIL: ") + e.what();
  }
  // The kernel's own launches (a test may also launch helpers); all when none match.
  std::vector<const Launch*> own;
  for (const auto& l : dev.launches)
    if (l.lookup == def.lookup) own.push_back(&l);
  if (own.empty())
    for (const auto& l : dev.launches) own.push_back(&l);
  r.waves_per_simd = 10;
  r.occupancy_limit = "max";
  for (const Launch* l : own) {
    r.dispatches++;
    r.groups += l->groups;
    r.profile.merge(l->profile);
    r.dram_bytes += (l->profile.distinct_lines_read + l->profile.distinct_lines_written) * 64;
    r.cache_request_bytes += l->profile.vmem_lines * 64;
    for (const auto& reg : l->regions) {
      auto it = std::find_if(r.regions.begin(), r.regions.end(), [&](const Region& x) { return x.name == reg.name; });
      if (it == r.regions.end()) {
        r.regions.push_back(reg);
      } else {
        it->requested += reg.requested;
        it->distinct += reg.distinct;
        it->bytes = std::max(it->bytes, reg.bytes);
      }
    }
    r.vgprs = std::max(r.vgprs, l->vgprs);
    r.sgprs = std::max(r.sgprs, l->sgprs);
    r.lds = std::max(r.lds, l->lds);
    r.scratch = std::max(r.scratch, l->scratch);
    const char* lim = "";
    double w = waves_per_simd(*l, &lim);
    if (w < r.waves_per_simd) {
      r.waves_per_simd = w;
      r.occupancy_limit = lim;
    }
  }
  const emu::Profile& p = r.profile;
  r.waves = p.waves;
  r.requested_bytes = p.bytes_read + p.bytes_written;
  r.ideal_bytes = def.ideal_bytes ? def.ideal_bytes(c) : 0;
  double cu_cycles = kComputeUnits * kClockHz;
  r.t_dram = double(r.dram_bytes) / kDramBytesPerSecond;
  r.t_valu = double(p.count(emu::InstClass::VALU)) * 64 / kLaneSlotsPerSecond;
  r.t_scalar = double(p.count(emu::InstClass::SALU) + p.count(emu::InstClass::SMEM) + p.count(emu::InstClass::Branch) +
                      p.count(emu::InstClass::Waitcnt) + p.count(emu::InstClass::Other)) /
               cu_cycles;
  r.t_lds = (kLdsCyclesPerInstruction * double(p.count(emu::InstClass::LDS)) + double(p.lds_bank_conflicts)) / cu_cycles;
  r.t_tex = double(p.vmem_lines) / cu_cycles;
  r.t_launch = kLaunchFloorSeconds * double(r.dispatches);
  struct Term {
    const char* name;
    double t;
  } terms[] = {{"DRAM", r.t_dram}, {"VALU", r.t_valu}, {"scalar", r.t_scalar}, {"LDS", r.t_lds}, {"tex", r.t_tex}};
  const Term* top = &terms[0];
  for (const Term& t : terms)
    if (t.t > top->t) top = &t;
  r.limiter = top->name;
  r.modeled = top->t + r.t_launch;
  r.bound = double(r.ideal_bytes) / kDramBytesPerSecond;
  return r;
}

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

void print_text(const Report& r) {
  const emu::Profile& p = r.profile;
  std::printf("\n== %s [%s]  %s  check: %s\n", r.lookup.c_str(), r.family.c_str(), r.dims.c_str(), r.check.c_str());
  std::printf("  dispatches %llu, workgroups %llu, waves %llu\n", (unsigned long long)r.dispatches,
              (unsigned long long)r.groups, (unsigned long long)r.waves);
  std::printf("  bytes requested by lanes   %s\n", mb(r.requested_bytes).c_str());
  if (r.ideal_bytes)
    std::printf("  ideal bytes                %s\n", mb(r.ideal_bytes).c_str());
  else
    std::printf("  ideal bytes                (not declared)\n");
  std::printf("  DRAM (lines read+written) %s%s\n", mb(r.dram_bytes).c_str(),
              r.ideal_bytes ? (" = " + std::to_string(double(r.dram_bytes) / double(r.ideal_bytes)).substr(0, 5) + "x ideal").c_str() : "");
  std::printf("  cache requests (lines x 64)%s = %.3fx DRAM\n", (" " + mb(r.cache_request_bytes)).c_str(),
              r.dram_bytes ? double(r.cache_request_bytes) / double(r.dram_bytes) : 0.0);
  for (const auto& reg : r.regions)
    std::printf("    %-12s %12llu B  lines requested %10llu  distinct %10llu  (%.3f requests per line)\n",
                reg.name.c_str(), (unsigned long long)reg.bytes, (unsigned long long)reg.requested,
                (unsigned long long)reg.distinct, reg.distinct ? double(reg.requested) / double(reg.distinct) : 0.0);
  std::printf("  wave-instructions %llu:", (unsigned long long)p.wave_instructions);
  for (int i = 0; i < emu::kInstClassCount; ++i)
    std::printf(" %s %llu", emu::inst_class_name(emu::InstClass(i)), (unsigned long long)p.by_class[size_t(i)]);
  std::printf("\n  VALU utilization %.1f%%, LDS bank-conflict cycles %llu\n", 100 * p.valu_utilization(),
              (unsigned long long)p.lds_bank_conflicts);
  std::printf("  VGPR %u, SGPR %u, LDS %u B, scratch %u B -> %.2f waves/SIMD (limit: %s)\n", r.vgprs, r.sgprs, r.lds,
              r.scratch, r.waves_per_simd, r.occupancy_limit);
  if (r.waves < 120 * kSimds)
    std::printf("  note: %llu waves cannot fill 480 SIMDs; the model assumes they could\n", (unsigned long long)r.waves);
  std::printf("  modeled: dram %s, valu %s, scalar %s, lds %s, tex %s, launch %s\n", us(r.t_dram).c_str(),
              us(r.t_valu).c_str(), us(r.t_scalar).c_str(), us(r.t_lds).c_str(), us(r.t_tex).c_str(),
              us(r.t_launch).c_str());
  std::printf("  MODELED time %s (%s-bound)", us(r.modeled).c_str(), r.limiter);
  if (r.bound > 0) std::printf(", bandwidth bound %s, modeled/bound %.3fx", us(r.bound).c_str(), r.modeled / r.bound);
  std::printf("\n");
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
    << ",\"modeled\":{\"dram_s\":" << r.t_dram << ",\"valu_s\":" << r.t_valu << ",\"scalar_s\":" << r.t_scalar
    << ",\"lds_s\":" << r.t_lds << ",\"tex_s\":" << r.t_tex << ",\"launch_s\":" << r.t_launch
    << ",\"time_s\":" << r.modeled << ",\"limiter\":\"" << r.limiter << "\",\"bandwidth_bound_s\":" << r.bound
    << "}}";
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

int usage(int code) {
  std::fprintf(code ? stderr : stdout,
               "usage: k100-bench kernels [--only a,b] [--group g,h] [--dims n=4096,k=4096] [--json] [--plot roofline.png]\n"
               "                          [--package file.hsaco] [--list]\n"
               "Runs each kernel's benchmark case on the emulator with detailed profiling and prints traffic,\n"
               "instruction mix, occupancy and a MODELED K100_LC time (formula in the header).\n");
  return code;
}

int run(int argc, char** argv) {
  std::vector<std::string> only, groups;
  std::map<std::string, int64_t> dims_override;
  bool json = false, list = false;
  std::string plot, package;
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
      for (auto& s : split(value("--only"), ',')) only.push_back(s);
    } else if (a == "--group") {
      for (auto& s : split(value("--group"), ',')) groups.push_back(s);
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
    } else if (a == "--plot") {
      plot = value("--plot");
    } else if (a == "--package") {
      package = value("--package");
    } else if (a == "--list") {
      list = true;
    } else if (a == "--help" || a == "-h") {
      return usage(0);
    } else {
      std::fprintf(stderr, "k100-bench kernels: unknown option '%s'\n", a.c_str());
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
    std::vector<Report> reports;
    if (!json) std::printf("%s", kModelHeader);
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
      reports.push_back(measure(*d, *dev, c));
      if (!json) print_text(reports.back());
      std::fflush(stdout);
    }
    std::string all = "{\"model\":\"" + json_escape(kModelHeader) + "\",\"kernels\":[";
    for (size_t i = 0; i < reports.size(); ++i) all += (i ? ",\n" : "\n") + to_json(reports[i]);
    all += "\n]}\n";
    if (json) std::printf("%s", all.c_str());
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
    bool ok = true;
    for (const auto& r : reports) ok = ok && r.pass;
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "k100-bench kernels: %s\n", e.what());
    return 1;
  }
}

k100::bench::Register reg("kernels", "per-kernel traffic, instruction mix, occupancy and modeled K100_LC time", run);

}  // namespace
