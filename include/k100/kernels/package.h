// k100lc kernels: the kernel package, built from the registry.
//
// Every kernel of the registry is assembled (hand-written `.s` under
// kernels/) or generated (C++ builder), and the results are merged into one
// code object per target with its catalog (JSON) and C header. The same
// inputs always give the same bytes.
#pragma once

#include <string>
#include <vector>

#include "k100/codegen/kernel.h"
#include "k100/codeobj/catalog.h"
#include "k100/codeobj/code_object.h"
#include "k100/kernels/registry.h"

namespace k100::kernels {

struct Package {
  codeobj::CodeObject code_object;
  std::vector<codeobj::CatalogEntry> catalog;
  // With skip_broken: kernels that could not be built, with the reason.
  std::vector<std::pair<std::string, std::string>> broken;
};

// Builds the package for `target`; `kernels_dir` is the kernels/ source folder.
// Throws k100::Error listing every kernel that failed (with its diagnostics),
// or when a registered lookup is missing from the result.
// With `skip_broken` (tests), kernels that fail to build are left out and listed
// in Package::broken instead.
// `overrides` applies to every generated kernel of this build (the
// experiment packages without automatic waits or wait states).
Package build_package(const Registry& registry, isa::Target target, const std::string& kernels_dir,
                      codeobj::CodeObjectVersion version = codeobj::CodeObjectVersion::V5,
                      bool skip_broken = false, codegen::BuildOverrides overrides = {});

}  // namespace k100::kernels
