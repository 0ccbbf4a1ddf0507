// k100-cc export (DSL.md §9.4): the spec entry of a compiled kernel and its
// installation into a tree's package DSL kernels.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace k100::cc {

// {name, source, asm, args, kernarg_size, kernarg_align, sgpr_count,
// vgpr_count, group_segment, private_segment}, read from the code object's
// metadata (args: the explicit ones, with name, type, access, offset, size;
// asm: the name of the .s written beside the code object).
nlohmann::ordered_json spec_entry(const std::vector<uint8_t>& code_object, const std::string& name,
                                  const std::string& asm_path);

// Copies the source to <tree>/kernels/dsl/<name>.kkl and adds the entry to
// <tree>/kernels/dsl/installed.json, replacing an entry of the same name.
// Refuses (k100::Error) a name the package already has for a kernel of
// its own: a hand-written kernel or a package DSL kernel with its own
// registry entry. Returns what was done, for the user.
std::string install(const std::string& source_path, const std::string& source_text, const nlohmann::ordered_json& entry,
                    const std::string& tree);

}  // namespace k100::cc
