// k100lc codeobj: a small Itanium C++ demangler for kernel lookup names.
//
// Catalog lookups are kernel names as callers write them: the demangled
// function name with its template arguments and no spaces, e.g.
// `_Z9gemv_w4a8ILi1ELb1ELi1EEvPKvS1_Pfiii` -> `gemv_w4a8<1,true,1>`. This
// demangler covers what kernel symbols use: (nested) names, template arguments
// that are integer/bool literals or types (builtins, pointers, const, classes,
// substitutions), spelled the way c++filt spells them. Parameter lists are not
// needed and are not decoded.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace k100::codeobj {

// "ns::name<args>" as c++filt prints it (spaces kept), or nullopt when `symbol` is not
// a mangled name this demangler understands.
std::optional<std::string> demangle_function_name(std::string_view symbol);

// The catalog lookup: the demangled name without whitespace; plain (non-_Z) names are
// their own lookup, and names the demangler cannot decode are returned unchanged.
std::string lookup_name(std::string_view symbol);

}  // namespace k100::codeobj
