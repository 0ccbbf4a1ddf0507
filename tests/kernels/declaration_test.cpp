// Every kernel's one declaration of its arguments (the generator's Signature,
// or the .k100_arg list of a hand-written .s file) against what is built from
// it: the catalog entry of the package, the argv packing the runtime turns
// into kernarg bytes, and the argument rows of docs/KERNELS.md.
#include <cctype>
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "k100/base/error.h"
#include "k100/codegen/signature.h"
#include "k100/codeobj/catalog.h"
#include "k100/kernels/docs.h"
#include "k100/kernels/package.h"
#include "k100/kernels/registry.h"
#include "k100/runtime/kernarg.h"

namespace k100::kernels {
namespace {

struct Built {
  Package pkg;
  std::string docs;
};

// The package and docs of one kernel (each test runs in its own process;
// building the whole library there for every kernel would cost the suite one
// library build per kernel). The catalog entry and docs rows of a kernel do
// not depend on the other kernels of the package.
const Built& built(const KernelDef& def) {
  static std::map<std::string, Built> cache;
  auto it = cache.find(def.lookup);
  if (it != cache.end()) return it->second;
  Registry one;
  one.add(def);
  Built x{build_package(one, isa::Target::gfx926, std::string(K100_SOURCE_DIR) + "/kernels"), ""};
  x.docs = kernels_markdown(one, x.pkg.catalog);
  return cache.emplace(def.lookup, std::move(x)).first->second;
}

const codeobj::CatalogEntry* entry(const KernelDef& def) {
  for (const auto& e : built(def).pkg.catalog)
    if (e.lookup == def.lookup) return &e;
  return nullptr;
}

// The declaration of a hand-written kernel: its .k100_arg list as the
// assembler read it (names, types, access), laid out again by the layer.
codegen::Signature declared(const KernelDef& def, const codeobj::CatalogEntry& e) {
  if (def.signature) return *def.signature;
  std::vector<codegen::Param> params;
  bool hidden = false;
  for (const auto& a : e.args) {
    if (a.kind.rfind("hidden_", 0) == 0) {
      hidden = true;
      continue;
    }
    params.push_back({a.name.value_or(""), a.type.value_or(""), ""});
  }
  if (!hidden) return codegen::Signature(def.lookup, params);
  // `.k100_hidden_args full` or `compact`: the one whose segment size the catalog shows
  codegen::Signature full(def.lookup, params, codeobj::HiddenArgLayout::Full);
  if (full.kernarg_size() == e.kernarg_size) return full;
  return codegen::Signature(def.lookup, params, codeobj::HiddenArgLayout::Compact);
}

class Declaration : public ::testing::TestWithParam<std::string> {};

TEST_P(Declaration, CatalogArgvAndDocsAgreeWithIt) {
  const KernelDef* def = registry().find(GetParam());
  ASSERT_NE(def, nullptr);
  const codeobj::CatalogEntry* e = entry(*def);
  ASSERT_NE(e, nullptr) << def->lookup << " is not in the package";
  if (!def->source.empty() && def->signature) FAIL() << def->lookup << ": a .s kernel declares its arguments there";
  if (def->source.empty()) {
    ASSERT_TRUE(def->signature.has_value()) << def->lookup << ": a generated kernel has a signature";
  }
  const codegen::Signature sig = declared(*def, *e);
  const auto& layout = sig.layout();

  // catalog entry: every argument where the declaration puts it
  EXPECT_EQ(e->kernarg_size, sig.kernarg_size()) << def->lookup;
  ASSERT_EQ(e->args.size(), layout.args.size()) << def->lookup;
  for (size_t i = 0; i < e->args.size(); ++i) {
    const auto& a = e->args[i];
    EXPECT_EQ(a.offset, layout.args[i].offset) << def->lookup << " argument " << i;
    EXPECT_EQ(a.size, layout.args[i].size) << def->lookup << " argument " << i;
    if (i < sig.params().size()) {
      EXPECT_EQ(a.name.value_or(""), sig.params()[i].name) << def->lookup << " argument " << i;
      EXPECT_EQ(a.type.value_or(""), sig.params()[i].type) << def->lookup << " argument " << i;
      EXPECT_EQ(a.kind, sig.params()[i].is_buffer() ? "global_buffer" : "by_value") << def->lookup;
    } else {
      EXPECT_EQ(a.kind.rfind("hidden_", 0), 0u) << def->lookup << " argument " << i;
    }
  }

  // argv: the declaration packs one slot per argument; the runtime's packer,
  // driven by the catalog, puts each value at the declared offset
  std::vector<codegen::ArgValue> values;
  for (size_t i = 0; i < sig.params().size(); ++i) {
    const auto& p = sig.params()[i];
    if (p.is_buffer()) values.emplace_back(uint64_t(0x100000 * (i + 1)));
    else if (p.type == "f32") values.emplace_back(1.5 + double(i));
    else values.emplace_back(int64_t(i + 1));
  }
  const std::vector<uint64_t> argv = sig.pack(values);
  ASSERT_EQ(argv.size(), sig.params().size());
  std::vector<runtime::LayoutEntry> rl;
  for (const auto& a : e->args) rl.push_back({a.offset, a.size, codeobj::kind_code(a.kind)});
  runtime::Geometry g{{3, 1, 1}, {64, 1, 1}};
  const auto bytes = runtime::pack_kernarg(rl, uint32_t(e->kernarg_size), argv, g, def->lookup);
  for (size_t i = 0; i < sig.params().size(); ++i) {
    const auto& p = sig.params()[i];
    uint64_t want = 0, got = 0;
    if (p.type == "f32") {
      float f = float(1.5 + double(i));
      std::memcpy(&want, &f, 4);
    } else {
      want = p.is_buffer() ? 0x100000 * (i + 1) : i + 1;
    }
    std::memcpy(&got, bytes.data() + layout.args[i].offset, layout.args[i].size);
    EXPECT_EQ(got, want) << def->lookup << " argument " << i << " '" << p.name << "'";
  }
  EXPECT_THROW(sig.pack(std::vector<codegen::ArgValue>(values.begin(), values.end() - 1)), k100::Error);

  // docs: the kernel's section lists exactly the declaration's rows, in order
  const std::string& docs = built(*def).docs;
  const size_t at = docs.find("\n### " + def->lookup + "\n");
  ASSERT_NE(at, std::string::npos) << def->lookup;
  const size_t end = docs.find("\n### ", at + 1);
  const std::string section = docs.substr(at, end == std::string::npos ? std::string::npos : end - at);
  size_t from = 0;
  for (const std::string& row : sig.docs_rows()) {
    const size_t r = section.find("\n" + row + "\n", from);
    EXPECT_NE(r, std::string::npos) << def->lookup << ": docs row missing or out of order: " << row;
    if (r != std::string::npos) from = r + 1;
  }
  // the C prototype names every argument
  const std::string proto = sig.c_prototype();
  EXPECT_EQ(proto.rfind("void " + def->lookup + "(", 0), 0u) << proto;
  for (const auto& p : sig.params()) EXPECT_NE(proto.find(" " + p.name), std::string::npos) << proto;
}

std::vector<std::string> lookups() {
  std::vector<std::string> out;
  for (const auto& d : registry().all()) out.push_back(d.lookup);
  return out;
}

// Template lookups (nvfp4_gemv<1,2>) as test names: every character gtest refuses becomes '_'.
INSTANTIATE_TEST_SUITE_P(All, Declaration, ::testing::ValuesIn(lookups()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
                           return name;
                         });

}  // namespace
}  // namespace k100::kernels
