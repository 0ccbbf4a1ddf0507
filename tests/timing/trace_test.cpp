// The recorder: what a wave's stream holds, and that it does not depend on
// how the emulator ran the waves.
#include <gtest/gtest.h>

#include "k100/base/error.h"
#include "probe_runs.h"

namespace k100::timing {
namespace {

using bench::calibrate::ProbeDevice;
using bench::calibrate::ReadProbe;

const TraceOp* first_of(const WaveTrace& w, OpKind k) {
  for (const TraceOp& op : w.ops)
    if (op.kind == k) return &op;
  return nullptr;
}

TEST(TraceRecorder, LoadsAreLineRunsAndWaitsAreDecoded) {
  ProbeDevice dev;
  auto rec = test::run_read(dev, ReadProbe{4, false, 0}, 2, 128, 3);
  ASSERT_EQ(rec.dispatches.size(), 1u);
  const DispatchTrace& d = *rec.dispatches[0];
  EXPECT_FALSE(d.faulted);
  EXPECT_EQ(d.info.kernel, "probe_read");
  EXPECT_EQ(d.info.waves_per_workgroup, 2u);
  ASSERT_EQ(d.workgroups.size(), 2u);
  const WaveTrace& w = d.workgroups[1].waves[1];
  // The kernel-argument loads read host memory (the kernarg segment).
  const TraceOp* s = first_of(w, OpKind::SmemLoad);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->aux, 1) << "kernarg load not recognised as host memory";
  // s_load_dwordx8 at 0 and s_load_dword at 32 share the 64-byte line: the
  // first request carries both (36 bytes), the second is served by it.
  EXPECT_EQ(s->arg, 36u);
  const TraceOp* second = nullptr;
  for (const TraceOp& op : w.ops)
    if (op.kind == OpKind::SmemLoad && &op != s && !second) second = &op;
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(second->aux, 2);
  EXPECT_EQ(second->arg, 0u);
  // 3 trips x 4 streams of one dwordx4 per lane: 12 loads, each one run of
  // 16 lines (1 KiB), each its own segment within its trip.
  int loads = 0, waits = 0;
  for (const TraceOp& op : w.ops) {
    if (op.kind == OpKind::VmemLoad) {
      ++loads;
      ASSERT_EQ(op.count, 1);
      EXPECT_EQ(run_count(w.lines[op.arg]), 16u);
      EXPECT_EQ(op.aux, 16);
    }
    if (op.kind == OpKind::Wait && op.count == 0) ++waits;
  }
  EXPECT_EQ(loads, 12);
  EXPECT_GE(waits, 3);  // vmcnt(0) once per trip
  EXPECT_EQ(w.ops.back().kind, OpKind::End);
  // Consecutive ALU instructions are one run.
  const TraceOp* salu = first_of(w, OpKind::Salu);
  ASSERT_NE(salu, nullptr);
  EXPECT_GE(salu->count, 1);
}

TEST(TraceRecorder, StreamsDoNotDependOnHostThreads) {
  ProbeDevice one(1), two(2);
  auto a = test::run_read(one, ReadProbe{2, true, 0}, 6, 128, 4);
  auto b = test::run_read(two, ReadProbe{2, true, 0}, 6, 128, 4);
  const DispatchTrace &da = *a.dispatches[0], &db = *b.dispatches[0];
  ASSERT_EQ(da.workgroups.size(), db.workgroups.size());
  for (size_t g = 0; g < da.workgroups.size(); ++g)
    for (size_t w = 0; w < da.workgroups[g].waves.size(); ++w) {
      const WaveTrace &x = da.workgroups[g].waves[w], &y = db.workgroups[g].waves[w];
      ASSERT_EQ(x.ops.size(), y.ops.size());
      for (size_t i = 0; i < x.ops.size(); ++i) {
        EXPECT_EQ(x.ops[i].kind, y.ops[i].kind);
        EXPECT_EQ(x.ops[i].count, y.ops[i].count);
      }
      // Both devices allocate the same buffers in the same order, so the
      // addresses agree line for line.
      EXPECT_EQ(x.lines, y.lines);
    }
  // The modeled time is a function of the streams alone.
  EXPECT_DOUBLE_EQ(a.model(k100_lc()).total_s, b.model(k100_lc()).total_s);
}

}  // namespace
}  // namespace k100::timing

namespace k100::timing {
namespace {

// Observing changes nothing the kernel computes.
TEST(TraceRecorder, ObservedRunComputesTheSameResult) {
  bench::calibrate::ProbeDevice dev;
  const emu::Program& p = dev.load(bench::calibrate::read_probe(bench::calibrate::ReadProbe{2, false, 0}));
  const uint32_t groups = 3, size = 128, trips = 5, step = groups * size * 16;
  const uint64_t stride = uint64_t(trips) * step;
  emu::Device& d = dev.device();
  uint64_t src = d.alloc(2 * stride), out = d.alloc(groups * size * 4);
  std::vector<uint32_t> init(2 * stride / 4);
  for (size_t i = 0; i < init.size(); ++i) init[i] = uint32_t(i * 2654435761u);
  d.write(src, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(init.data()), init.size() * 4));
  emu::KernargBuilder k(*p.find_kernel("probe_read"));
  k.set_value(0, src).set_value(1, out).set_value(2, stride).set_value(3, trips).set_value(4, size).set_value(5, step);
  auto result = [&](emu::ExecutionObserver* o) {
    emu::DispatchOptions opt;
    opt.observer = o;
    d.fill(out, 0, groups * size * 4);
    d.dispatch(p, "probe_read", emu::LaunchConfig::groups({groups}, {size}), k.bytes(), opt).check();
    std::vector<uint32_t> v(groups * size);
    d.read(out, std::span<uint8_t>(reinterpret_cast<uint8_t*>(v.data()), v.size() * 4));
    return v;
  };
  TraceRecorder rec;
  std::vector<uint32_t> plain = result(nullptr), observed = result(&rec);
  EXPECT_EQ(plain, observed);
  ASSERT_EQ(rec.dispatches().size(), 1u);
  EXPECT_GT(rec.dispatches()[0]->instructions(), 0u);
}

// A faulting dispatch leaves an incomplete trace; the model refuses it by name.
TEST(TraceRecorder, FaultedDispatchIsRefused) {
  bench::calibrate::ProbeDevice dev;
  const emu::Program& p = dev.load(bench::calibrate::read_probe(bench::calibrate::ReadProbe{1, false, 0}));
  emu::KernargBuilder k(*p.find_kernel("probe_read"));
  k.set_value(0, uint64_t(0x1000)).set_value(1, uint64_t(0x2000)).set_value(2, uint64_t(0)).set_value(3, 1u)
      .set_value(4, 64u).set_value(5, 1024u);
  TraceRecorder rec;
  emu::DispatchOptions opt;
  opt.observer = &rec;
  auto r = dev.device().dispatch(p, "probe_read", emu::LaunchConfig::groups({1}, {64}), k.bytes(), opt);
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(rec.dispatches().size(), 1u);
  EXPECT_TRUE(rec.dispatches()[0]->faulted);
  try {
    simulate({rec.dispatches()[0].get()}, k100_lc());
    FAIL() << "a faulted trace was simulated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("probe_read"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace k100::timing
