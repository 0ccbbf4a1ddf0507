#include "k100/kernels/registry.h"

#include <algorithm>
#include <cstdio>

#include "k100/base/error.h"

namespace k100::kernels {

std::string Tolerance::describe() const {
  if (exact()) return "exact";
  char buf[64];
  std::snprintf(buf, sizeof buf, "abs %.0e + rel %.0e", abs, rel);
  return buf;
}

Tolerance Tolerance::loosest(const Tolerance& a, const Tolerance& b) {
  if (a.abs != b.abs) return a.abs > b.abs ? a : b;
  return a.rel >= b.rel ? a : b;
}

int64_t Case::operator[](const std::string& key) const {
  auto it = dims.find(key);
  if (it == dims.end()) throw Error("test case " + describe() + " has no dimension '" + key + "'");
  return it->second;
}

std::string Case::describe() const {
  std::string out;
  for (const auto& [k, v] : dims) {
    if (!out.empty()) out += ' ';
    out += k + "=" + std::to_string(v);
  }
  return out;
}

KernelDef generated_kernel(std::string family, codegen::Signature sig,
                           std::function<codeobj::CodeObject(isa::Target)> build) {
  KernelDef d;
  d.lookup = sig.kernel();
  d.family = std::move(family);
  d.signature = std::move(sig);
  d.generate = std::move(build);
  return d;
}

void Registry::add(KernelDef def) {
  if (find(def.lookup)) throw Error("kernel registry: '" + def.lookup + "' registered twice");
  if (def.source.empty() && !def.generate)
    throw Error("kernel registry: '" + def.lookup + "' has neither a source file nor a generator");
  if (!def.cases || !def.run) throw Error("kernel registry: '" + def.lookup + "' has no test");
  if (def.signature && def.signature->kernel() != def.lookup)
    throw Error("kernel registry: '" + def.lookup + "' has the signature of '" + def.signature->kernel() + "'");
  if (!def.launch.empty()) (void)def.contract();  // refused here, naming the kernel, when it does not parse
  defs_.push_back(std::move(def));
}

LaunchContract KernelDef::contract() const {
  if (launch.empty()) throw Error("kernel '" + lookup + "' declares no launch contract");
  std::vector<std::string> args;
  if (signature)
    for (const codegen::Param& p : signature->params()) args.push_back(p.name);
  return LaunchContract::parse(launch, lookup, std::move(args));
}

LaunchContract TestDevice::launch_contract(const std::string& lookup) {
  const KernelDef* d = registry().find(lookup);
  if (!d) throw Error("no kernel '" + lookup + "' in the registry");
  return d->contract();
}

const KernelDef* Registry::find(const std::string& lookup) const {
  for (const auto& d : defs_)
    if (d.lookup == lookup) return &d;
  return nullptr;
}

std::vector<std::string> Registry::families() const {
  std::vector<std::string> out;
  for (const auto& d : defs_)
    if (std::find(out.begin(), out.end(), d.family) == out.end()) out.push_back(d.family);
  return out;
}

const Registry& registry() {
  static const Registry r = [] {
    Registry r;
    register_gemv_kernels(r);
    register_ops_kernels(r);
    register_other_kernels(r);
    register_model_kernels(r);
    register_gguf_kernels(r);
    register_gguf_gemv_kernels(r);
    register_int4_gemv_kernels(r);
    register_int4_dot_kernels(r);
    register_int4_gemm_kernels(r);
    register_w4_activation_kernels(r);
    register_nvfp4_kernels(r);
    register_packed_kv_kernels(r);
    register_flash_decode_kernels(r);
    register_vision_kernels(r);
    register_seq_kernels(r);
    register_dsl_kernels(r);  // last: a DSL build kept beside a hand-written kernel takes its tests
    return r;
  }();
  return r;
}

}  // namespace k100::kernels
