// k100lc emu: what the emulator needs to know about a code object.
//
// A CodeImage is a code object as the loader would map it: the bytes of its
// loadable segments at their virtual addresses (offset 0 = the image base),
// the range holding instructions, and per kernel the descriptor words, the
// entry point and the kernarg layout (explicit and hidden arguments). The
// emulator core works on this plain description only; loader.h builds one
// from an ELF file through the codeobj reader, and tests may build one by
// hand from raw instruction bytes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "k100/codeobj/kernel_metadata.h"

namespace k100::emu {

// How the dispatch fills a kernarg slot: the metadata value kind. Explicit
// arguments (by value, buffers, dynamic LDS pointers, images, samplers, pipes,
// queues) come from the caller's bytes; hidden ones are written by the
// dispatch as the HSA runtime would.
using ArgKind = codeobj::ValueKind;
using codeobj::is_hidden;

struct KernelArg {
  std::string name;
  uint32_t offset = 0;
  uint32_t size = 0;
  ArgKind kind = ArgKind::ByValue;
};

struct KernelSpec {
  std::string name;
  uint64_t entry = 0;  // byte offset of the first instruction in the image
  // Kernel descriptor fields (see codeobj/kernel_descriptor.h for the bits).
  uint32_t group_segment_fixed_size = 0;
  uint32_t private_segment_fixed_size = 0;
  uint32_t kernarg_size = 0;
  uint32_t rsrc1 = 0, rsrc2 = 0;
  uint16_t properties = 0;
  uint32_t max_flat_workgroup_size = 0;  // metadata; 0 when there is none
  std::vector<KernelArg> args;   // explicit then hidden, as in the metadata
  uint32_t code_object_version = 5;

  // The explicit (non-hidden) arguments, in order.
  std::vector<const KernelArg*> explicit_args() const;
  // End of the last explicit argument (the bytes a caller must supply).
  uint32_t explicit_size() const;
};

struct CodeImage {
  std::string origin;              // file name or description, used in reports
  std::vector<uint8_t> bytes;      // loadable segments at their virtual addresses
  uint64_t code_begin = 0;         // [code_begin, code_end): instructions (.text)
  uint64_t code_end = 0;
  // A loadable segment is writable (program-scope variables in .data/.bss):
  // then the image is mapped writable as a whole (stores into the code are no
  // longer caught); otherwise it is read-only.
  bool writable = false;
  std::vector<KernelSpec> kernels;
  // R_AMDGPU_RELATIVE64 relocations: the 8 bytes at `offset` become
  // image base + addend when the image is mapped.
  struct Relocation {
    uint64_t offset = 0;
    int64_t addend = 0;
  };
  std::vector<Relocation> relative_relocations;

  const KernelSpec* find_kernel(std::string_view name) const;
};

}  // namespace k100::emu
