// k100lc dsl: what the lowering cannot (yet) generate, with the place in the
// source; dsl::compile turns it into a diagnostic.
#pragma once

#include <string>

#include "k100/base/diagnostic.h"

namespace k100::dsl {

struct LoweringError {
  SourceLoc loc;
  std::string what;  // "the built-in 'shuffle'": completed with "is not yet supported by the code generator"
};

}  // namespace k100::dsl
