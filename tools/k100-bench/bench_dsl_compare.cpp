// k100-bench dsl-compare: the DSL's code against hand-written kernels of the
// same semantics, for the example kernels of the language (DSL.md
// "Comparison with hand-written kernels").
//
// Each DSL build runs the hand-written kernel's own benchmark case and test
// (the package's `<name>_dsl` entries are the DSL sources of kernels/dsl
// under the hand-written kernel's signature, contract and tests), so both
// sides do the same work and are checked the same way. Reported per kernel:
// static instructions (decoded from the code object), dynamic
// wave-instructions per wave, and the MODELED K100_LC time with its limiter.
// vadd, axpy and silu have no package kernel of the same semantics; their
// DSL builds are measured alone on a case of their own.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "bench_registry.h"
#include "k100/dsl/compiler.h"
#include "k100/isa/codec.h"
#include "k100/kernels/emu_test_device.h"
#include "k100/kernels/test_support.h"
#include "kernel_measure.h"

namespace {

using namespace k100;
using kernels::Case;
using kernels::CaseResult;
using kernels::DeviceBuffer;
using kernels::KernelDef;
using kernels::TestDevice;

struct Pair {
  const char* example;  // the example kernel of the language
  const char* dsl;      // the package entry built from the DSL
  const char* hand;     // the hand-written kernel of the same semantics ("" when there is none)
  const char* note;     // why there is no hand-written kernel to run
};

const Pair kPairs[] = {
    {"vadd", "vadd", "", "no hand-written counterpart (no package kernel computes out = a + b)"},
    {"axpy", "axpy", "", "no hand-written counterpart (add_inplace_k adds without a scale)"},
    {"silu", "silu", "", "no hand-written counterpart (silu_mul_k multiplies by a second input)"},
    {"embed_f16", "embed_f16_k_dsl", "embed_f16_k", ""},
    {"rope_apply", "rope_apply_k", "",
     "the hand-written generator was replaced by this DSL build (MODELED within 1.1x, docs/DSL.md)"},
    {"q4k dequant", "q4k_dequant_dsl", "q4k_dequant", ""},
    {"q5k dequant", "q5k_dequant_dsl", "q5k_dequant", ""},
    {"q6k dequant", "q6k_dequant_dsl", "q6k_dequant", ""},
    {"vt_scatter", "vt_scatter_k_dsl", "vt_scatter_k", ""},
    {"vt_scatter_v", "vt_scatter_v_k_dsl", "vt_scatter_v_k", ""},
};

// An elementwise example of tests/dsl/kkl with its host formula, measured on n = 2^20.
KernelDef example_def(const std::string& name, int inputs, bool scalar, float (*ref)(float x, float y, float alpha),
                      kernels::Tolerance tol) {
  dsl::CompileOptions o;
  o.only = name;
  const std::string path = std::string(K100_SOURCE_DIR) + "/tests/dsl/kkl/" + name + ".kkl";
  std::string text;
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error("cannot read " + path);
    char buf[4096];
    while (size_t n = std::fread(buf, 1, sizeof buf, f)) text.append(buf, n);
    std::fclose(f);
  }
  dsl::CompileResult r = dsl::compile(text, path, o);
  if (!r.ok()) throw Error(path + " does not compile:\n" + r.diagnostics);
  auto k = std::make_shared<dsl::CompiledKernel>(std::move(r.kernels.at(0)));
  KernelDef d = kernels::generated_kernel("dsl-example", k->signature, [k](isa::Target) { return k->object; });
  d.tolerance = tol;
  d.cases = [](bool) { return std::vector<Case>{kernels::make_case({{"n", 1 << 20}})}; };
  d.ideal_bytes = [inputs](const Case& c) { return uint64_t(c["n"]) * 4 * uint64_t(inputs + 1); };
  d.run = [k, inputs, scalar, ref, tol](TestDevice& dev, const Case& c) {
    const size_t n = size_t(c["n"]);
    kernels::Rng rng(c.seed);
    const auto x = rng.uniform(n, -4.f, 4.f), y = rng.uniform(n, -4.f, 4.f);
    const float alpha = -1.75f;
    std::vector<float> want(n);
    for (size_t i = 0; i < n; ++i) want[i] = ref(x[i], y[i], alpha);
    DeviceBuffer<float> dx(dev, x), dy(dev, y), dout(dev, n);
    const uint32_t grid = uint32_t((n + 63) / 64);
    std::vector<codegen::ArgValue> argv;
    if (inputs == 2) argv = {dx.addr(), dy.addr(), dout.addr(), int64_t(n)};  // vadd(a, b, out, n)
    else if (scalar) argv = {dx.addr(), dx.addr(), dy.addr(), int64_t(n), double(alpha)};  // axpy(a, x, y, n, alpha)
    else argv = {dx.addr(), dout.addr(), int64_t(n)};  // silu(x, y, n)
    dev.launch(k->name, {grid}, {64}, k->signature.pack(argv));
    return kernels::compare(scalar ? dy.download() : dout.download(), want, tol);
  };
  return d;
}

// Instructions in the kernel's code, decoded from its code object.
size_t static_instructions(const KernelDef& d) {
  const codeobj::CodeObject obj = d.generate(isa::Target::gfx926);
  size_t count = 0;
  for (const codeobj::Kernel& k : obj.kernels) {
    if (k.name != d.lookup) continue;
    for (uint64_t at = k.code_offset; at + 4 <= k.code_offset + k.code_size && at + 4 <= obj.text.size();) {
      const auto dec = isa::decode(std::span<const uint8_t>(obj.text).subspan(at), isa::Target::gfx926);
      at += dec.size;
      ++count;
    }
  }
  return count;
}

struct Row {
  std::string name;
  size_t instructions = 0;
  double per_wave = 0, modeled = 0;
  bool pass = false;
  std::string check;
};

Row measured(const KernelDef& d, kernels::EmuTestDevice& dev) {
  const Case c = d.bench_case ? d.bench_case() : d.cases(false).back();
  const bench::Report r = bench::measure(d, dev, c);
  Row row{d.lookup, static_instructions(d), 0, r.modeled, r.pass, r.check};
  row.per_wave = r.waves ? double(r.profile.wave_instructions) / double(r.waves) : 0;
  return row;
}

int run(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::printf("usage: k100-bench dsl-compare\n"
                "  the example kernels of the DSL against the hand-written kernels of the same semantics: static\n"
                "  instructions, wave-instructions per wave and MODELED K100_LC time at the hand-written kernel's\n"
                "  benchmark case (its test checks both); vadd, axpy and silu (no hand-written counterpart) alone.\n");
    return a == "--help" ? 0 : 2;
  }
  kernels::Registry reg;
  try {
    reg.add(example_def("vadd", 2, false, [](float x, float y, float) { return x + y; }, {}));
    reg.add(example_def("axpy", 1, true, [](float x, float y, float a) { return std::fma(a, x, y); }, {}));
    reg.add(example_def("silu", 1, false, [](float x, float, float) { return float(x / (1.0 + std::exp(-double(x)))); },
                        {1e-6, 1e-5}));
    for (const Pair& p : kPairs)
      for (const char* name : {p.dsl, p.hand})
        if (*name && !reg.find(name)) {
          const KernelDef* d = kernels::registry().find(name);
          if (!d) throw Error(std::string("no package kernel '") + name + "'");
          reg.add(*d);
        }
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-bench dsl-compare: %s\n", e.what());
    return 1;
  }
  kernels::EmuTestDevice dev(reg, std::string(K100_SOURCE_DIR) + "/kernels");
  for (const auto& [name, why] : dev.broken()) {
    std::fprintf(stderr, "k100-bench dsl-compare: %s did not build: %s\n", name.c_str(), why.c_str());
    return 1;
  }
  std::printf("MODELED K100_LC times (the timing model, not measurements); both sides at the hand-written kernel's\n"
              "benchmark case, checked by its test.\n\n");
  std::printf("%-13s %-18s %6s %9s %10s  %-18s %6s %9s %10s  %7s\n", "example", "DSL build", "instr", "per wave",
              "MODELED", "hand-written", "instr", "per wave", "MODELED", "DSL/hw");
  bool ok = true;
  for (const Pair& p : kPairs) {
    const Row dsl = measured(*reg.find(p.dsl), dev);
    if (!dsl.pass) std::fprintf(stderr, "k100-bench dsl-compare: %s: %s\n", dsl.name.c_str(), dsl.check.c_str());
    ok = ok && dsl.pass;
    std::printf("%-13s %-18s %6zu %9.0f %7.2f us  ", p.example, dsl.name.c_str(), dsl.instructions, dsl.per_wave,
                dsl.modeled * 1e6);
    if (!*p.hand) {
      std::printf("%s\n", p.note);
      continue;
    }
    const Row hw = measured(*reg.find(p.hand), dev);
    if (!hw.pass) std::fprintf(stderr, "k100-bench dsl-compare: %s: %s\n", hw.name.c_str(), hw.check.c_str());
    ok = ok && hw.pass;
    std::printf("%-18s %6zu %9.0f %7.2f us  %6.2fx%s\n", hw.name.c_str(), hw.instructions, hw.per_wave,
                hw.modeled * 1e6, dsl.modeled / hw.modeled, dsl.modeled / hw.modeled <= 1.2 ? "" : "  (> 1.2x)");
  }
  return ok ? 0 : 1;
}

const bench::Register kRegister("dsl-compare",
                                "the DSL example kernels against hand-written kernels of the same semantics "
                                "(instructions, MODELED time)",
                                run);

}  // namespace
