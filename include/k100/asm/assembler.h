// k100lc asm: AMDGPU assembly text -> machine code.
//
// assemble() reads a whole source file in llvm's AMDGPU syntax (labels,
// expressions, .set symbols, data and alignment directives, kernel
// descriptor and metadata blocks, and the GNU/llvm-mc macro language:
// .include, .macro/.endm/.exitm/.purgem, .rept, .irp and .irpc ... .endr)
// and produces sections, symbols and a listing. Diagnostics name the file and
// line a statement was written at (an included file's own path and line; in a
// macro expansion the line of the macro body, followed by notes naming the
// expansions it came from). Every problem becomes a diagnostic with file:line:col and a caret;
// the whole file is checked (up to an error limit) before giving up, and the
// assembler never throws on bad input.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "k100/base/diagnostic.h"
#include "k100/isa/codec.h"

namespace k100::as {

struct Options {
  isa::Target target = isa::Target::gfx926;
  // false: an .amdgcn_target directive in the source chooses the target (the
  // encodings of gfx906 and gfx926 are the same); true: it must agree with `target`
  bool target_explicit = false;
  int code_object_version = 5;
  bool code_object_version_explicit = false;  // given by the user (messages say so)
  size_t error_limit = 100;
  bool listing = true;  // fill Program::listing (printed text per instruction)
  // Where `.include "name"` looks after the directory of the including file
  // (k100-as -I DIR), in order.
  std::vector<std::string> include_dirs;
  // Absolute symbols defined before the first line (k100-as -defsym NAME=VALUE).
  std::vector<std::pair<std::string, int64_t>> predefined_symbols;
};

struct Section {
  std::string name;  // ".text", ".rodata", ...
  std::vector<uint8_t> bytes;
  uint32_t alignment = 1;
  // ELF flags as .section's "awx" letters: allocated, writable, executable (the
  // defaults of the name's kind when .section gives none: .text "ax", .rodata "a",
  // .data "aw", others none)
  std::string flags;
};

// "ax" for .text and .text.*, "a" for .rodata*, "aw" for .data* and .bss*, "" otherwise.
std::string default_section_flags(std::string_view name);

struct Symbol {
  std::string name;
  std::string section;  // "" for absolute symbols (.set)
  int64_t value = 0;    // offset in the section, or the absolute value
  bool is_label = false;
  bool global = false;
  bool weak = false;    // .weak
  std::string type;     // "function", "object" or ""
  std::string visibility;  // "protected", "hidden" or ""
  int64_t size = -1;    // from .size, -1 when not given
  SourceLoc loc;
};

// One line of an llvm-mc style listing (--show-encoding, -filetype=asm): with
// its directives, a listing assembles again to the same code object.
struct ListingLine {
  enum class Kind { Label, Instruction, Directive } kind = Kind::Instruction;
  std::string text;              // printed instruction, the label name, or the directive line as printed
  std::vector<uint8_t> bytes;
  std::vector<bool> fixup_byte;  // bytes printed as 'A' (resolved later by the linker in llvm-mc)
  std::string fixup_note;        // llvm-mc's "fixup A - ..." comment, "" when none
  std::string section;
  uint64_t offset = 0;
};

// An `.amdhsa_kernel NAME` block: the directives inside it, in order.
struct KernelDirectives {
  std::string name;
  SourceLoc loc;
  std::vector<std::pair<std::string, int64_t>> settings;
  std::vector<SourceLoc> setting_locs;
  // compact argument declarations (.k100_arg lines) and options
  struct Arg {
    std::string name, value_kind, type_name, access;
    int64_t size = 0;
    SourceLoc loc;
  };
  std::vector<Arg> args;
  std::string hidden_layout;  // "", "none", "full" or "compact"
};

struct Program {
  std::vector<Section> sections;
  std::vector<Symbol> symbols;
  std::vector<ListingLine> listing;
  std::string amdgcn_target;            // from .amdgcn_target
  std::vector<KernelDirectives> kernels;
  std::string metadata_yaml;            // body of .amdgpu_metadata, "" when absent
  SourceLoc metadata_loc;
  int code_object_version = 0;          // .amdhsa_code_object_version, 0 when absent
  // Symbol names in the order llvm-mc creates them (first directive, label or use;
  // a kernel's descriptor symbol NAME.kd at its .amdhsa_kernel): the order of the
  // code object's symbol tables.
  std::vector<std::string> symbol_order;
  // References from .text to symbols the file's layout places (sym@rel32@lo/hi of a
  // symbol outside .text): resolved by the code-object writer.
  struct TextReference {
    uint64_t offset = 0;  // of the 32-bit literal in .text
    std::string section;  // where S + A is
    int64_t target = 0;   // S + A as an offset into that section
    bool high = false;    // @rel32@hi: the upper 32 bits of S + A - P
    SourceLoc loc;
  };
  std::vector<TextReference> text_references;

  const Section* section(std::string_view name) const;
  Section* section(std::string_view name);
  const Symbol* symbol(std::string_view name) const;
};

// Assembles `source`; diagnostics go to `diags` (name `filename` in them).
// `filename` is also where `.include` starts looking (its directory).
Program assemble(std::string_view source, const std::string& filename, const Options& options,
                 DiagnosticSink& diags);

}  // namespace k100::as
