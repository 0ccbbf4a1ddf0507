#include "replica_runs.h"

#include <cmath>
#include <cstdio>
#include <span>

#include "k100/base/error.h"
#include "replica_kernels.h"

namespace k100::bench::validate {

namespace {

// Inputs: a fixed pseudo-random sequence in [-1, 1) (the values do not change
// a stream, only the check needs them).
std::vector<float> inputs(size_t n, uint32_t seed) {
  std::vector<float> v(n);
  uint64_t x = 0x9e3779b97f4a7c15ull * (seed + 1);
  for (auto& f : v) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    f = float(double(x >> 40) / double(1u << 23) - 1.0);
  }
  return v;
}

struct DeviceArray {
  emu::Device& dev;
  uint64_t addr;
  size_t n;
  DeviceArray(emu::Device& d, size_t count) : dev(d), addr(d.alloc(count * 4 + 4)), n(count) {}
  DeviceArray(emu::Device& d, const std::vector<float>& v) : DeviceArray(d, v.size()) {
    dev.write(addr, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4));
  }
  ~DeviceArray() { dev.free(addr); }
  std::vector<float> download() const {
    std::vector<float> v(n);
    dev.read(addr, std::span<uint8_t>(reinterpret_cast<uint8_t*>(v.data()), n * 4));
    return v;
  }
};

// "pass", or the first element outside |got - want| <= tol (floor + |want|).
std::string compare(const std::vector<float>& got, const std::vector<double>& want, double tol, const std::string& what,
                    double floor = 1) {
  for (size_t i = 0; i < want.size(); ++i)
    if (!(std::fabs(got[i] - want[i]) <= tol * (floor + std::fabs(want[i])))) {
      char b[160];
      std::snprintf(b, sizeof b, "%s[%zu] = %.7g, reference %.7g", what.c_str(), i, double(got[i]), want[i]);
      return b;
    }
  return "pass";
}

void finish(ReplicaRun& r, std::string check) {
  r.pass = check == "pass";
  r.check = std::move(check);
}

const emu::Program& load(calibrate::ProbeDevice& dev, const codeobj::CodeObject& co) { return dev.load(co); }

}  // namespace

ReplicaRun run_rmsnorm(calibrate::ProbeDevice& dev, int loads_per_wait, uint32_t dim) {
  const std::string name = "rmsnorm_rep" + std::to_string(loads_per_wait) + "_k";
  const emu::Program& p = load(dev, rmsnorm_replica(loads_per_wait));
  auto hx = inputs(dim, 1), hw = inputs(dim, 2);
  const float eps = 1e-6f;
  DeviceArray x(dev.device(), hx), w(dev.device(), hw), y(dev.device(), dim);
  emu::KernargBuilder k(*p.find_kernel(name));
  k.set_value(0, y.addr).set_value(1, x.addr).set_value(2, w.addr).set_value(3, dim).set_value(4, eps);
  ReplicaRun r;
  r.recording = dev.run(p, name, emu::LaunchConfig::groups({1}, {64}), k.bytes());
  r.timed = r.recording.sequence();
  double ss = 0;
  for (float v : hx) ss += double(v) * v;
  const double scale = 1 / std::sqrt(ss / dim + eps);
  std::vector<double> want(dim);
  for (uint32_t i = 0; i < dim; ++i) want[i] = hx[i] * scale * hw[i];
  finish(r, compare(y.download(), want, 1e-5, name + " y"));
  return r;
}

ReplicaRun run_softmax(calibrate::ProbeDevice& dev, int columns_per_lane, uint32_t cols) {
  const std::string name = "softmax_rep" + std::to_string(columns_per_lane) + "_k";
  const emu::Program& p = load(dev, softmax_replica(columns_per_lane));
  auto hx = inputs(cols, 3);
  DeviceArray x(dev.device(), hx), y(dev.device(), cols);
  emu::KernargBuilder k(*p.find_kernel(name));
  k.set_value(0, y.addr).set_value(1, x.addr).set_value(2, 1u).set_value(3, cols).set_value(4, 64u);
  ReplicaRun r;
  r.recording = dev.run(p, name, emu::LaunchConfig::groups({1}, {64}), k.bytes());
  r.timed = r.recording.sequence();
  double m = 0, s = 0;  // the measured generator's max starts at 0
  for (float v : hx) m = std::max(m, double(v));
  for (float v : hx) s += std::exp(v - m);
  std::vector<double> want(cols);
  for (uint32_t i = 0; i < cols; ++i) want[i] = std::exp(hx[i] - m) / s;
  finish(r, compare(y.download(), want, 1e-4, name + " y", 0));
  return r;
}

ReplicaRun run_attention(calibrate::ProbeDevice& dev, const AttentionShape& s) {
  const uint32_t H = s.heads, dh = s.dh, n = s.n_kv, nsplit = 1u << s.cshift, vstride = H * dh;
  if (n % nsplit || (n >> s.cshift) % 64 || (n >> s.cshift) > 4096)
    throw Error("validate: attention replica needs n_kv / nsplit a multiple of 64, at most 4096 (n_kv " +
                std::to_string(n) + ", nsplit " + std::to_string(nsplit) + ")");
  const std::string part = "flash_dec_part_rep" + std::to_string(dh) + "_" + std::to_string(s.batch) + "_k",
                    comb = "flash_dec_comb_rep" + std::to_string(dh) + "_k";
  const emu::Program& pp = load(dev, part_replica(int(dh), s.batch));
  const emu::Program& pc = load(dev, combine_replica(int(dh)));
  auto hq = inputs(size_t(H) * dh, 4), hk = inputs(size_t(H) * dh * n, 5), hv = inputs(size_t(n) * vstride, 6);
  const float inv = float(1 / std::sqrt(double(dh)));
  DeviceArray q(dev.device(), hq), kt(dev.device(), hk), v(dev.device(), hv);
  DeviceArray po(dev.device(), size_t(H) * nsplit * dh), pm(dev.device(), size_t(H) * nsplit),
      pl(dev.device(), size_t(H) * nsplit), out(dev.device(), size_t(H) * dh);
  emu::KernargBuilder ka(*pp.find_kernel(part));
  ka.set_value(0, po.addr).set_value(1, pm.addr).set_value(2, pl.addr).set_value(3, q.addr).set_value(4, kt.addr);
  ka.set_value(5, v.addr).set_value(6, n).set_value(7, dh).set_value(8, n).set_value(9, n).set_value(10, s.cshift);
  ka.set_value(11, inv).set_value(12, vstride);
  emu::KernargBuilder kb(*pc.find_kernel(comb));
  kb.set_value(0, out.addr).set_value(1, po.addr).set_value(2, pm.addr).set_value(3, pl.addr).set_value(4, dh);
  kb.set_value(5, nsplit).set_value(6, inv);
  ReplicaRun r;
  calibrate::Recording a = dev.run(pp, part, emu::LaunchConfig::groups({H * nsplit}, {64}), ka.bytes());
  calibrate::Recording b = dev.run(pc, comb, emu::LaunchConfig::groups({H}, {64}), kb.bytes());
  for (auto& d : a.dispatches) r.recording.dispatches.push_back(std::move(d));
  for (auto& d : b.dispatches) r.recording.dispatches.push_back(std::move(d));
  if (s.time_part) r.timed.push_back(r.recording.dispatches[0].get());
  if (s.time_combine) r.timed.push_back(r.recording.dispatches[1].get());
  // Host attention: out[h][d] = sum_j softmax_j(q_h . k_hj inv) v[j][h dh + d].
  std::vector<double> want(size_t(H) * dh, 0.0);
  for (uint32_t h = 0; h < H; ++h) {
    std::vector<double> sc(n);
    double m = -INFINITY, sum = 0;
    for (uint32_t j = 0; j < n; ++j) {
      double dot = 0;
      for (uint32_t d = 0; d < dh; ++d) dot += double(hq[h * dh + d]) * hk[(size_t(h) * dh + d) * n + j];
      sc[j] = dot;
      m = std::max(m, dot);
    }
    for (uint32_t j = 0; j < n; ++j) {
      sc[j] = std::exp((sc[j] - m) * inv);
      sum += sc[j];
    }
    for (uint32_t j = 0; j < n; ++j)
      for (uint32_t d = 0; d < dh; ++d) want[h * dh + d] += sc[j] * hv[size_t(j) * vstride + h * dh + d] / sum;
  }
  finish(r, compare(out.download(), want, 1e-4, comb + " out"));
  return r;
}

}  // namespace k100::bench::validate
