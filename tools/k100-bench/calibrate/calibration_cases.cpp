#include "calibration_cases.h"

#include <cmath>
#include <cstring>

#include "k100/base/error.h"
#include "probe_kernels.h"

namespace k100::bench::calibrate {

namespace {

using timing::MachineParams;
using timing::Timing;

constexpr uint32_t kCus = 120;
constexpr double kGiB = 1024.0 * 1024 * 1024;
// Emulated size of the 2 GiB read probes and the fill (see `scaling`).
constexpr double kScaledBytes = 256.0 * 1024 * 1024;

struct Buffer {
  emu::Device& dev;
  uint64_t addr;
  Buffer(emu::Device& d, uint64_t bytes) : dev(d), addr(d.alloc(bytes)) {}
  ~Buffer() { dev.free(addr); }
};

template <class T>
T read_at(emu::Device& dev, uint64_t addr) {
  T v;
  dev.read(addr, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&v), sizeof v));
  return v;
}

void check(bool ok, const std::string& what) {
  if (!ok) throw Error("calibrate: probe result check failed: " + what);
}

std::shared_ptr<Recording> keep(Recording r) { return std::make_shared<Recording>(std::move(r)); }

std::string limiter_of(const Timing& t) { return timing::limiter_name(t.limiter); }

// The numbers behind a modeled run, for --detail.
std::string detail_of(const Timing& t) {
  std::string out;
  for (const auto& d : t.dispatches) {
    char b[512];
    std::snprintf(b, sizeof b,
                  "exec %.2f us; HBM %.0f%% busy, %.1f MB read, %.1f MB written, %.1f us of activations; L2 %llu hits, %llu misses; "
                  "host link %.0f%%; issue %.0f%%; %.0f KiB in flight; %.0f of %.0f waves resident; waits %.0f%%; %s",
                  d.exec_s * 1e6, 100 * d.dram_utilization, d.dram_bytes_read / 1e6, d.dram_bytes_written / 1e6,
                  d.dram_activation_s * 1e6,
                  (unsigned long long)d.l2_hits, (unsigned long long)d.l2_misses, 100 * d.host_utilization,
                  100 * d.issue_utilization, d.bytes_in_flight / 1024, d.resident_waves, d.wave_capacity,
                  100 * d.wait_fraction, d.reason.c_str());
    out = b;  // the last dispatch (repeated runs are alike)
  }
  return out;
}

// ---- section 2: FMA / dot4 / dot8

CalibrationCase alu_case(ProbeDevice& dev, AluOp op, double measured_ms) {
  // The measured run: 120 CU x 8 workgroups x 256 lanes, 20000 trips, the
  // launch cost (0 trips) subtracted. Emulated: the same grid with 100 and
  // 200 trips; every wave stays resident for the whole kernel at 8 waves per
  // SIMD, so the time of one trip in steady state, (t(200) - t(100)) / 100,
  // times 20000 is the measured quantity (the difference also cancels the
  // start-up, as the 0-trip subtraction does on the card).
  constexpr uint32_t kTrips = 100, kMeasuredTrips = 20000, kGroups = kCus * 8, kSize = 256;
  const emu::Program& p = dev.load(alu_probe(op));
  const std::string kernel = op == AluOp::Fma ? "probe_fma" : op == AluOp::Dot4 ? "probe_dot4" : "probe_dot8";
  const emu::KernelSpec& spec = *p.find_kernel(kernel);
  Buffer out(dev.device(), uint64_t(kGroups) * kSize * 4);
  auto run = [&](uint32_t trips) {
    emu::KernargBuilder k(spec);
    k.set_value(0, out.addr).set_value(1, trips).set_value(2, kSize);
    auto rec = keep(dev.run(p, kernel, emu::LaunchConfig::groups({kGroups}, {kSize}), k.bytes()));
    double want = alu_probe_expected(op, trips);
    uint64_t last = out.addr + (uint64_t(kGroups) * kSize - 1) * 4;
    bool ok = op == AluOp::Fma ? read_at<float>(dev.device(), out.addr) == float(want) &&
                                     read_at<float>(dev.device(), last) == float(want)
                               : read_at<int32_t>(dev.device(), out.addr) == int32_t(want) &&
                                     read_at<int32_t>(dev.device(), last) == int32_t(want);
    check(ok, std::string(alu_op_name(op)) + " sum after " + std::to_string(trips) + " trips");
    return rec;
  };
  auto shorter = run(kTrips), longer = run(2 * kTrips);
  CalibrationCase c;
  c.name = std::string(alu_op_name(op)) + " probe, 960 x 256 lanes, 16 chains, 20000 trips";
  c.section = "2";
  c.measured = measured_ms;
  c.unit = "ms";
  c.scaling = "100 and 200 trips emulated; steady-state time per trip x 20000";
  c.modeled = [=](const MachineParams& m) {
    return (longer->model(m).total_s - shorter->model(m).total_s) * (double(kMeasuredTrips) / kTrips) * 1e3;
  };
  c.limiter = [=](const MachineParams& m) { return limiter_of(longer->model(m)); };
  c.detail = [=](const MachineParams& m) { return detail_of(longer->model(m)); };
  return c;
}

// ---- section 3: the read probe and its sweep, the fill

struct StreamGrid {
  uint32_t groups, size, threads, step;  // step: bytes per trip of one stream
  uint32_t trips;
  uint64_t bytes;  // emulated
};

// `trip_multiple`: the trip count is rounded to a multiple of it (a
// pipelined probe runs trips in pairs).
StreamGrid stream_grid(uint32_t groups, uint32_t size, int streams, uint32_t trip_multiple = 1) {
  StreamGrid g{groups, size, groups * size, groups * size * 16, 0, 0};
  g.trips = trip_multiple *
            uint32_t(std::max(1.0, std::round(kScaledBytes / (double(streams) * g.step * trip_multiple))));
  g.bytes = uint64_t(streams) * g.trips * g.step;
  return g;
}

// Seconds for `full_bytes` at the emulated run's steady state: the floor
// once, the execution scaled by the byte ratio.
double scaled_seconds(const Timing& t, double run_bytes, double full_bytes) {
  double floor = 0, exec = 0;
  for (const auto& d : t.dispatches) {
    floor += d.floor_s;
    exec += d.exec_s;
  }
  return floor + exec * (full_bytes / run_bytes);
}

struct ReadRecording {
  std::shared_ptr<Recording> rec;
  StreamGrid grid;
  uint32_t groups_per_cu;
  int streams, in_flight;
};

ReadRecording record_read(ProbeDevice& dev, uint32_t groups_per_cu, int streams, int in_flight = 1) {
  const ReadProbe probe{streams, false, 0, in_flight};
  const emu::Program& p = dev.load(read_probe(probe));
  const std::string kernel = in_flight > 1 ? "probe_read_pipelined" : "probe_read";
  const emu::KernelSpec& spec = *p.find_kernel(kernel);
  StreamGrid g = stream_grid(kCus * groups_per_cu, 128, streams, uint32_t(in_flight));
  const uint64_t stride = uint64_t(g.trips) * g.step;
  // The first dword of 16-byte piece i holds i, so every thread's sum is known.
  std::vector<uint32_t> init(g.bytes / 4, 0);
  for (size_t i = 0; i < init.size(); i += 4) init[i] = uint32_t(i / 4);
  Buffer src(dev.device(), g.bytes), out(dev.device(), uint64_t(g.threads) * 4);
  dev.device().write(src.addr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(init.data()), g.bytes));
  init = {};
  emu::KernargBuilder k(spec);
  k.set_value(0, src.addr).set_value(1, out.addr).set_value(2, stride).set_value(3, g.trips).set_value(4, g.size).set_value(5, g.step);
  auto rec = keep(dev.run(p, kernel, emu::LaunchConfig::groups({g.groups}, {g.size}), k.bytes()));
  for (uint32_t tid : {0u, 1u, g.threads / 2, g.threads - 1}) {
    uint64_t want = 0;
    for (int u = 0; u < streams; ++u)
      for (uint32_t i = 0; i < g.trips; ++i) want += uint64_t(u) * (stride / 16) + uint64_t(i) * g.threads + tid;
    check(read_at<uint32_t>(dev.device(), out.addr + uint64_t(tid) * 4) == uint32_t(want),
          "read probe sum of thread " + std::to_string(tid));
  }
  return {rec, g, groups_per_cu, streams, in_flight};
}

// Back-to-back runs cost the floor each time and the same execution, so the
// modeled bandwidth of `repeat` runs equals that of one.
CalibrationCase read_case(const ReadRecording& r, double measured_gbs, const std::string& what) {
  CalibrationCase c;
  c.name = what + ": " + std::to_string(r.groups_per_cu) + " wg/CU x 128, " + std::to_string(r.streams) + " stream" +
           (r.streams > 1 ? "s" : "") + " per thread" +
           (r.in_flight > 1 ? ", " + std::to_string(r.in_flight) + " loads in flight" : "");
  c.section = "3";
  c.measured = measured_gbs;
  c.unit = "GB/s";
  c.scaling = std::to_string(r.grid.trips) + " trips (" + std::to_string(r.grid.bytes >> 20) +
              " MiB) emulated on the measured grid; steady state scaled to 2 GiB";
  const double run_bytes = double(r.grid.bytes);
  auto rec = r.rec;
  c.modeled = [=](const MachineParams& m) { return 2 * kGiB / scaled_seconds(rec->model(m), run_bytes, 2 * kGiB) / 1e9; };
  c.limiter = [=](const MachineParams& m) { return limiter_of(rec->model(m)); };
  c.detail = [=](const MachineParams& m) { return detail_of(rec->model(m)); };
  return c;
}

CalibrationCase fill_case(ProbeDevice& dev, double measured_gbs) {
  const emu::Program& p = dev.load(fill_probe());
  const emu::KernelSpec& spec = *p.find_kernel("probe_fill");
  StreamGrid g = stream_grid(kCus * 8, 256, 1);
  Buffer dst(dev.device(), g.bytes);
  emu::KernargBuilder k(spec);
  float value = 3.25f;
  k.set_value(0, dst.addr).set_value(1, value).set_value(2, g.trips).set_value(3, g.size).set_value(4, g.step);
  auto rec = keep(dev.run(p, "probe_fill", emu::LaunchConfig::groups({g.groups}, {g.size}), k.bytes()));
  for (uint64_t at : {uint64_t(0), g.bytes / 2 + 4, g.bytes - 4}) check(read_at<float>(dev.device(), dst.addr + at) == value, "fill value");
  CalibrationCase c;
  c.name = "float4 fill, 960 x 256 lanes grid-stride";
  c.section = "3";
  c.measured = measured_gbs;
  c.unit = "GB/s";
  c.scaling = std::to_string(g.bytes >> 20) + " MiB; bandwidth of the execution (size not given)";
  const double bytes = double(g.bytes);
  c.modeled = [=](const MachineParams& m) {
    Timing t = rec->model(m);
    return bytes / t.dispatches.at(0).exec_s / 1e9;
  };
  c.limiter = [=](const MachineParams& m) { return limiter_of(rec->model(m)); };
  c.detail = [=](const MachineParams& m) { return detail_of(rec->model(m)); };
  return c;
}

CalibrationCase gemv_case(ProbeDevice& dev, uint32_t rows, uint32_t waves_per_group, double measured_gbs) {
  const emu::Program& p = dev.load(gemv_probe());
  const emu::KernelSpec& spec = *p.find_kernel("probe_gemv");
  const uint32_t k = kGemvProbeColumns, groups = rows / 8 / waves_per_group;
  std::vector<float> w(size_t(rows) * k), x(k);
  for (size_t i = 0; i < w.size(); ++i) w[i] = float(int((uint32_t(i) * 2654435761u) >> 29) - 4);  // small integers: exact sums
  for (uint32_t i = 0; i < k; ++i) x[i] = float(int(i % 5) - 2);
  Buffer bw(dev.device(), w.size() * 4), bx(dev.device(), k * 4), by(dev.device(), uint64_t(rows) * 4);
  dev.device().write(bw.addr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4));
  dev.device().write(bx.addr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(x.data()), k * 4));
  emu::KernargBuilder a(spec);
  a.set_value(0, bw.addr).set_value(1, bx.addr).set_value(2, by.addr).set_value(3, waves_per_group);
  auto rec = keep(dev.run(p, "probe_gemv", emu::LaunchConfig::groups({groups}, {64 * waves_per_group}), a.bytes()));
  for (uint32_t r : {0u, 1u, 7u, rows / 2 + 3, rows - 1}) {
    float want = 0;
    for (uint32_t j = 0; j < k; ++j) want += w[size_t(r) * k + j] * x[j];
    check(read_at<float>(dev.device(), by.addr + uint64_t(r) * 4) == want, "gemv row " + std::to_string(r));
  }
  const double bytes = double(rows) * k * 4;
  CalibrationCase c;
  char name[160];
  std::snprintf(name, sizeof name, "f32 GEMV read, %.1f MB of weights, %u workgroups x %u", bytes / 1e6, groups,
                64 * waves_per_group);
  c.name = name;
  c.section = "3";
  c.measured = measured_gbs;
  c.unit = "GB/s";
  c.scaling = "full size";
  c.modeled = [=](const MachineParams& m) { return bytes / rec->model(m).total_s / 1e9; };
  c.limiter = [=](const MachineParams& m) { return limiter_of(rec->model(m)); };
  c.detail = [=](const MachineParams& m) { return detail_of(rec->model(m)); };
  return c;
}

// ---- section 6: dispatch floor

CalibrationCase empty_case(ProbeDevice& dev, uint32_t groups, uint32_t size, int repeat, double measured_us,
                           const std::string& name) {
  const emu::Program& p = dev.load(empty_probe());
  emu::KernargBuilder k(*p.find_kernel("probe_empty"));
  auto rec = keep(dev.run(p, "probe_empty", emu::LaunchConfig::groups({groups}, {size}), k.bytes(), repeat));
  CalibrationCase c;
  c.name = name;
  c.section = "6";
  c.measured = measured_us;
  c.unit = "us";
  c.scaling = "full size";
  c.modeled = [=](const MachineParams& m) { return rec->model(m).total_s * 1e6; };
  c.limiter = [=](const MachineParams& m) { return limiter_of(rec->model(m)); };
  c.detail = [=](const MachineParams& m) { return detail_of(rec->model(m)); };
  return c;
}

}  // namespace

std::vector<CalibrationCase> record_calibration_cases(ProbeDevice& dev,
                                                      const std::function<void(const std::string&)>& progress) {
  std::vector<CalibrationCase> cases;
  auto add = [&](CalibrationCase c) {
    if (progress) progress(c.name);
    cases.push_back(std::move(c));
  };
  add(alu_case(dev, AluOp::Fma, 8.805));
  add(alu_case(dev, AluOp::Dot4, 8.816));
  add(alu_case(dev, AluOp::Dot8, 8.812));
  {
    ReadRecording one = record_read(dev, 1, 4);
    add(read_case(one, 843.5, "read 2 GiB, single run"));
    add(read_case(one, 876.8, "read 2 GiB, 50 runs back to back"));
  }
  add(read_case(record_read(dev, 2, 4), 516, "read 2 GiB sweep"));
  add(read_case(record_read(dev, 4, 4), 535, "read 2 GiB sweep"));
  add(read_case(record_read(dev, 8, 4), 457, "read 2 GiB sweep"));
  // One stream per thread keeps 1 KiB per wave in flight per load: at the
  // HBM round trip of a lone load (~390 ns) one load per stream would read at
  // most ~630 GB/s, so the measured 805-863 GB/s needs a loop that keeps the
  // next trip's load in flight while it waits (see docs/PERFORMANCE.md).
  add(read_case(record_read(dev, 1, 1, 2), 834, "read 2 GiB sweep (805-863)"));
  add(fill_case(dev, 618));
  add(gemv_case(dev, 16384, 4, 289));
  add(gemv_case(dev, 65536, 1, 670));
  add(empty_case(dev, 1, 64, 1, 7.25, "empty kernel, grid 1 x 64 (7.1-7.4)"));
  add(empty_case(dev, 1024, 256, 1, 7.25, "empty kernel, grid 1024 x 256 (7.1-7.4)"));
  add(empty_case(dev, 1, 64, 16, 112, "16 back-to-back dispatches"));
  return cases;
}

}  // namespace k100::bench::calibrate
