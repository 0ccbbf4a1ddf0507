// llvm-mc's typing of YAML scalars, shared by the YAML parser and the YAML printer
// (the printer adds a tag exactly when re-parsing the printed text would change the type).
#pragma once

#include <cstdint>
#include <string_view>

#include "k100/codeobj/metadata_node.h"

namespace k100::codeobj::detail {

bool parse_llvm_unsigned(std::string_view s, uint64_t& out);
bool parse_llvm_signed(std::string_view s, int64_t& out);
bool parse_llvm_bool(std::string_view s, bool& out);
bool parse_llvm_float(std::string_view s, double& out);

// The node llvm-mc makes of scalar `text` with YAML tag `tag` ("" = untagged, or one of
// !int !nil !bool !float !str tag:yaml.org,2002:str). ok = false when the text does not fit
// a given tag or the tag is unknown.
MetaNode scalar_from_yaml(std::string_view text, std::string_view tag, bool& ok);

}  // namespace k100::codeobj::detail
