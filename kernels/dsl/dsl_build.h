// Package kernels built from DSL sources (kernels/dsl/*.kkl): the generator
// a registry entry uses instead of a hand-written one, and the `<name>_dsl`
// entry kept beside a hand-written kernel the DSL build does not yet match.
#pragma once

#include <functional>
#include <string>

#include "k100/codegen/signature.h"
#include "k100/kernels/registry.h"

namespace k100::kernels::dsl_package {

// The text of kernels/dsl/<file>.kkl (a k100::Error naming it when there is none).
const std::string& kkl_text(const std::string& file);
// Where a generator reads a source from: the embedded sources by default, a
// tree's files in the tests of `k100-cc export --install`.
using SourceLookup = std::function<std::string(const std::string& file)>;

// Compiles the kernel `file` of kernels/dsl/<file>.kkl under the symbol
// sig.kernel(). The compiled signature must equal `sig` (names, types,
// access, hidden layout): the registry entry's declaration is checked, not
// trusted. Errors name the file and the kernel.
std::function<codeobj::CodeObject(isa::Target)> dsl_generator(const std::string& file, codegen::Signature sig,
                                                              SourceLookup source = kkl_text);

// `lookup` built from kernels/dsl/<file>.kkl under the name `<lookup>_dsl`,
// registered beside the hand-written `lookup` (already in `r`) with its
// description, contract, tests, tolerance and bench case: its self-test runs
// the hand-written kernel's test with every launch of `lookup` sent to the
// DSL build. `gap` says why both are kept (the MODELED times).
void add_dsl_twin(Registry& r, const std::string& lookup, const std::string& file, const std::string& gap);

// Registers the kernels of an installed list (kernels/dsl/installed.json, as
// `k100-cc export --install` writes it): each entry's kernel from
// kernels/dsl/<name>.kkl, family "dsl", its description the source's leading
// comment, its signature the entry's args; its self-test builds the kernel
// and requires the entry's layout, register counts and segments. A malformed
// list or entry is a k100::Error naming it.
void register_installed(Registry& r, const std::string& installed_json, const SourceLookup& source = kkl_text);

}  // namespace k100::kernels::dsl_package
