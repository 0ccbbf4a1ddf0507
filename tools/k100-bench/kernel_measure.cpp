// k100-bench kernels / validate: running one kernel case and measuring it.
#include "kernel_measure.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>

#include "k100/base/error.h"
#include "k100/timing/occupancy.h"

namespace k100::bench {

const char* const kModelHeader =
    "MODELED K100_LC time (not a measurement), from the timing model (k100/timing, calibrated: k100-bench calibrate):\n"
    "  the kernel's recorded per-wave instruction streams scheduled on 120 CUs x 4 SIMDs at 1.27 GHz under the\n"
    "  occupancy limits; memory operations complete at their s_waitcnt after L2 / HBM / host-link latency and\n"
    "  queueing (bytes in flight follow from the code); t = sum over dispatches of (dispatch floor + execution)\n"
    "  achieved = ideal bytes / t, % of 896 GB/s; limiter: the unit busy >= 70% of the execution, else why\n"
    "  too little was in flight (grid tail, occupancy, latency / bytes in flight); launch when the floor dominates\n"
    "Plain roofline (a bound, not a result): max(t_dram, t_valu, t_scalar, t_lds, t_tex) + 7.3 us per dispatch\n"
    "  t_dram   = DRAM bytes / 896 GB/s; DRAM bytes = (distinct 64-byte lines read + distinct lines written) x 64\n"
    "  t_valu   = VALU wave-instructions x 64 lanes / 9.7536e12 lane-slots/s (120 CU x 64 x 1.27 GHz)\n"
    "  t_scalar = (SALU + SMEM + branch + waitcnt + other) wave-instructions / (120 CU x 1.27 GHz)\n"
    "  t_lds    = (2 x DS wave-instructions + bank-conflict cycles) / (120 CU x 1.27 GHz)\n"
    "  t_tex    = cache-request lines (distinct lines per memory instruction, summed) / (120 CU x 1.27 GHz)\n"
    "  bound    = ideal bytes / 896 GB/s (what the operation must move at least)\n";

namespace {

using kernels::Case;
using kernels::KernelDef;

// K100_LC constants (docs/PERFORMANCE.md, "The model").
constexpr double kComputeUnits = 120;
constexpr double kClockHz = 1.27e9;
constexpr double kLaneSlotsPerSecond = kComputeUnits * 64 * kClockHz;  // 9.7536e12
constexpr double kLaunchFloorSeconds = 7.3e-6;
constexpr double kLdsCyclesPerInstruction = 2;  // 256 bytes per wave at 128 B/clk per CU



struct Launch {
  std::string lookup;
  uint64_t groups = 0, wg_size = 0;
  emu::Profile profile;
  std::vector<Region> regions;
  uint32_t vgprs = 0, sgprs = 0, lds = 0, scratch = 0;
  std::vector<std::unique_ptr<timing::DispatchTrace>> traces;  // the timing model's recording
};

// A TestDevice over the emulator that records allocations and per-launch profiles.
class BenchDevice : public kernels::TestDevice {
 public:
  explicit BenchDevice(kernels::EmuTestDevice& inner) : inner_(inner) {
    inner_.options().detailed_profile = true;
    inner_.options().observer = &recorder_;
  }
  ~BenchDevice() override { inner_.options().observer = nullptr; }
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
    recorder_.clear();
    inner_.launch(lookup, grid, workgroup, argv);
    l.traces = recorder_.take();
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
  timing::TraceRecorder recorder_;
};


}  // namespace

Report measure(const KernelDef& def, kernels::EmuTestDevice& emu_dev, const Case& c, const timing::MachineParams& m) {
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
  r.occupancy_limit = "wave slots";
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
    for (const auto& t : l->traces) {
      timing::Occupancy o = timing::occupancy(t->info, m);
      if (o.resident_waves_per_simd < r.waves_per_simd) {
        r.waves_per_simd = o.resident_waves_per_simd;
        r.occupancy_limit = timing::occupancy_limit_name(o.limit);
      }
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
  r.roofline_term = top->name;
  r.roofline = top->t + r.t_launch;
  r.bound = double(r.ideal_bytes) / kDramBytesPerSecond;
  // The timing model over the kernel's own dispatches.
  std::vector<const timing::DispatchTrace*> sequence;
  for (const Launch* l : own)
    for (const auto& t : l->traces) sequence.push_back(t.get());
  try {
    if (sequence.empty()) throw Error("no dispatch was recorded");
    r.timing = timing::simulate(sequence, m);
    r.timed = true;
    r.modeled = r.timing.total_s;
    if (r.modeled > 0) {
      r.achieved_gbs = double(r.ideal_bytes) / r.modeled / 1e9;
      r.peak_fraction = double(r.ideal_bytes) / r.modeled / kDramBytesPerSecond;
    }
  } catch (const std::exception& e) {
    r.timing_error = e.what();
  }
  return r;
}

}  // namespace k100::bench
