#include "k100/codeobj/target.h"

#include <array>
#include <cstdio>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

using FS = FeatureSetting;

// EF_AMDGPU_MACH values from LLVM's AMDGPUUsage (the GFX9 family the GCN toolchain
// shares with gfx926), plus gfx926 itself.
// gfx926 (Hygon K100_LC): mach 0x81 and "sramecc+" with xnack any (e_flags 0xD81) is what
// the vendor toolchain writes according to public code objects; not yet confirmed on a
// device by this project. Correct it here if the loader disagrees.
constexpr std::array<ProcessorInfo, 9> kProcessors{{
    {"gfx900", 0x2c, true, false, FS::Any, FS::Unsupported, false, ""},
    {"gfx902", 0x2d, true, false, FS::Any, FS::Unsupported, false, ""},
    {"gfx904", 0x2e, true, false, FS::Any, FS::Unsupported, false, ""},
    {"gfx906", 0x2f, true, true, FS::Any, FS::Any, true, ""},
    {"gfx908", 0x30, true, true, FS::Any, FS::Any, false, ""},
    {"gfx909", 0x31, true, false, FS::Any, FS::Unsupported, false, ""},
    {"gfx90c", 0x32, true, false, FS::Any, FS::Unsupported, false, ""},
    {"gfx90a", 0x3f, true, true, FS::Any, FS::Any, false, ""},
    {"gfx926", 0x81, true, true, FS::Any, FS::On, true, ".fp64_status"},
}};

constexpr std::string_view kTriple = "amdgcn-amd-amdhsa";

std::string quoted(std::string_view s) {
  return "'" + std::string(s) + "'";
}

void set_feature(Target& t, const ProcessorInfo& p, std::string_view feature, FS value,
                 std::string_view text) {
  FS* slot = nullptr;
  bool has = false;
  if (feature == "xnack") {
    slot = &t.xnack;
    has = p.has_xnack;
  } else if (feature == "sramecc" || feature == "sram-ecc") {
    slot = &t.sramecc;
    has = p.has_sramecc;
  } else {
    throw Error("target id " + quoted(text) + ": unknown feature " + quoted(feature) +
                " (known: sramecc, xnack)");
  }
  if (!has)
    throw Error("target id " + quoted(text) + ": processor " + std::string(p.name) + " has no " +
                std::string(feature) + " feature");
  if (*slot != FS::Any && *slot != FS::Unsupported)
    throw Error("target id " + quoted(text) + ": feature " + quoted(feature) +
                " given more than once");
  *slot = value;
}

uint32_t v4_bits(FS s, uint32_t any, uint32_t off, uint32_t on) {
  switch (s) {
    case FS::Unsupported:
      return 0;
    case FS::Any:
      return any;
    case FS::Off:
      return off;
    case FS::On:
      return on;
  }
  return 0;
}

}  // namespace

std::span<const ProcessorInfo> processors() {
  return kProcessors;
}

const ProcessorInfo* find_processor(std::string_view name) {
  for (const auto& p : kProcessors)
    if (p.name == name) return &p;
  return nullptr;
}

const ProcessorInfo* find_processor_by_mach(uint32_t mach) {
  for (const auto& p : kProcessors)
    if (p.mach == mach) return &p;
  return nullptr;
}

std::string Target::name() const {
  std::string s = processor;
  auto suffix = [&](const char* feat, FS v) {
    if (v == FS::On) s += std::string(":") + feat + "+";
    if (v == FS::Off) s += std::string(":") + feat + "-";
  };
  suffix("sramecc", sramecc);  // alphabetical, as LLVM prints target ids
  suffix("xnack", xnack);
  return s;
}

std::string Target::id() const {
  return std::string(kTriple) + "--" + name();
}

Target default_target(std::string_view processor) {
  const ProcessorInfo* p = find_processor(processor);
  if (!p) throw Error("unknown processor " + quoted(processor));
  Target t;
  t.processor = std::string(p->name);
  t.xnack = p->has_xnack ? p->default_xnack : FS::Unsupported;
  t.sramecc = p->has_sramecc ? p->default_sramecc : FS::Unsupported;
  return t;
}

Target parse_target_id(std::string_view text) {
  std::string_view rest = text;
  size_t dd = rest.find("--");
  if (dd != std::string_view::npos) {
    if (rest.substr(0, dd) != kTriple)
      throw Error("target id " + quoted(text) + ": expected the triple " + std::string(kTriple));
    rest = rest.substr(dd + 2);
  }
  size_t end = rest.find_first_of(":+");
  std::string_view proc = rest.substr(0, end);
  const ProcessorInfo* p = find_processor(proc);
  if (!p) throw Error("target id " + quoted(text) + ": unknown processor " + quoted(proc));
  Target t;
  t.processor = std::string(p->name);
  t.xnack = p->has_xnack ? FS::Any : FS::Unsupported;
  t.sramecc = p->has_sramecc ? FS::Any : FS::Unsupported;
  if (end == std::string_view::npos) return t;
  rest = rest.substr(end);
  if (rest[0] == '+') {
    // Code object v3 spelling: "+xnack+sram-ecc"; listed features are on, others off.
    if (t.xnack == FS::Any) t.xnack = FS::Off;
    if (t.sramecc == FS::Any) t.sramecc = FS::Off;
    while (!rest.empty()) {
      if (rest[0] != '+') throw Error("target id " + quoted(text) + ": expected '+feature'");
      rest = rest.substr(1);
      size_t next = rest.find('+');
      std::string_view feat = rest.substr(0, next);
      FS* slot = feat == "xnack"                             ? &t.xnack
                 : (feat == "sram-ecc" || feat == "sramecc") ? &t.sramecc
                                                             : nullptr;
      if (!slot) throw Error("target id " + quoted(text) + ": unknown feature " + quoted(feat));
      if (*slot == FS::Unsupported)
        throw Error("target id " + quoted(text) + ": processor " + t.processor + " has no " +
                    std::string(feat) + " feature");
      if (*slot == FS::On)
        throw Error("target id " + quoted(text) + ": feature " + quoted(feat) +
                    " given more than once");
      *slot = FS::On;
      rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next);
    }
    return t;
  }
  // v4+ spelling: ":sramecc+:xnack-".
  while (!rest.empty()) {
    if (rest[0] != ':') throw Error("target id " + quoted(text) + ": expected ':feature+/-'");
    rest = rest.substr(1);
    size_t next = rest.find(':');
    std::string_view item = rest.substr(0, next);
    if (item.size() < 2 || (item.back() != '+' && item.back() != '-'))
      throw Error("target id " + quoted(text) + ": feature " + quoted(item) +
                  " must end in '+' or '-'");
    set_feature(t, *p, item.substr(0, item.size() - 1), item.back() == '+' ? FS::On : FS::Off,
                text);
    rest = next == std::string_view::npos ? std::string_view{} : rest.substr(next);
  }
  return t;
}

uint8_t abi_version(CodeObjectVersion v) {
  return static_cast<uint8_t>(static_cast<int>(v) - 2);
}

CodeObjectVersion version_from_abi(uint8_t abi) {
  switch (abi) {
    case 1:
      return CodeObjectVersion::V3;
    case 2:
      return CodeObjectVersion::V4;
    case 3:
      return CodeObjectVersion::V5;
  }
  throw Error("unsupported AMDHSA ABI version " + std::to_string(abi) +
              " (supported: 1 = code object v3, 2 = v4, 3 = v5)");
}

std::pair<int, int> metadata_version(CodeObjectVersion v) {
  return {1, static_cast<int>(v) - 3};
}

uint32_t e_flags_for(const Target& t, CodeObjectVersion v) {
  const ProcessorInfo* p = find_processor(t.processor);
  if (!p) throw Error("unknown processor " + quoted(t.processor));
  auto check = [&](FS s, bool has, const char* feat) {
    if (has && s == FS::Unsupported)
      throw Error("target " + t.processor + ": feature " + feat +
                  " must be any, on or off (the processor has it)");
    if (!has && s != FS::Unsupported)
      throw Error("target " + t.processor + ": processor has no " + feat + " feature");
  };
  check(t.xnack, p->has_xnack, "xnack");
  check(t.sramecc, p->has_sramecc, "sramecc");
  uint32_t flags = p->mach;
  if (v == CodeObjectVersion::V3) {
    if (t.xnack == FS::Any || t.sramecc == FS::Any)
      throw Error("target " + t.name() +
                  ": code object v3 cannot express 'any' for xnack/sramecc; give + or -");
    if (t.xnack == FS::On) flags |= 0x100;
    if (t.sramecc == FS::On) flags |= 0x200;
    return flags;
  }
  flags |= v4_bits(t.xnack, 0x100, 0x200, 0x300);
  flags |= v4_bits(t.sramecc, 0x400, 0x800, 0xC00);
  return flags;
}

Target target_from_e_flags(uint32_t e_flags, CodeObjectVersion v) {
  uint32_t mach = e_flags & 0xff;
  const ProcessorInfo* p = find_processor_by_mach(mach);
  Target t;
  if (p) {
    t.processor = std::string(p->name);
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "mach-0x%02x", mach);
    t.processor = buf;
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%X", e_flags);
  if (v == CodeObjectVersion::V3) {
    bool has_x = p ? p->has_xnack : true, has_s = p ? p->has_sramecc : true;
    t.xnack = has_x ? ((e_flags & 0x100) ? FS::On : FS::Off) : FS::Unsupported;
    t.sramecc = has_s ? ((e_flags & 0x200) ? FS::On : FS::Off) : FS::Unsupported;
    return t;
  }
  static constexpr FS kDecode[4] = {FS::Unsupported, FS::Any, FS::Off, FS::On};
  t.xnack = kDecode[(e_flags >> 8) & 3];
  t.sramecc = kDecode[(e_flags >> 10) & 3];
  if (p && !p->has_xnack && t.xnack != FS::Unsupported)
    throw Error(std::string("e_flags ") + hex + ": xnack bits set for " + t.processor +
                ", which has no xnack");
  if (p && !p->has_sramecc && t.sramecc != FS::Unsupported)
    throw Error(std::string("e_flags ") + hex + ": sramecc bits set for " + t.processor +
                ", which has no sramecc");
  return t;
}

}  // namespace k100::codeobj
