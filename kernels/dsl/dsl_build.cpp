#include "dsl/dsl_build.h"

#include <map>
#include <memory>

#include "dsl/dsl_sources.h"
#include "k100/base/error.h"
#include "k100/dsl/compiler.h"

namespace k100::kernels::dsl_package {

namespace {

std::string describe(const codegen::Param& p) { return p.name + ": " + p.type + (p.access.empty() ? "" : " " + p.access); }

// Where two signatures differ ("" when they are the same).
std::string signature_difference(const codegen::Signature& want, const codegen::Signature& got) {
  if (want.params().size() != got.params().size())
    return std::to_string(got.params().size()) + " parameters, the entry declares " +
           std::to_string(want.params().size());
  for (size_t i = 0; i < want.params().size(); ++i) {
    const codegen::Param &a = want.params()[i], &b = got.params()[i];
    if (a.name != b.name || a.type != b.type || a.access != b.access)
      return "parameter " + std::to_string(i) + " is '" + describe(b) + "', the entry declares '" + describe(a) + "'";
  }
  if (want.hidden() != got.hidden()) return "another hidden-argument layout than the entry declares";
  return "";
}

// The source with the kernel `from` renamed `to` (its def line only).
std::string renamed(const std::string& text, const std::string& from, const std::string& to, const std::string& file) {
  const std::string def = "def " + from + "(";
  const size_t at = text.find(def);
  if (at == std::string::npos || text.find(def, at + 1) != std::string::npos)
    throw Error("kernels/dsl/" + file + ".kkl: expected exactly one 'def " + from + "(' to build it as '" + to + "'");
  return text.substr(0, at) + "def " + to + "(" + text.substr(at + def.size());
}

// A test device that launches `to` where a test launches `from`.
class RenamingDevice : public TestDevice {
 public:
  RenamingDevice(TestDevice& inner, std::string from, std::string to)
      : inner_(inner), from_(std::move(from)), to_(std::move(to)) {}
  uint64_t alloc(size_t bytes) override { return inner_.alloc(bytes); }
  void free(uint64_t address) override { inner_.free(address); }
  void upload(uint64_t dst, const void* src, size_t bytes) override { inner_.upload(dst, src, bytes); }
  void download(void* dst, uint64_t src, size_t bytes) override { inner_.download(dst, src, bytes); }
  void fill(uint64_t dst, uint8_t value, size_t bytes) override { inner_.fill(dst, value, bytes); }
  void launch(const std::string& lookup, Dim3 grid, Dim3 workgroup, const std::vector<uint64_t>& argv) override {
    inner_.launch(lookup == from_ ? to_ : lookup, grid, workgroup, argv);
  }
  std::string backend() const override { return inner_.backend(); }
  LaunchContract launch_contract(const std::string& lookup) override { return inner_.launch_contract(lookup); }

 private:
  TestDevice& inner_;
  std::string from_, to_;
};

}  // namespace

const std::string& kkl_text(const std::string& file) {
  static const std::map<std::string, std::string> texts = [] {
    std::map<std::string, std::string> m;
    for (const KklSource& s : kkl_sources()) m.emplace(s.file, s.text);
    return m;
  }();
  auto it = texts.find(file);
  if (it == texts.end()) throw Error("no DSL kernel source kernels/dsl/" + file + ".kkl in the kernel library");
  return it->second;
}

std::function<codeobj::CodeObject(isa::Target)> dsl_generator(const std::string& file, codegen::Signature sig,
                                                              SourceLookup source) {
  return [file, sig = std::move(sig), source = std::move(source)](isa::Target target) {
    const std::string& name = sig.kernel();
    const std::string text = name == file ? source(file) : renamed(source(file), file, name, file);
    dsl::CompileOptions o;
    o.only = name;
    o.target = target;
    dsl::CompileResult r = dsl::compile(text, "kernels/dsl/" + file + ".kkl", o);
    if (!r.ok() || r.kernels.size() != 1)
      throw Error("kernel '" + name + "' (kernels/dsl/" + file + ".kkl) does not compile:\n" + r.diagnostics);
    const std::string diff = signature_difference(sig, r.kernels[0].signature);
    if (!diff.empty())
      throw Error("kernel '" + name + "' (kernels/dsl/" + file + ".kkl): its signature differs from its registry entry: " +
                  diff);
    return std::move(r.kernels[0].object);
  };
}

void add_dsl_twin(Registry& r, const std::string& lookup, const std::string& file, const std::string& gap) {
  const KernelDef* hand = r.find(lookup);
  if (!hand || !hand->signature) throw Error("DSL twin of '" + lookup + "': no generated kernel of that name");
  KernelDef d = *hand;
  const std::string name = lookup + "_dsl";
  d.lookup = name;
  d.family = "dsl";
  d.signature = codegen::Signature(name, hand->signature->params(), hand->signature->hidden());
  d.generate = dsl_generator(file, *d.signature);
  d.description = "The same kernel as " + lookup + " (same semantics, arguments, contract and tests), built from its "
                  "DSL source kernels/dsl/" + file + ".kkl (workgroups of 64 to 256). " + gap;
  // A DSL kernel's first wave covers a row with its 64 lanes, and the compiler builds for workgroups of up to
  // 256: cases of other workgroup sizes are outside its contract.
  d.cases = [cases = hand->cases](bool sweep) {
    std::vector<Case> out;
    for (Case& c : cases(sweep))
      if (!c.dims.count("wg") || (c["wg"] >= 64 && c["wg"] <= 256)) out.push_back(std::move(c));
    return out;
  };
  d.run = [run = hand->run, lookup, name](TestDevice& dev, const Case& c) {
    RenamingDevice renamed(dev, lookup, name);
    return run(renamed, c);
  };
  r.add(std::move(d));
}

}  // namespace k100::kernels::dsl_package
