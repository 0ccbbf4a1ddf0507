// k100lc codeobj: targets, target-id strings and ELF e_flags.
//
// One table (processors()) says which processors exist, their EF_AMDGPU_MACH
// value, which of the xnack / sramecc features they have and the default
// setting of each. Everything else (target-id parsing and printing, e_flags in
// both directions, per code-object version) is derived from that table, so a
// correction after the first run on real hardware (gfx926's flags were taken
// from public vendor-built code objects) is a one-line change there.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace k100::codeobj {

// Code object version; the ELF ABI version byte is version - 2 (v3 = 1, v4 = 2, v5 = 3).
enum class CodeObjectVersion : uint8_t { V3 = 3, V4 = 4, V5 = 5 };

// Setting of a target feature (xnack, sramecc) in a target id.
// Unsupported: the processor has no such feature (nothing in the target id, 0 in e_flags).
// Any: the code runs with the feature on or off (no suffix in the target id).
enum class FeatureSetting : uint8_t { Unsupported, Any, Off, On };

struct ProcessorInfo {
  std::string_view name;  // "gfx906"
  uint32_t mach;          // EF_AMDGPU_MACH_* value, the low 8 bits of e_flags
  bool has_xnack;
  bool has_sramecc;
  // What default_target() selects; a target-id string without a suffix still means Any.
  FeatureSetting default_xnack;
  FeatureSetting default_sramecc;
  bool toolkit_target;  // the toolkit writes code objects for it (gfx906, gfx926)
  // Vendor-specific metadata key written into every kernel's record when targeting this
  // processor (gfx926: ".fp64_status" with value 0), or "" for none.
  std::string_view extra_kernel_key;
};

// Every processor the reader recognises; gfx906 and gfx926 are the toolkit's targets.
std::span<const ProcessorInfo> processors();
const ProcessorInfo* find_processor(std::string_view name);
const ProcessorInfo* find_processor_by_mach(uint32_t mach);

struct Target {
  std::string processor = "gfx906";
  FeatureSetting xnack = FeatureSetting::Any;
  FeatureSetting sramecc = FeatureSetting::Any;

  // "gfx906:sramecc+:xnack-" (features in alphabetical order, Any ones omitted).
  std::string name() const;
  // "amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-".
  std::string id() const;
  bool operator==(const Target&) const = default;
};

// The processor with its table defaults: gfx906 -> gfx906 (xnack any, sramecc any),
// gfx926 -> gfx926:sramecc+. Throws k100::Error for an unknown processor.
Target default_target(std::string_view processor);

// Parses a target id: "amdgcn-amd-amdhsa--gfx906:sramecc+:xnack-", "gfx906:xnack+",
// "gfx906" (features the processor has default to Any), and the code object v3
// spelling "gfx906+xnack+sram-ecc" (listed features On, the others Off).
// Throws k100::Error naming the text for unknown processors or features, features the
// processor lacks, repeated features, and a wrong triple.
Target parse_target_id(std::string_view text);

// ELF ABI version byte for a code object version (v3 1, v4 2, v5 3) and back.
uint8_t abi_version(CodeObjectVersion v);
// Throws k100::Error for ABI versions other than 1, 2, 3 (v2 and v6+ are not supported).
CodeObjectVersion version_from_abi(uint8_t abi_version);
// [1, 0] for v3, [1, 1] for v4, [1, 2] for v5: the amdhsa.version metadata value.
std::pair<int, int> metadata_version(CodeObjectVersion v);

// e_flags for a target (mach | xnack bits | sramecc bits). v4/v5: xnack bits 8-9 (Any 0x100,
// Off 0x200, On 0x300), sramecc bits 10-11 (Any 0x400, Off 0x800, On 0xC00). v3: xnack On
// 0x100, sramecc On 0x200 (Any is not representable in v3 and is an error).
// Throws k100::Error for an unknown processor or a feature the processor lacks.
uint32_t e_flags_for(const Target& target, CodeObjectVersion v);

// The target an e_flags value describes. For a mach value not in the table the processor
// is "mach-0xNN" (so any object can be read); feature fields with reserved values throw.
Target target_from_e_flags(uint32_t e_flags, CodeObjectVersion v);

// Whether the toolkit runs and disassembles code for t's processor (gfx906, gfx926).
bool is_toolkit_target(const Target& t);
// "gfx906 and gfx926 (xnack and sramecc any, on or off)": the processors of the table's
// toolkit targets, for messages.
std::string toolkit_processors_text();
// Throws k100::Error "<origin>: a code object for gfx1030 (amdgcn-amd-amdhsa--gfx1030);
// k100lc runs and reads code for gfx906 and gfx926 (...)" unless is_toolkit_target(t).
// Every loader and tool calls it before using code: an encoding of another processor must
// never be run or printed as if it were gfx9's.
void require_toolkit_target(const Target& t, const std::string& origin);

// The target of code built for both `a` and `b`, as LLVM combines target ids: the same
// processor, and per feature "any" with either setting (gfx926 beside gfx926:sramecc+ is
// gfx926:sramecc+), equal settings with themselves. nullopt when they exclude each other.
std::optional<Target> combined_target(const Target& a, const Target& b);

}  // namespace k100::codeobj
