// ELF code object -> CodeImage: kernels and metadata through the codeobj
// reader, the memory image from the PT_LOAD program headers.
#include "k100/emu/loader.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "k100/base/error.h"
#include "k100/codeobj/input_file.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/target.h"

namespace k100::emu {

namespace {

template <class T>
T rd(std::span<const uint8_t> b, uint64_t at, const std::string& origin) {
  if (at + sizeof(T) > b.size() || at + sizeof(T) < at)
    throw Error("emu: " + origin + ": truncated ELF (offset " + std::to_string(at) + ")");
  T v;
  std::memcpy(&v, b.data() + at, sizeof(T));
  return v;
}

}  // namespace

CodeImage image_from_code_object(std::span<const uint8_t> elf, std::string origin) {
  codeobj::CodeObject co = codeobj::read_code_object(elf, origin);
  codeobj::require_toolkit_target(co.target, "emu: " + origin);
  CodeImage img;
  img.origin = origin;
  // Program headers: map every PT_LOAD at its virtual address.
  uint64_t phoff = rd<uint64_t>(elf, 0x20, origin);
  uint16_t phentsize = rd<uint16_t>(elf, 0x36, origin), phnum = rd<uint16_t>(elf, 0x38, origin);
  struct Seg { uint64_t off, vaddr, filesz, memsz; };
  std::vector<Seg> segs;
  uint64_t image_size = 0;
  for (uint16_t i = 0; i < phnum; ++i) {
    uint64_t at = phoff + uint64_t(i) * phentsize;
    if (rd<uint32_t>(elf, at, origin) != 1) continue;  // PT_LOAD
    bool writable = rd<uint32_t>(elf, at + 4, origin) & 2;  // PF_W
    Seg s{rd<uint64_t>(elf, at + 8, origin), rd<uint64_t>(elf, at + 16, origin), rd<uint64_t>(elf, at + 32, origin),
          rd<uint64_t>(elf, at + 40, origin)};
    if (s.filesz > s.memsz || s.off + s.filesz > elf.size() || s.vaddr + s.memsz > (uint64_t(1) << 32))
      throw Error("emu: " + origin + ": PT_LOAD segment " + std::to_string(i) + " is malformed");
    segs.push_back(s);
    image_size = std::max(image_size, s.vaddr + s.memsz);
    // The RW segment holding only .dynamic does not count; data sections do.
    if (writable && s.memsz) {
      for (const auto& sec : co.read_info.sections)
        if ((sec.flags & 1) && sec.address >= s.vaddr && sec.address < s.vaddr + s.memsz && sec.name != ".dynamic")
          img.writable = true;
    }
  }
  if (segs.empty()) throw Error("emu: " + origin + ": no loadable segments");
  img.bytes.assign(size_t(image_size), 0);
  for (const Seg& s : segs) std::memcpy(img.bytes.data() + s.vaddr, elf.data() + s.off, size_t(s.filesz));
  img.code_begin = co.read_info.text_address;
  img.code_end = co.read_info.text_address + co.text.size();
  if (img.code_end > img.bytes.size()) throw Error("emu: " + origin + ": .text is not inside a loadable segment");

  // Dynamic relocations (.rela.dyn): R_AMDGPU_RELATIVE64 against the load base.
  uint64_t shoff = rd<uint64_t>(elf, 0x28, origin);
  uint16_t shentsize = rd<uint16_t>(elf, 0x3a, origin), shnum = rd<uint16_t>(elf, 0x3c, origin);
  for (uint16_t i = 0; i < shnum; ++i) {
    uint64_t at = shoff + uint64_t(i) * shentsize;
    if (rd<uint32_t>(elf, at + 4, origin) != 4) continue;  // SHT_RELA
    if (!(rd<uint64_t>(elf, at + 8, origin) & 2)) continue;  // SHF_ALLOC: dynamic relocations only
    uint64_t off = rd<uint64_t>(elf, at + 24, origin), size = rd<uint64_t>(elf, at + 32, origin);
    for (uint64_t r = 0; r + 24 <= size; r += 24) {
      uint64_t where = rd<uint64_t>(elf, off + r, origin);
      uint64_t info = rd<uint64_t>(elf, off + r + 8, origin);
      int64_t addend = rd<int64_t>(elf, off + r + 16, origin);
      if (uint32_t(info) == 13) img.relative_relocations.push_back({where, addend});
      else if (uint32_t(info) != 0)
        throw Error("emu: " + origin + ": dynamic relocation type " + std::to_string(uint32_t(info)) +
                    " is not supported (only R_AMDGPU_RELATIVE64)");
    }
  }

  for (const codeobj::Kernel& k : co.kernels) {
    KernelSpec s;
    s.name = k.name;
    s.entry = img.code_begin + k.code_offset;
    s.group_segment_fixed_size = k.descriptor.group_segment_fixed_size;
    s.private_segment_fixed_size = k.descriptor.private_segment_fixed_size;
    s.kernarg_size = k.descriptor.kernarg_size;
    s.rsrc1 = k.descriptor.compute_pgm_rsrc1;
    s.rsrc2 = k.descriptor.compute_pgm_rsrc2;
    s.properties = k.descriptor.kernel_code_properties;
    s.code_object_version = unsigned(co.version);
    if (k.meta) {
      for (const codeobj::ArgMeta& a : k.meta->args)
        s.args.push_back({a.name.value_or(""), a.offset, a.size, a.value_kind});
      if (!s.kernarg_size) s.kernarg_size = uint32_t(k.meta->kernarg_segment_size);
      s.max_flat_workgroup_size = k.meta->max_flat_workgroup_size;
    }
    img.kernels.push_back(std::move(s));
  }
  return img;
}

CodeImage image_from_code_object_file(const std::string& path) {
  return image_from_code_object(codeobj::read_input_file(path, "emu: code object"), path);
}

}  // namespace k100::emu
