// k100lc kernels: docs/KERNELS.md, generated from the catalog and the registry.
//
// Per kernel: description, semantics, launch geometry, limits, the argument
// table of the catalog (name, type, offset, size, kind), register and LDS use,
// tolerance, the self-test sizes and where the source lives. The text depends
// only on the registry and the built package, so CI can regenerate it and
// compare it with the checked-in file.
#pragma once

#include <string>
#include <vector>

#include "k100/codeobj/catalog.h"
#include "k100/kernels/registry.h"

namespace k100::kernels {

std::string kernels_markdown(const Registry& registry, const std::vector<codeobj::CatalogEntry>& catalog);

}  // namespace k100::kernels
