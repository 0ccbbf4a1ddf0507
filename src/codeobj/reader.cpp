#include "k100/codeobj/reader.h"

#include "k100/codeobj/input_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "byte_io.h"
#include "elf_format.h"
#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

using namespace detail;

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

struct Shdr {
  uint32_t name_off = 0;
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0, info = 0;
  uint64_t align = 0, entsize = 0;
  uint64_t header_at = 0;  // file offset of this section header
};

struct RawSym {
  std::string name;
  uint8_t bind, type, vis;
  uint16_t shndx;
  uint64_t value, size;
  uint64_t at;  // file offset of the entry
};

bool in_file(uint64_t off, uint64_t size, uint64_t file) {
  return off <= file && size <= file - off;
}

class Reader {
 public:
  Reader(std::span<const uint8_t> bytes, std::string_view origin)
      : b_(bytes), origin_(origin.empty() ? "code object" : origin) {}

  CodeObject run() {
    co_.origin = origin_;
    read_header();
    read_sections();
    read_metadata();
    read_target();
    read_text_and_rodata();
    read_symbols();
    build_kernels();
    attach_metadata();
    check_unsupported();
    return std::move(co_);
  }

  std::vector<uint8_t> metadata_only() {
    read_header();
    read_sections();
    std::optional<std::span<const uint8_t>> note = find_metadata_note();
    if (!note) fail(0, "no NT_AMDGPU_METADATA note");
    return std::vector<uint8_t>(note->begin(), note->end());
  }

 private:
  [[noreturn]] void fail(uint64_t at, const std::string& msg) const {
    throw Error(origin_ + ": at byte offset " + std::to_string(at) + " (" + hex(at) + "): " + msg);
  }

  void need(uint64_t at, uint64_t size, const std::string& what) const {
    if (!in_file(at, size, b_.size()))
      fail(at, what + " (" + std::to_string(size) + " bytes) extends past the end of the file (" +
                   std::to_string(b_.size()) + " bytes)");
  }

  uint16_t u16(uint64_t at) const { return load_u16(&b_[at]); }
  uint32_t u32(uint64_t at) const { return load_u32(&b_[at]); }
  uint64_t u64(uint64_t at) const { return load_u64(&b_[at]); }

  std::string section_label(size_t i) const {
    return "section [" + std::to_string(i) + "]" +
           (i < sh_.size() && !sh_[i].name.empty() ? " '" + sh_[i].name + "'" : "");
  }

  void read_header() {
    if (b_.size() < elf::kEhdrSize)
      fail(0,
           "file too small for an ELF header (" + std::to_string(b_.size()) + " bytes, need 64)");
    if (!(b_[0] == 0x7f && b_[1] == 'E' && b_[2] == 'L' && b_[3] == 'F'))
      fail(0, "not an ELF file (bad magic)");
    if (b_[4] != elf::kClass64)
      fail(4, "not a 64-bit ELF file (class " + std::to_string(b_[4]) + ")");
    if (b_[5] != elf::kDataLsb) fail(5, "not a little-endian ELF file");
    if (b_[6] != 1) fail(6, "unknown ELF version " + std::to_string(b_[6]));
    if (b_[7] != elf::kOsAbiAmdgpuHsa)
      fail(7, "OS ABI " + std::to_string(b_[7]) + " is not AMDGPU_HSA (64)");
    try {
      co_.version = version_from_abi(b_[8]);
    } catch (const Error& e) {
      fail(8, e.what());
    }
    uint16_t type = u16(16);
    if (type == elf::kTypeRel)
      fail(16, "relocatable object (ET_REL); link it with ld.lld -shared first");
    if (type != elf::kTypeDyn) fail(16, "ELF type " + std::to_string(type) + " is not ET_DYN (3)");
    if (u16(18) != elf::kMachineAmdgpu)
      fail(18, "machine " + std::to_string(u16(18)) + " is not EM_AMDGPU (224)");
    e_flags_ = u32(48);
    co_.read_info.e_flags = e_flags_;
    shoff_ = u64(40);
    shentsize_ = u16(58);
    shnum_ = u16(60);
    shstrndx_ = u16(62);
    if (shnum_ == 0) fail(60, "no section headers");
    if (shentsize_ != elf::kShdrSize)
      fail(58, "section header size " + std::to_string(shentsize_) + " is not 64");
    if (shoff_ % 8 != 0) fail(40, "section header table offset " + hex(shoff_) + " is misaligned");
    need(shoff_, uint64_t(shnum_) * elf::kShdrSize, "section header table");
    if (shstrndx_ >= shnum_)
      fail(62, "section name table index " + std::to_string(shstrndx_) + " is not below " +
                   std::to_string(shnum_));
  }

  void read_sections() {
    sh_.resize(shnum_);
    for (size_t i = 0; i < shnum_; ++i) {
      uint64_t at = shoff_ + i * elf::kShdrSize;
      Shdr& s = sh_[i];
      s.header_at = at;
      s.name_off = u32(at);
      s.type = u32(at + 4);
      s.flags = u64(at + 8);
      s.addr = u64(at + 16);
      s.offset = u64(at + 24);
      s.size = u64(at + 32);
      s.link = u32(at + 40);
      s.info = u32(at + 44);
      s.align = u64(at + 48);
      s.entsize = u64(at + 56);
      if (i > 0 && s.type != elf::kShtNobits && !in_file(s.offset, s.size, b_.size()))
        fail(at, section_label(i) + " contents (offset " + hex(s.offset) + ", size " + hex(s.size) +
                     ") extend past the end of the file (" + std::to_string(b_.size()) + " bytes)");
    }
    if (shstrndx_ == 0) fail(62, "there is no section name table (e_shstrndx is 0)");
    const Shdr& names = sh_[shstrndx_];
    if (names.type != elf::kShtStrtab)
      fail(names.header_at, "section name table is not a string table");
    for (size_t i = 1; i < shnum_; ++i) {
      sh_[i].name = string_at(names, sh_[i].name_off, sh_[i].header_at, "section name");
      co_.read_info.sections.push_back(
          {sh_[i].name, sh_[i].type, sh_[i].flags, sh_[i].addr, sh_[i].offset, sh_[i].size});
    }
  }

  std::string string_at(const Shdr& table, uint64_t off, uint64_t ref_at, const char* what) const {
    if (table.type == elf::kShtNobits || !in_file(table.offset, table.size, b_.size()))
      fail(ref_at, std::string(what) + ": its string table has no contents in the file");
    if (off >= table.size)
      fail(ref_at, std::string(what) + " offset " + std::to_string(off) +
                       " is outside its string table (" + std::to_string(table.size) + " bytes)");
    const uint8_t* p = b_.data() + table.offset + off;
    const uint8_t* end = b_.data() + table.offset + table.size;
    const uint8_t* z = std::find(p, end, uint8_t(0));
    if (z == end) fail(table.offset + off, std::string(what) + " is not NUL-terminated");
    return std::string(reinterpret_cast<const char*>(p), size_t(z - p));
  }

  std::span<const uint8_t> contents(const Shdr& s) const {
    if (s.type == elf::kShtNobits) return {};
    return b_.subspan(s.offset, s.size);
  }

  int find_section(std::string_view name) const {
    for (size_t i = 1; i < sh_.size(); ++i)
      if (sh_[i].name == name) return int(i);
    return -1;
  }

  std::optional<std::span<const uint8_t>> find_metadata_note() {
    std::optional<std::span<const uint8_t>> found;
    for (size_t i = 1; i < sh_.size(); ++i) {
      const Shdr& s = sh_[i];
      if (s.type != elf::kShtNote) continue;
      uint64_t pos = s.offset, end = s.offset + s.size;
      while (pos < end) {
        if (end - pos < 12) fail(pos, section_label(i) + ": truncated note header");
        uint64_t namesz = u32(pos), descsz = u32(pos + 4), type = u32(pos + 8);
        uint64_t name_at = pos + 12;
        if (align_up(namesz, 4) > end - name_at)
          fail(pos, section_label(i) + ": note name (" + std::to_string(namesz) +
                        " bytes) extends past the section end");
        uint64_t desc_at = name_at + align_up(namesz, 4);
        if (descsz > end - desc_at)
          fail(pos, section_label(i) + ": note descriptor (" + std::to_string(descsz) +
                        " bytes) extends past the section end");
        std::string_view owner(reinterpret_cast<const char*>(&b_[name_at]),
                               namesz ? size_t(namesz - 1) : 0);
        if (namesz == 7 && owner == "AMDGPU" && type == elf::kNtAmdgpuMetadata) {
          if (found) fail(pos, "more than one NT_AMDGPU_METADATA note");
          found = b_.subspan(desc_at, descsz);
          note_at_ = desc_at;
        } else {
          co_.read_info.warnings.push_back("note '" + std::string(owner) + "' type " +
                                           std::to_string(type) + " ignored");
        }
        pos = desc_at + align_up(descsz, 4);
      }
    }
    return found;
  }

  void read_metadata() {
    auto note = find_metadata_note();
    if (!note) {
      co_.read_info.warnings.push_back("no NT_AMDGPU_METADATA note");
      return;
    }
    co_.metadata = decode_msgpack(
        *note, origin_ + ": NT_AMDGPU_METADATA note at byte offset " + std::to_string(note_at_));
    if (!co_.metadata.is_map())
      fail(note_at_, "metadata document is " +
                         std::string(MetaNode::kind_name(co_.metadata.kind())) + ", not a map");
  }

  void read_target() {
    try {
      co_.target = target_from_e_flags(e_flags_, co_.version);
    } catch (const Error& e) {
      fail(48, e.what());
    }
    const MetaNode* t = co_.metadata.find("amdhsa.target");
    if (!t) return;
    if (!t->is_string()) {
      co_.read_info.warnings.push_back("amdhsa.target is not a string");
      return;
    }
    try {
      Target mt = parse_target_id(t->as_string());
      if (!find_processor_by_mach(e_flags_ & 0xff)) co_.target.processor = mt.processor;
      if (mt != co_.target)
        co_.read_info.warnings.push_back("amdhsa.target '" + t->as_string() +
                                         "' differs from e_flags " + hex(e_flags_) + " (" +
                                         co_.target.id() + ")");
    } catch (const Error& e) {
      co_.read_info.warnings.push_back(std::string("amdhsa.target: ") + e.what());
    }
  }

  void read_text_and_rodata() {
    text_idx_ = find_section(".text");
    if (text_idx_ < 0) fail(shoff_, "no .text section");
    const Shdr& t = sh_[size_t(text_idx_)];
    if (t.type != elf::kShtProgbits) fail(t.header_at, ".text is not PROGBITS");
    auto tb = contents(t);
    co_.text.assign(tb.begin(), tb.end());
    co_.read_info.text_address = t.addr;
    rodata_idx_ = find_section(".rodata");
    if (rodata_idx_ >= 0) co_.read_info.rodata_address = sh_[size_t(rodata_idx_)].addr;
    int comment = find_section(".comment");
    if (comment >= 0) {
      auto cb = contents(sh_[size_t(comment)]);
      co_.comment.assign(cb.begin(), cb.end());
    } else {
      co_.comment.clear();
    }
  }

  void read_symbols() {
    int tab = find_section(".symtab");
    if (tab < 0) tab = find_section(".dynsym");
    if (tab < 0) return;
    const Shdr& st = sh_[size_t(tab)];
    if (st.type != elf::kShtSymtab && st.type != elf::kShtDynsym)
      fail(st.header_at, section_label(size_t(tab)) + " is not a symbol table (type " +
                             std::to_string(st.type) + ")");
    if (st.entsize != elf::kSymSize)
      fail(st.header_at,
           section_label(size_t(tab)) + " entry size " + std::to_string(st.entsize) + " is not 24");
    if (st.link == 0 || st.link >= sh_.size() || sh_[st.link].type != elf::kShtStrtab)
      fail(st.header_at, section_label(size_t(tab)) + " links to section " +
                             std::to_string(st.link) + ", which is not a string table");
    const Shdr& strs = sh_[st.link];
    size_t count = st.size / elf::kSymSize;
    for (size_t i = 1; i < count; ++i) {
      uint64_t at = st.offset + i * elf::kSymSize;
      RawSym s;
      s.at = at;
      uint32_t name = u32(at);
      uint8_t info = b_[at + 4];
      s.bind = info >> 4;
      s.type = info & 0xf;
      s.vis = b_[at + 5] & 3;
      s.shndx = u16(at + 6);
      s.value = u64(at + 8);
      s.size = u64(at + 16);
      s.name = string_at(strs, name, at, "symbol name");
      syms_.push_back(std::move(s));
    }
  }

  static SymbolBinding binding(uint8_t b) {
    return b == 0 ? SymbolBinding::Local : b == 2 ? SymbolBinding::Weak : SymbolBinding::Global;
  }
  static SymbolType sym_type(uint8_t t) {
    return t == 2 ? SymbolType::Func : t == 1 ? SymbolType::Object : SymbolType::NoType;
  }

  void build_kernels() {
    const Shdr& text = sh_[size_t(text_idx_)];
    struct Kd {
      const RawSym* sym;
      int section;
    };
    std::vector<Kd> kds;
    std::vector<const RawSym*> data_syms;
    for (const auto& s : syms_) {
      if (s.type == elf::kSttSection || s.type == elf::kSttFile || s.name.empty()) continue;
      if (s.name == "_DYNAMIC") continue;
      if (s.shndx == elf::kShnUndef || s.shndx >= elf::kShnLoReserve) continue;
      if (s.shndx >= sh_.size())
        fail(s.at, "symbol '" + s.name + "' has section index " + std::to_string(s.shndx) +
                       " beyond the " + std::to_string(sh_.size()) + " sections");
      if (s.bind != 0) co_.symbol_order.push_back(s.name);
      bool is_kd = s.name.size() > 3 && s.name.compare(s.name.size() - 3, 3, ".kd") == 0 &&
                   s.type != 2 /*FUNC*/;
      if (is_kd) {
        kds.push_back({&s, int(s.shndx)});
        continue;
      }
      if (int(s.shndx) == text_idx_) {
        if (s.value < text.addr || s.value - text.addr > text.size)
          fail(s.at, "symbol '" + s.name + "' (address " + hex(s.value) + ") is outside .text");
        uint64_t off = s.value - text.addr;
        if (s.size > text.size - off)
          fail(s.at, "symbol '" + s.name + "' (size " + std::to_string(s.size) +
                         ") extends past the end of .text");
        co_.symbols.push_back({s.name, SymbolSection::Text, off, s.size, sym_type(s.type),
                               binding(s.bind), SymbolVisibility(s.vis)});
      } else if (int(s.shndx) == rodata_idx_) {
        data_syms.push_back(&s);
      } else if (sh_[s.shndx].flags & elf::kShfAlloc) {
        co_.read_info.unsupported.push_back("symbol '" + s.name + "' in section " +
                                            sh_[s.shndx].name);
      }
    }

    std::sort(kds.begin(), kds.end(),
              [](const Kd& a, const Kd& b) { return a.sym->value < b.sym->value; });
    std::vector<uint64_t> starts;  // text offsets where code starts, for code_size
    for (const auto& s : co_.symbols)
      if (s.section == SymbolSection::Text && s.type == SymbolType::Func)
        starts.push_back(s.offset);
    for (size_t i = 0; i < kds.size(); ++i) {
      const RawSym& s = *kds[i].sym;
      const Shdr& sec = sh_[size_t(kds[i].section)];
      if (sec.type == elf::kShtNobits || s.value < sec.addr || s.value - sec.addr > sec.size ||
          KernelDescriptor::kSize > sec.size - (s.value - sec.addr))
        fail(s.at, "kernel descriptor '" + s.name + "' (address " + hex(s.value) +
                       ") does not lie within its section " + sec.name);
      uint64_t file_at = sec.offset + (s.value - sec.addr);
      Kernel k;
      k.name = s.name.substr(0, s.name.size() - 3);
      k.descriptor = KernelDescriptor::decode(b_.subspan(file_at, KernelDescriptor::kSize));
      k.kd_binding = binding(s.bind);
      k.kd_visibility = SymbolVisibility(s.vis);
      __int128 entry = __int128(s.value) + k.descriptor.kernel_code_entry_byte_offset;
      if (entry < __int128(text.addr) || entry >= __int128(text.addr) + __int128(text.size))
        fail(file_at + 16, "kernel '" + k.name + "': descriptor entry offset " +
                               std::to_string(k.descriptor.kernel_code_entry_byte_offset) +
                               " points outside .text");
      k.code_offset = uint64_t(entry - __int128(text.addr));
      starts.push_back(k.code_offset);
      if (kds[i].section != rodata_idx_)
        co_.read_info.unsupported.push_back("descriptor '" + s.name + "' in section " + sec.name);
      else if (s.value - sec.addr != i * KernelDescriptor::kSize)
        co_.read_info.unsupported.push_back(
            "descriptors do not form one block at the start of .rodata ('" + s.name + "')");
      co_.kernels.push_back(std::move(k));
    }
    std::sort(starts.begin(), starts.end());
    for (auto& k : co_.kernels) {
      uint64_t size = 0;
      for (const auto& s : co_.symbols)
        if (s.name == k.name && s.section == SymbolSection::Text && s.offset == k.code_offset)
          size = s.size;
      if (size == 0) {
        auto next = std::upper_bound(starts.begin(), starts.end(), k.code_offset);
        size = (next == starts.end() ? co_.text.size() : *next) - k.code_offset;
      }
      k.code_size = size;
    }

    // Data after the descriptors in .rodata.
    if (rodata_idx_ >= 0) {
      const Shdr& ro = sh_[size_t(rodata_idx_)];
      uint64_t kd_end = uint64_t(co_.kernels.size()) * KernelDescriptor::kSize;
      auto rb = contents(ro);
      if (rb.size() > kd_end) co_.rodata_data.assign(rb.begin() + ptrdiff_t(kd_end), rb.end());
      for (const RawSym* s : data_syms) {
        uint64_t off = s->value - ro.addr;
        if (s->value < ro.addr || off > ro.size || s->size > ro.size - off)
          fail(s->at, "symbol '" + s->name + "' is outside .rodata");
        if (off < kd_end) {
          co_.read_info.unsupported.push_back("data symbol '" + s->name +
                                              "' among the kernel descriptors");
          continue;
        }
        co_.symbols.push_back({s->name, SymbolSection::Data, off - kd_end, s->size,
                               sym_type(s->type), binding(s->bind), SymbolVisibility(s->vis)});
      }
    }
  }

  void attach_metadata() {
    std::vector<KernelMeta> metas = parse_kernels(co_.metadata, origin_);
    for (auto& km : metas) {
      bool matched = false;
      for (auto& k : co_.kernels) {
        if (k.name + ".kd" == km.symbol) {
          if (k.meta) fail(note_at_, "two metadata records name descriptor '" + km.symbol + "'");
          k.meta = km;
          matched = true;
        }
      }
      if (!matched)
        co_.read_info.warnings.push_back("metadata kernel '" + km.name + "' names descriptor '" +
                                         km.symbol + "', which the object does not define");
    }
    for (const auto& k : co_.kernels)
      if (!k.meta) co_.read_info.warnings.push_back("kernel '" + k.name + "' has no metadata");
  }

  void check_unsupported() {
    static constexpr std::string_view kKnown[] = {".note",   ".dynsym", ".gnu.hash", ".hash",
                                                  ".dynstr", ".rodata", ".text",     ".dynamic"};
    for (size_t i = 1; i < sh_.size(); ++i) {
      const Shdr& s = sh_[i];
      if (!(s.flags & elf::kShfAlloc) || s.size == 0) continue;
      if (std::find(std::begin(kKnown), std::end(kKnown), s.name) != std::end(kKnown)) continue;
      co_.read_info.unsupported.push_back("section " + s.name + " (" + std::to_string(s.size) +
                                          " bytes)");
    }
  }

  std::span<const uint8_t> b_;
  std::string origin_;
  CodeObject co_;
  uint32_t e_flags_ = 0;
  uint64_t shoff_ = 0;
  uint16_t shentsize_ = 0, shnum_ = 0, shstrndx_ = 0;
  std::vector<Shdr> sh_;
  std::vector<RawSym> syms_;
  int text_idx_ = -1, rodata_idx_ = -1;
  uint64_t note_at_ = 0;
};

}  // namespace

CodeObject read_code_object(std::span<const uint8_t> bytes, std::string_view origin) {
  return Reader(bytes, origin).run();
}

CodeObject read_code_object_file(const std::string& path) {
  std::vector<uint8_t> bytes = read_input_file(path, "code object");
  return read_code_object(bytes, path);
}

std::vector<uint8_t> read_metadata_note(std::span<const uint8_t> bytes, std::string_view origin) {
  return Reader(bytes, origin).metadata_only();
}

}  // namespace k100::codeobj
