// A comma-separated list of kernel lookups or family names, as the tools'
// --only and --group options take it. Template lookups keep their commas
// (`gemv_w4a8<1,false,1>`): a comma splits the list only outside <...>.
#pragma once

#include <string>
#include <vector>

namespace k100::kernels {

// Empty items are dropped; an unbalanced '<' keeps the rest as one item (the
// caller then reports it as an unknown name).
std::vector<std::string> split_lookup_list(const std::string& list);

}  // namespace k100::kernels
