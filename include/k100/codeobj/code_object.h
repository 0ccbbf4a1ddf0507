// k100lc codeobj: the in-memory model of an AMDHSA code object.
//
// A CodeObject is what the writer turns into an ELF file and what the reader
// produces from one: the target and code object version, all kernels' code in
// one .text blob, the symbols in it, the kernels (descriptor + entry point +
// typed metadata) and the metadata document of the NT_AMDGPU_METADATA note.
// Addresses are not part of the model: the writer lays the file out like
// ld.lld and computes each descriptor's kernel_code_entry_byte_offset.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "k100/codeobj/kernel_descriptor.h"
#include "k100/codeobj/kernel_metadata.h"
#include "k100/codeobj/metadata_node.h"
#include "k100/codeobj/target.h"

namespace k100::codeobj {

enum class SymbolBinding : uint8_t { Local = 0, Global = 1, Weak = 2 };
enum class SymbolType : uint8_t { NoType = 0, Object = 1, Func = 2 };
enum class SymbolVisibility : uint8_t { Default = 0, Internal = 1, Hidden = 2, Protected = 3 };

// Which part of the file a symbol points into.
enum class SymbolSection : uint8_t {
  Text,      // offset from the start of .text
  Data,      // offset from the start of CodeObject::rodata_data
  Writable,  // offset from the start of CodeObject::data (.data)
};

// A 32-bit half of a PC-relative distance in .text (clang's sym@rel32@lo / @rel32@hi
// after s_getpc_b64) to a place in another section: the writer stores the half of
// S + A - P, S + A being `offset` into `section` and P the literal's own address.
struct TextReference {
  uint64_t text_offset = 0;  // of the 32-bit literal
  SymbolSection section = SymbolSection::Data;
  uint64_t offset = 0;
  bool high = false;  // the upper 32 bits (else the lower)

  bool operator==(const TextReference&) const = default;
};

struct Symbol {
  std::string name;
  SymbolSection section = SymbolSection::Text;
  uint64_t offset = 0;
  uint64_t size = 0;
  SymbolType type = SymbolType::Func;
  SymbolBinding binding = SymbolBinding::Global;
  SymbolVisibility visibility = SymbolVisibility::Protected;

  bool operator==(const Symbol&) const = default;
};

struct Kernel {
  std::string name;  // the kernel's function symbol; its descriptor symbol is name + ".kd"
  KernelDescriptor descriptor;  // the writer recomputes kernel_code_entry_byte_offset
  uint64_t code_offset = 0;     // entry point, offset into .text
  uint64_t code_size = 0;       // reader: symbol size, else up to the next kernel/symbol
  SymbolBinding kd_binding = SymbolBinding::Global;
  SymbolVisibility kd_visibility = SymbolVisibility::Default;  // llvm-mc: DEFAULT, clang: PROTECTED
  // This kernel's metadata record. The reader fills it from the note; the writer uses it
  // only when CodeObject::metadata is nil (then the document is built from these).
  std::optional<KernelMeta> meta;

  bool operator==(const Kernel&) const = default;
};

// What the reader saw that the model does not carry; ignored by the writer except
// `unsupported`, which makes the writer refuse to re-write the object.
struct ReadInfo {
  struct Section {
    std::string name;
    uint32_t type = 0;
    uint64_t flags = 0, address = 0, offset = 0, size = 0;
  };
  uint32_t e_flags = 0;
  uint64_t text_address = 0;
  uint64_t rodata_address = 0;
  std::vector<Section> sections;
  // Allocated sections or contents the writer cannot reproduce (.data, .bss, .got,
  // descriptors interleaved with other data, ...): re-writing would move code relative
  // to them and break PC-relative references.
  std::vector<std::string> unsupported;
  // Inconsistencies that do not stop reading (e.g. amdhsa.target disagrees with e_flags).
  std::vector<std::string> warnings;
};

inline const std::string kDefaultComment = std::string("k100lc", 7);  // includes the NUL

struct CodeObject {
  std::string origin;  // file name or description, used in messages
  Target target;
  CodeObjectVersion version = CodeObjectVersion::V5;
  std::vector<uint8_t> text;  // all code, as assembled; .text is aligned to 256
  // Non-descriptor symbols (functions, labels, data). Descriptor symbols are generated
  // from `kernels`; a kernel without a Text symbol of its name gets a FUNC GLOBAL
  // PROTECTED one (size code_size). Local symbols go to .symtab only.
  std::vector<Symbol> symbols;
  std::vector<Kernel> kernels;  // descriptors are laid out in this order
  // Read-only data placed after the descriptors in .rodata (e.g. HIP's weak
  // __HIP_Coordinates objects); Data symbols point into it.
  std::vector<uint8_t> rodata_data;
  // Writable data (.data, e.g. an OpenCL program-scope global), in a read-write
  // segment of its own after .dynamic as ld.lld places it; Writable symbols point into it.
  std::vector<uint8_t> data;
  uint32_t data_alignment = 1;
  // PC-relative references from .text to rodata_data and data (resolved by the writer).
  std::vector<TextReference> text_references;
  // The NT_AMDGPU_METADATA document, written verbatim (keys sorted). Nil: built with
  // make_metadata_document() from the kernels' `meta`.
  MetaNode metadata;
  // Raw .comment contents (NUL-terminated strings); empty = no .comment section.
  std::string comment = kDefaultComment;
  // Optional order of the global symbols in .symtab/.dynstr (names); the reader fills it
  // so a re-written object is byte-identical. Names not listed follow in default order:
  // `symbols` first, then descriptor symbols in kernel order (llvm-mc's order).
  std::vector<std::string> symbol_order;

  ReadInfo read_info;  // filled by the reader only

  const Kernel* find_kernel(std::string_view name) const;
  // The kernel's code: text[code_offset, code_offset + code_size), clamped to .text.
  std::span<const uint8_t> kernel_code(const Kernel& k) const;
};

// Replaces metadata["amdhsa.kernels"] with the records of the kernels' `meta` (kernels
// without one are skipped), keeping every other top-level key; a nil document becomes
// make_metadata_document(). Use after editing the kernels of an object that was read.
void sync_metadata(CodeObject& co);

}  // namespace k100::codeobj
