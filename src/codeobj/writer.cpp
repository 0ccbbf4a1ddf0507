#include "k100/codeobj/writer.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "byte_io.h"
#include "elf_format.h"
#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

using namespace detail;

struct OutSym {
  std::string name;
  uint8_t type, binding, visibility;
  uint16_t shndx;  // filled once section indices are known
  uint64_t value, size;
  int section;  // 0 text, 1 descriptor, 2 .dynamic, 3 data after the descriptors, 4 .data
};

uint32_t gnu_hash(std::string_view s) {
  uint32_t h = 5381;
  for (unsigned char c : s) h = h * 33 + c;
  return h;
}

uint32_t sysv_hash(std::string_view s) {
  uint32_t h = 0;
  for (unsigned char c : s) {
    h = (h << 4) + c;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

// llvm::NextPowerOf2: the next power of two strictly greater than v.
uint64_t next_power_of_2(uint64_t v) {
  v |= v >> 1;
  v |= v >> 2;
  v |= v >> 4;
  v |= v >> 8;
  v |= v >> 16;
  v |= v >> 32;
  return v + 1;
}

// ld.lld's address for the first section of a new PT_LOAD: the next page plus the
// current offset within the page (avoids file padding), then the section's alignment.
uint64_t next_segment_address(uint64_t dot, uint64_t align) {
  uint64_t a = align_up(dot, elf::kPageSize) + dot % elf::kPageSize;
  return align_up(a, align);
}

struct SectionOut {
  std::string name;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0, align = 1, entsize = 0;
  uint32_t link = 0, info = 0;
  std::vector<uint8_t> data;
};

class Writer {
 public:
  explicit Writer(const CodeObject& co) : co_(co) {}

  std::vector<uint8_t> run() {
    validate();
    build_symbols();
    build_note();
    build_dynamic_tables();
    layout_and_emit();
    return out_.bytes();
  }

 private:
  [[noreturn]] void fail(const std::string& msg) const {
    throw Error((co_.origin.empty() ? std::string("code object") : co_.origin) + ": " + msg);
  }

  void validate() {
    if (!co_.read_info.unsupported.empty())
      fail("cannot be re-written: " + co_.read_info.unsupported.front());
    const ProcessorInfo* p = find_processor(co_.target.processor);
    if (!p) fail("unknown processor '" + co_.target.processor + "'");
    if (!p->toolkit_target)
      fail("processor '" + co_.target.processor + "' is not one k100lc writes code for: " + toolkit_processors_text());
    try {
      e_flags_ = e_flags_for(co_.target, co_.version);
    } catch (const Error& e) {
      fail(e.what());
    }
    if (co_.text.empty()) fail("no code (.text is empty)");
    std::set<std::string> kernel_names;
    for (const auto& k : co_.kernels) {
      if (k.name.empty()) fail("a kernel has no name");
      if (!kernel_names.insert(k.name).second) fail("duplicate kernel '" + k.name + "'");
      if (k.code_offset >= co_.text.size())
        fail("kernel '" + k.name + "': entry offset " + std::to_string(k.code_offset) +
             " is outside .text (" + std::to_string(co_.text.size()) + " bytes)");
    }
    auto limit_of = [&](SymbolSection s) {
      return s == SymbolSection::Text ? co_.text.size()
             : s == SymbolSection::Data ? co_.rodata_data.size()
                                        : co_.data.size();
    };
    for (const auto& r : co_.text_references)  // (S + A may lie past its section: A holds the PC's offset)
      if (r.text_offset + 4 > co_.text.size())
        fail("a PC-relative reference at .text offset " + std::to_string(r.text_offset) + " lies outside .text");
    if (co_.data_alignment == 0 || (co_.data_alignment & (co_.data_alignment - 1)))
      fail(".data alignment " + std::to_string(co_.data_alignment) + " is not a power of two");
    for (const auto& s : co_.symbols) {
      uint64_t limit = limit_of(s.section);
      if (s.name.empty()) fail("a symbol has no name");
      if (s.offset > limit || s.size > limit - s.offset)
        fail("symbol '" + s.name + "' (offset " + std::to_string(s.offset) + ", size " +
             std::to_string(s.size) + ") is outside its section");
    }
  }

  void build_symbols() {
    std::set<std::string> text_names;
    for (const auto& s : co_.symbols)
      if (s.section == SymbolSection::Text) text_names.insert(s.name);
    std::vector<OutSym> globals;
    for (const auto& s : co_.symbols) {
      OutSym o{s.name,
               uint8_t(s.type),
               uint8_t(s.binding),
               uint8_t(s.visibility),
               0,
               s.offset,
               s.size,
               s.section == SymbolSection::Text ? 0 : s.section == SymbolSection::Data ? 3 : 4};
      bool local = s.binding == SymbolBinding::Local || s.visibility == SymbolVisibility::Hidden ||
                   s.visibility == SymbolVisibility::Internal;
      if (local) {
        o.binding = uint8_t(SymbolBinding::Local);
        locals_.push_back(o);
      } else {
        globals.push_back(o);
      }
    }
    for (const auto& k : co_.kernels)
      if (!text_names.count(k.name))
        globals.push_back({k.name, uint8_t(SymbolType::Func), uint8_t(SymbolBinding::Global),
                           uint8_t(SymbolVisibility::Protected), 0, k.code_offset, k.code_size, 0});
    for (size_t i = 0; i < co_.kernels.size(); ++i) {
      const Kernel& k = co_.kernels[i];
      OutSym kd{k.name + ".kd", uint8_t(SymbolType::Object), uint8_t(k.kd_binding), uint8_t(k.kd_visibility), 0,
                i * KernelDescriptor::kSize, KernelDescriptor::kSize, 1};
      if (k.kd_binding == SymbolBinding::Local || k.kd_visibility == SymbolVisibility::Hidden ||
          k.kd_visibility == SymbolVisibility::Internal) {
        kd.binding = uint8_t(SymbolBinding::Local);
        locals_.push_back(kd);
      } else {
        globals.push_back(kd);
      }
    }
    std::set<std::string> seen;
    for (const auto& g : globals)
      if (!seen.insert(g.name).second) fail("duplicate symbol '" + g.name + "'");
    if (!co_.symbol_order.empty()) {
      std::map<std::string, size_t> rank;
      for (size_t i = 0; i < co_.symbol_order.size(); ++i) rank.emplace(co_.symbol_order[i], i);
      std::stable_sort(globals.begin(), globals.end(), [&](const OutSym& a, const OutSym& b) {
        auto ra = rank.find(a.name), rb = rank.find(b.name);
        size_t ia = ra == rank.end() ? SIZE_MAX : ra->second;
        size_t ib = rb == rank.end() ? SIZE_MAX : rb->second;
        return ia < ib;
      });
    }
    globals_ = std::move(globals);
  }

  void build_note() {
    MetaNode doc = co_.metadata;
    if (doc.is_nil()) {
      std::vector<KernelMeta> metas;
      for (const auto& k : co_.kernels) {
        if (!k.meta) fail("kernel '" + k.name + "' has no metadata record");
        metas.push_back(*k.meta);
      }
      doc = make_metadata_document(co_.version, co_.target, metas);
    }
    std::vector<uint8_t> desc = encode_msgpack(doc);
    ByteWriter w;
    w.u32(7);  // "AMDGPU\0"
    w.u32(static_cast<uint32_t>(desc.size()));
    w.u32(elf::kNtAmdgpuMetadata);
    w.raw("AMDGPU\0\0", 8);
    w.raw(desc.data(), desc.size());
    w.pad_to(align_up(w.size(), 4));
    note_ = std::move(w.bytes());
  }

  void build_dynamic_tables() {
    // .dynstr in insertion order; .dynsym sorted by GNU hash bucket, then string offset.
    dynstr_.push_back(0);
    struct Entry {
      size_t global;
      uint32_t hash, bucket, stroff;
    };
    std::vector<Entry> entries;
    size_t n = globals_.size();
    uint32_t nbuckets = static_cast<uint32_t>(std::max<size_t>(n / 4, 1));
    for (size_t i = 0; i < n; ++i) {
      uint32_t off = static_cast<uint32_t>(dynstr_.size());
      dynstr_.insert(dynstr_.end(), globals_[i].name.begin(), globals_[i].name.end());
      dynstr_.push_back(0);
      uint32_t h = gnu_hash(globals_[i].name);
      entries.push_back({i, h, h % nbuckets, off});
    }
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return std::tie(a.bucket, a.stroff) < std::tie(b.bucket, b.stroff);
    });
    for (const auto& e : entries) {
      dynsym_order_.push_back(e.global);
      dynsym_stroff_.push_back(e.stroff);
    }

    // .gnu.hash
    uint64_t mask_words = n == 0 ? 1 : next_power_of_2(uint64_t(n) * 12 / 64);
    ByteWriter g;
    g.u32(nbuckets);
    g.u32(1);  // symbol index of the first hashed symbol (after the null symbol)
    g.u32(static_cast<uint32_t>(mask_words));
    g.u32(26);  // shift2
    std::vector<uint64_t> bloom(mask_words, 0);
    for (const auto& e : entries) {
      size_t i = (e.hash / 64) & (mask_words - 1);
      bloom[i] |= uint64_t(1) << (e.hash % 64);
      bloom[i] |= uint64_t(1) << ((e.hash >> 26) % 64);
    }
    for (uint64_t w : bloom) g.u64(w);
    std::vector<uint32_t> buckets(nbuckets, 0);
    for (size_t i = 0; i < entries.size(); ++i)
      if (i == 0 || entries[i].bucket != entries[i - 1].bucket)
        buckets[entries[i].bucket] = static_cast<uint32_t>(i + 1);
    for (uint32_t b : buckets) g.u32(b);
    for (size_t i = 0; i < entries.size(); ++i) {
      bool last = i + 1 == entries.size() || entries[i + 1].bucket != entries[i].bucket;
      g.u32(last ? (entries[i].hash | 1) : (entries[i].hash & ~1u));
    }
    gnu_hash_ = std::move(g.bytes());

    // .hash (SysV): nbucket = nchain = number of dynamic symbols.
    uint32_t nsyms = static_cast<uint32_t>(n + 1);
    std::vector<uint32_t> sbuckets(nsyms, 0), chains(nsyms, 0);
    for (size_t i = 0; i < dynsym_order_.size(); ++i) {
      uint32_t idx = static_cast<uint32_t>(i + 1);
      uint32_t h = sysv_hash(globals_[dynsym_order_[i]].name) % nsyms;
      chains[idx] = sbuckets[h];
      sbuckets[h] = idx;
    }
    ByteWriter hw;
    hw.u32(nsyms);
    hw.u32(nsyms);
    for (uint32_t b : sbuckets) hw.u32(b);
    for (uint32_t c : chains) hw.u32(c);
    hash_ = std::move(hw.bytes());
  }

  void add_section(SectionOut s) { sections_.push_back(std::move(s)); }

  void layout_and_emit() {
    const size_t nkd = co_.kernels.size();
    std::vector<uint8_t> rodata(nkd * KernelDescriptor::kSize);
    rodata.insert(rodata.end(), co_.rodata_data.begin(), co_.rodata_data.end());
    const bool has_rodata = !rodata.empty();
    const bool has_comment = !co_.comment.empty();

    // Section indices (fixed order, as ld.lld emits them).
    int idx = 1;
    idx++;  // .note
    const int i_dynsym = idx++;
    idx += 2;  // .gnu.hash, .hash
    const int i_dynstr = idx++;
    const int i_rodata = has_rodata ? idx++ : 0;
    const int i_text = idx++, i_dynamic = idx++;
    const bool has_data = !co_.data.empty();
    const int i_data = has_data ? idx++ : 0;
    const int i_comment = has_comment ? idx++ : 0;
    idx++;  // .symtab
    const int i_shstrtab = idx++, i_strtab = idx++;
    const int nsections = idx;
    (void)i_comment;

    // Addresses of the allocated sections.
    const uint64_t dynsym_size = (globals_.size() + 1) * elf::kSymSize;
    const uint64_t dynamic_size = 7 * elf::kDynSize;
    uint64_t off = elf::kEhdrSize + (co_.data.empty() ? 8 : 9) * elf::kPhdrSize;
    auto place = [&](uint64_t size, uint64_t align) {
      off = align_up(off, align);
      uint64_t at = off;
      off += size;
      return at;
    };
    const uint64_t a_note = place(note_.size(), 4);
    const uint64_t a_dynsym = place(dynsym_size, 8);
    const uint64_t a_gnuhash = place(gnu_hash_.size(), 8);
    const uint64_t a_hash = place(hash_.size(), 4);
    const uint64_t a_dynstr = place(dynstr_.size(), 1);
    const uint64_t a_rodata = has_rodata ? place(rodata.size(), 64) : off;
    const uint64_t r_end = off;
    const uint64_t a_text = next_segment_address(r_end, 256);
    const uint64_t o_text = align_up_skew(r_end, elf::kPageSize, a_text);
    const uint64_t text_end = a_text + co_.text.size();
    const uint64_t a_dynamic = next_segment_address(text_end, 8);
    const uint64_t o_dynamic = align_up_skew(o_text + co_.text.size(), elf::kPageSize, a_dynamic);
    // .data: a read-write segment of its own after the RELRO one holding .dynamic
    const uint64_t data_align = std::max<uint64_t>(co_.data_alignment, 1);
    const uint64_t a_data = has_data ? next_segment_address(a_dynamic + dynamic_size, data_align) : 0;
    const uint64_t o_data = has_data ? align_up_skew(o_dynamic + dynamic_size, elf::kPageSize, a_data) : 0;
    const uint64_t a_rodata_data = a_rodata + nkd * KernelDescriptor::kSize;
    const int nphdrs = has_data ? 9 : 8;

    // Descriptors with their entry offsets.
    for (size_t i = 0; i < nkd; ++i) {
      KernelDescriptor kd = co_.kernels[i].descriptor;
      uint64_t kd_addr = a_rodata + i * KernelDescriptor::kSize;
      kd.kernel_code_entry_byte_offset =
          static_cast<int64_t>(a_text + co_.kernels[i].code_offset) - static_cast<int64_t>(kd_addr);
      auto bytes = kd.encode();
      std::copy(bytes.begin(), bytes.end(), rodata.begin() + i * KernelDescriptor::kSize);
    }

    // Final symbol values and section indices.
    auto finish = [&](OutSym& s) {
      if (s.section == 0) {
        s.value += a_text;
        s.shndx = uint16_t(i_text);
      } else if (s.section == 4) {
        s.value += a_data;
        s.shndx = uint16_t(i_data);
      } else {
        s.value += a_rodata + (s.section == 3 ? nkd * KernelDescriptor::kSize : 0);
        s.shndx = uint16_t(i_rodata);
      }
    };
    for (auto& s : locals_) finish(s);
    for (auto& s : globals_) finish(s);

    // PC-relative references from the code: the halves of S + A - P
    std::vector<uint8_t> text = co_.text;
    for (const auto& r : co_.text_references) {
      uint64_t target = (r.section == SymbolSection::Writable ? a_data
                         : r.section == SymbolSection::Data   ? a_rodata_data
                                                              : a_text) + r.offset;
      uint64_t delta = target - (a_text + r.text_offset);
      store_u32(&text[r.text_offset], uint32_t(r.high ? delta >> 32 : delta));
    }

    // .dynsym
    ByteWriter ds;
    ds.zeros(elf::kSymSize);
    for (size_t i = 0; i < dynsym_order_.size(); ++i)
      put_sym(ds, globals_[dynsym_order_[i]], dynsym_stroff_[i]);

    // .symtab / .strtab: locals, _DYNAMIC, then globals in insertion order; the strings
    // are added in the order ld.lld adds them (locals, globals, _DYNAMIC last).
    std::vector<uint8_t> strtab{0};
    auto add_str = [&](const std::string& s) {
      uint32_t o = static_cast<uint32_t>(strtab.size());
      strtab.insert(strtab.end(), s.begin(), s.end());
      strtab.push_back(0);
      return o;
    };
    std::vector<uint32_t> local_off, global_off;
    for (const auto& s : locals_) local_off.push_back(add_str(s.name));
    for (const auto& s : globals_) global_off.push_back(add_str(s.name));
    uint32_t dynamic_name = add_str("_DYNAMIC");
    ByteWriter st;
    st.zeros(elf::kSymSize);
    for (size_t i = 0; i < locals_.size(); ++i) put_sym(st, locals_[i], local_off[i]);
    OutSym dyn{"_DYNAMIC",
               uint8_t(SymbolType::NoType),
               uint8_t(SymbolBinding::Local),
               uint8_t(SymbolVisibility::Hidden),
               uint16_t(i_dynamic),
               a_dynamic,
               0,
               2};
    put_sym(st, dyn, dynamic_name);
    for (size_t i = 0; i < globals_.size(); ++i) put_sym(st, globals_[i], global_off[i]);
    const uint32_t first_global = static_cast<uint32_t>(locals_.size() + 2);

    // .dynamic
    ByteWriter dy;
    auto dyn_entry = [&](int64_t tag, uint64_t val) {
      dy.u64(static_cast<uint64_t>(tag));
      dy.u64(val);
    };
    dyn_entry(elf::kDtSymtab, a_dynsym);
    dyn_entry(elf::kDtSyment, elf::kSymSize);
    dyn_entry(elf::kDtStrtab, a_dynstr);
    dyn_entry(elf::kDtStrsz, dynstr_.size());
    dyn_entry(elf::kDtGnuHash, a_gnuhash);
    dyn_entry(elf::kDtHash, a_hash);
    dyn_entry(elf::kDtNull, 0);

    // Section list.
    auto alloc = [](const char* name, uint32_t type, uint64_t flags, uint64_t addr, uint64_t offset,
                    uint64_t align, uint64_t entsize, std::vector<uint8_t> data) {
      SectionOut s;
      s.name = name;
      s.type = type;
      s.flags = flags;
      s.addr = addr;
      s.offset = offset;
      s.size = data.size();
      s.align = align;
      s.entsize = entsize;
      s.data = std::move(data);
      return s;
    };
    using namespace elf;
    add_section(alloc(".note", kShtNote, kShfAlloc, a_note, a_note, 4, 0, note_));
    SectionOut s_dynsym =
        alloc(".dynsym", kShtDynsym, kShfAlloc, a_dynsym, a_dynsym, 8, kSymSize, ds.bytes());
    s_dynsym.link = uint32_t(i_dynstr);
    s_dynsym.info = 1;
    add_section(std::move(s_dynsym));
    SectionOut s_gnu =
        alloc(".gnu.hash", kShtGnuHash, kShfAlloc, a_gnuhash, a_gnuhash, 8, 0, gnu_hash_);
    s_gnu.link = uint32_t(i_dynsym);
    add_section(std::move(s_gnu));
    SectionOut s_hash = alloc(".hash", kShtHash, kShfAlloc, a_hash, a_hash, 4, 4, hash_);
    s_hash.link = uint32_t(i_dynsym);
    add_section(std::move(s_hash));
    add_section(alloc(".dynstr", kShtStrtab, kShfAlloc, a_dynstr, a_dynstr, 1, 0, dynstr_));
    if (has_rodata)
      add_section(alloc(".rodata", kShtProgbits, kShfAlloc, a_rodata, a_rodata, 64, 0, rodata));
    add_section(alloc(".text", kShtProgbits, kShfAlloc | kShfExec, a_text, o_text, 256, 0, text));
    SectionOut s_dyn = alloc(".dynamic", kShtDynamic, kShfWrite | kShfAlloc, a_dynamic, o_dynamic,
                             8, kDynSize, dy.bytes());
    s_dyn.link = uint32_t(i_dynstr);
    add_section(std::move(s_dyn));
    if (has_data)
      add_section(alloc(".data", kShtProgbits, kShfWrite | kShfAlloc, a_data, o_data, data_align, 0, co_.data));

    uint64_t foff = has_data ? o_data + co_.data.size() : o_dynamic + dynamic_size;
    auto nonalloc = [&](const char* name, uint32_t type, uint64_t flags, uint64_t align,
                        uint64_t entsize, std::vector<uint8_t> data) {
      foff = align_up(foff, align);
      SectionOut s = alloc(name, type, flags, 0, foff, align, entsize, std::move(data));
      foff += s.size;
      return s;
    };
    if (has_comment)
      add_section(nonalloc(".comment", kShtProgbits, kShfMerge | kShfStrings, 1, 1,
                           std::vector<uint8_t>(co_.comment.begin(), co_.comment.end())));
    SectionOut s_symtab = nonalloc(".symtab", kShtSymtab, 0, 8, kSymSize, st.bytes());
    s_symtab.link = uint32_t(i_strtab);
    s_symtab.info = first_global;
    add_section(std::move(s_symtab));
    // .shstrtab: names in section order.
    std::vector<uint8_t> shstr{0};
    std::vector<uint32_t> name_off;
    std::vector<std::string> names;
    for (const auto& s : sections_) names.push_back(s.name);
    names.push_back(".shstrtab");
    names.push_back(".strtab");
    for (const auto& n : names) {
      name_off.push_back(static_cast<uint32_t>(shstr.size()));
      shstr.insert(shstr.end(), n.begin(), n.end());
      shstr.push_back(0);
    }
    add_section(nonalloc(".shstrtab", kShtStrtab, 0, 1, 0, shstr));
    add_section(nonalloc(".strtab", kShtStrtab, 0, 1, 0, strtab));
    if (int(sections_.size()) + 1 != nsections) fail("internal error: section count");
    const uint64_t shoff = align_up(foff, 8);

    // Emit.
    out_.zeros(elf::kEhdrSize);
    std::vector<uint8_t>& b = out_.bytes();
    const uint8_t ident[16] = {
        0x7f, 'E', 'L', 'F', kClass64, kDataLsb, 1, kOsAbiAmdgpuHsa, abi_version(co_.version),
        0,    0,   0,   0,   0,        0,        0};
    std::copy(ident, ident + 16, b.begin());
    store_u16(&b[16], kTypeDyn);
    store_u16(&b[18], kMachineAmdgpu);
    store_u32(&b[20], 1);
    store_u64(&b[24], 0);
    store_u64(&b[32], kEhdrSize);
    store_u64(&b[40], shoff);
    store_u32(&b[48], e_flags_);
    store_u16(&b[52], kEhdrSize);
    store_u16(&b[54], kPhdrSize);
    store_u16(&b[56], uint16_t(nphdrs));
    store_u16(&b[58], kShdrSize);
    store_u16(&b[60], uint16_t(nsections));
    store_u16(&b[62], uint16_t(i_shstrtab));

    auto phdr = [&](uint32_t type, uint32_t flags, uint64_t offset, uint64_t addr, uint64_t filesz,
                    uint64_t memsz, uint64_t align) {
      out_.u32(type);
      out_.u32(flags);
      out_.u64(offset);
      out_.u64(addr);
      out_.u64(addr);
      out_.u64(filesz);
      out_.u64(memsz);
      out_.u64(align);
    };
    const uint64_t phdrs = uint64_t(nphdrs) * kPhdrSize;
    phdr(kPtPhdr, kPfR, kEhdrSize, kEhdrSize, phdrs, phdrs, 8);
    phdr(kPtLoad, kPfR, 0, 0, r_end, r_end, kPageSize);
    phdr(kPtLoad, kPfR | kPfX, o_text, a_text, co_.text.size(), co_.text.size(), kPageSize);
    phdr(kPtLoad, kPfR | kPfW, o_dynamic, a_dynamic, dynamic_size, dynamic_size, kPageSize);
    if (has_data) phdr(kPtLoad, kPfR | kPfW, o_data, a_data, co_.data.size(), co_.data.size(), kPageSize);
    phdr(kPtDynamic, kPfR | kPfW, o_dynamic, a_dynamic, dynamic_size, dynamic_size, 8);
    phdr(kPtGnuRelro, kPfR, o_dynamic, a_dynamic, dynamic_size,
         align_up(o_dynamic + dynamic_size, kPageSize) - o_dynamic, 1);
    phdr(kPtGnuStack, kPfR | kPfW, 0, 0, 0, 0, 0);
    phdr(kPtNote, kPfR, a_note, a_note, note_.size(), note_.size(), 4);

    for (const auto& s : sections_) {
      out_.pad_to(s.offset);
      if (out_.size() != s.offset) fail("internal error: section " + s.name + " overlaps");
      out_.raw(s.data.data(), s.data.size());
    }
    out_.pad_to(shoff);
    out_.zeros(kShdrSize);
    for (size_t i = 0; i < sections_.size(); ++i) {
      const auto& s = sections_[i];
      out_.u32(name_off[i]);
      out_.u32(s.type);
      out_.u64(s.flags);
      out_.u64(s.addr);
      out_.u64(s.offset);
      out_.u64(s.size);
      out_.u32(s.link);
      out_.u32(s.info);
      out_.u64(s.align);
      out_.u64(s.entsize);
    }
  }

  static void put_sym(ByteWriter& w, const OutSym& s, uint32_t name) {
    w.u32(name);
    w.u8(uint8_t((s.binding << 4) | (s.type & 0xf)));
    w.u8(s.visibility & 3);
    w.u16(s.shndx);
    w.u64(s.value);
    w.u64(s.size);
  }

  const CodeObject& co_;
  uint32_t e_flags_ = 0;
  std::vector<OutSym> locals_, globals_;
  std::vector<size_t> dynsym_order_;
  std::vector<uint32_t> dynsym_stroff_;
  std::vector<uint8_t> note_, dynstr_, gnu_hash_, hash_;
  std::vector<SectionOut> sections_;
  ByteWriter out_;
};

}  // namespace

std::vector<uint8_t> write_code_object(const CodeObject& co) {
  return Writer(co).run();
}

void write_code_object_file(const CodeObject& co, const std::string& path) {
  std::vector<uint8_t> bytes = write_code_object(co);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw Error(path + ": cannot open for writing");
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  if (!f) throw Error(path + ": write failed");
}

}  // namespace k100::codeobj
