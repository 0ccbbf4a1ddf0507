// k100lc kernels: the kernel library's registry.
//
// Every kernel of the package is one KernelDef: where its code comes from (a
// hand-written `.s` file under kernels/<family>/, or a C++ generator using
// as::KernelBuilder), what it computes (the description, semantics, launch
// geometry and limits the generated docs print), and how it is tested: test
// cases of several sizes, a host reference in C++, and a stated tolerance
// (exact for integer outputs). The package build, the self-test, the
// benchmarks and the docs generator all read this one registry.
//
// Adding a kernel: put its source in kernels/<family>/ and add its KernelDef in
// that family's registration file (kernels/<family>/<family>_kernels.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "k100/codegen/signature.h"
#include "k100/codeobj/code_object.h"
#include "k100/isa/codec.h"
#include "k100/kernels/launch_contract.h"

namespace k100::kernels {

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
};

// Where a test runs: the runtime (emulator or hardware) or the emulator
// directly (benchmarks). launch() waits for completion and throws k100::Error
// (with the fault report) when the kernel faults.
class TestDevice {
 public:
  virtual ~TestDevice() = default;
  virtual uint64_t alloc(size_t bytes) = 0;
  virtual void free(uint64_t address) = 0;
  virtual void upload(uint64_t dst, const void* src, size_t bytes) = 0;
  virtual void download(void* dst, uint64_t src, size_t bytes) = 0;
  virtual void fill(uint64_t dst, uint8_t value, size_t bytes) = 0;
  // grid counts workgroups in every dimension
  virtual void launch(const std::string& lookup, Dim3 grid, Dim3 workgroup, const std::vector<uint64_t>& argv) = 0;
  virtual std::string backend() const = 0;
  // The launch contract of a kernel as the device's package carries it; the
  // default: the library registry's (devices over a package override it).
  virtual LaunchContract launch_contract(const std::string& lookup);
};

struct Tolerance {
  double abs = 0;  // pass when |got - want| <= abs + rel * |want|
  double rel = 0;
  bool exact() const { return abs == 0 && rel == 0; }
  bool operator==(const Tolerance& o) const { return abs == o.abs && rel == o.rel; }
  // The looser of two (the larger abs, then the larger rel).
  static Tolerance loosest(const Tolerance& a, const Tolerance& b);
  std::string describe() const;  // "exact" or "abs 1e-5 + rel 1e-5"
};

// One test case: named sizes (n, k, rows, ...) and a seed.
struct Case {
  std::map<std::string, int64_t> dims;
  uint32_t seed = 1;
  int64_t operator[](const std::string& key) const;
  std::string describe() const;  // "n=256 k=640"
};

struct CaseResult {
  double max_abs = 0, max_rel = 0;  // over every compared output element
  size_t compared = 0;              // elements compared
  bool pass = false;
  std::string note;                 // why it failed, or what was special
  uint64_t output_hash = 0;         // hash of the outputs (for --repeat)
  // The loosest tolerance the comparisons used (exact for integer outputs);
  // the self-test fails a kernel whose tests use another than it states.
  std::optional<Tolerance> tolerance;
};

struct KernelDef {
  std::string lookup;       // caller-facing name, e.g. "gemv_f32_warp_k" or "gemv_w4a8<1,true,1>"
  std::string family;       // gemv, ops, other, ...
  std::string source;       // path under kernels/ of a hand-written .s, or "" when generated
  // Generated kernels: builds the code object of this one kernel for a target.
  std::function<codeobj::CodeObject(isa::Target)> generate;
  // Generated kernels: the one declaration of the arguments the generator
  // builds from (layout, metadata, argv packing, docs rows). Hand-written
  // kernels declare theirs in the .s file (.k100_arg).
  std::optional<codegen::Signature> signature;
  std::string description;  // one paragraph for docs/KERNELS.md
  std::string semantics;    // the formula
  std::string geometry;     // launch geometry, e.g. "grid = nrows, wg = 64"
  // The launch contract (k100/kernels/launch_contract.h): default workgroup
  // and grid over the named sizes, workspaces, derived arguments. Checked
  // against the signature when registered; written into the package's
  // metadata and catalog. "" when the kernel declares none yet.
  std::string launch;
  std::string limits;       // documented limits ("cols % 64 == 0", ...)
  Tolerance tolerance;
  // Test cases; `sweep` asks for a wide spread of sizes (k100-selftest --sweep).
  std::function<std::vector<Case>(bool sweep)> cases;
  // Runs one case on the device and compares with the host reference.
  std::function<CaseResult(TestDevice&, const Case&)> run;
  // Bytes the operation must move at least (weights once, inputs once, outputs
  // once; a buffer updated in place counts twice: read, then written back), for
  // the benchmark's ideal-traffic column; 0 when not declared.
  std::function<uint64_t(const Case&)> ideal_bytes;
  // The case the benchmark runs (k100-bench kernels); empty: the first test case.
  std::function<Case()> bench_case;

  // The parsed launch contract (a k100::Error naming the kernel when it has none).
  LaunchContract contract() const;
};

// The entry of a generated kernel: lookup and signature from `sig`, the
// generator `build`; the rest (docs, tests) the caller fills in.
KernelDef generated_kernel(std::string family, codegen::Signature sig,
                           std::function<codeobj::CodeObject(isa::Target)> build);

class Registry {
 public:
  void add(KernelDef def);
  const std::vector<KernelDef>& all() const { return defs_; }
  const KernelDef* find(const std::string& lookup) const;
  std::vector<std::string> families() const;

 private:
  std::vector<KernelDef> defs_;
};

// The whole library (every family registered), built once.
const Registry& registry();

// Family registration functions (one per kernels/<family>/ folder).
void register_gemv_kernels(Registry& r);
void register_ops_kernels(Registry& r);
void register_other_kernels(Registry& r);
void register_model_kernels(Registry& r);
void register_gguf_kernels(Registry& r);
void register_gguf_gemv_kernels(Registry& r);
void register_int4_gemv_kernels(Registry& r);      // kernels/int4/int4_gemv_kernels.cpp
void register_int4_dot_kernels(Registry& r);       // kernels/int4/int4_dot_kernels.cpp
void register_int4_gemm_kernels(Registry& r);      // kernels/int4/int4_gemm_kernels.cpp
void register_w4_activation_kernels(Registry& r);  // kernels/w4act/w4_activation_kernels.cpp
void register_nvfp4_kernels(Registry& r);          // kernels/nvfp4/nvfp4_kernels.cpp
void register_packed_kv_kernels(Registry& r);      // kernels/attention/packed_kv_kernels.cpp
void register_flash_decode_kernels(Registry& r);   // kernels/attention/flash_decode_kernels.cpp
void register_vision_kernels(Registry& r);         // kernels/vision/vision_kernels.cpp
void register_seq_kernels(Registry& r);            // kernels/seq/seq_kernels.cpp
void register_dsl_kernels(Registry& r);            // kernels/dsl/dsl_kernels.cpp

}  // namespace k100::kernels
