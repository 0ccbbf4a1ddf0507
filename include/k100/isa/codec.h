// k100lc isa: encoder, decoder and printer.
//
// encode() turns an Inst into bytes (4, 8 or 12), checking every rule llvm-mc
// enforces for gfx906 (register classes, constant bus, literal limits,
// offset ranges, register alignment, modifier legality). decode() reads one
// instruction from a byte stream. print() writes llvm's syntax, so the text
// re-assembles with llvm-mc (and k100-as) to the same bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "k100/isa/inst.h"

namespace k100::isa {

enum class Target : uint8_t { gfx906, gfx926 };
const char* target_name(Target t);
std::optional<Target> parse_target(std::string_view name);  // "gfx906" / "gfx926"

// Thrown (as k100::Error) by encode() with a message in llvm's words.
// Appends the encoding of `inst` to `out`; sets inst.size.
void encode(Inst& inst, std::vector<uint8_t>& out, Target target = Target::gfx926);
// encode() without the checks, for an Inst check() already accepted.
void encode_checked(Inst& inst, std::vector<uint8_t>& out, Target target = Target::gfx926);
// Returns the problem with `inst` without encoding it, or "" when it encodes.
std::string check(const Inst& inst, Target target = Target::gfx926);

struct Decoded {
  Inst inst;
  bool ok = false;       // false: bytes do not form a valid instruction
  uint8_t size = 4;      // bytes consumed (4 on failure)
};
// Decodes one instruction at the start of `bytes` (at least 4 bytes).
Decoded decode(std::span<const uint8_t> bytes, Target target = Target::gfx926);

struct PrintOptions {
  // Branch targets: when set, SOPP/SOPK branch immediates are printed with
  // this callback's label for (pc-relative dword offset) instead of a number.
  const char* (*label_for)(void* ctx, int32_t offset_dwords) = nullptr;
  void* label_ctx = nullptr;
  // Per-operand replacement text (e.g. the label expression of a branch),
  // indexed like Inst::ops; an empty string keeps the normal text.
  const std::string* operand_text = nullptr;
  // Replacement text of a returning atomic's destination (printed first).
  const std::string* atomic_dst_text = nullptr;
};
// llvm syntax, without leading indentation: "v_add_f32_e32 v0, v1, v2".
std::string print(const Inst& inst, const PrintOptions& opts = {});
// Text of one operand as it appears in print().
std::string print_operand(const Inst& inst, int index);

}  // namespace k100::isa
