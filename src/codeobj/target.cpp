#include "k100/codeobj/target.h"

#include <array>
#include <cstdio>
#include <optional>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

using FS = FeatureSetting;

// EF_AMDGPU_MACH values from LLVM's AMDGPUUsage (the GFX9 family the GCN toolchain
// shares with gfx926, and the other processors so that a code object for one of them is
// named by its processor when it is refused), plus gfx926 itself. xnack / sramecc: the
// processors whose target ids take the feature.
// gfx926 (Hygon K100_LC): mach 0x81 and "sramecc+" with xnack any (e_flags 0xD81) is what
// the vendor toolchain writes according to public code objects; not yet confirmed on a
// device by this project. Correct it here if the loader disagrees.
constexpr FS U = FS::Unsupported, A = FS::Any;
constexpr std::array<ProcessorInfo, 45> kProcessors{{
    {"gfx600", 0x20, false, false, U, U, false, ""},  {"gfx601", 0x21, false, false, U, U, false, ""},
    {"gfx602", 0x3a, false, false, U, U, false, ""},  {"gfx700", 0x22, false, false, U, U, false, ""},
    {"gfx701", 0x23, false, false, U, U, false, ""},  {"gfx702", 0x24, false, false, U, U, false, ""},
    {"gfx703", 0x25, false, false, U, U, false, ""},  {"gfx704", 0x26, false, false, U, U, false, ""},
    {"gfx705", 0x3b, false, false, U, U, false, ""},  {"gfx801", 0x28, true, false, A, U, false, ""},
    {"gfx802", 0x29, false, false, U, U, false, ""},  {"gfx803", 0x2a, false, false, U, U, false, ""},
    {"gfx805", 0x3c, false, false, U, U, false, ""},  {"gfx810", 0x2b, true, false, A, U, false, ""},
    {"gfx900", 0x2c, true, false, A, U, false, ""},   {"gfx902", 0x2d, true, false, A, U, false, ""},
    {"gfx904", 0x2e, true, false, A, U, false, ""},   {"gfx906", 0x2f, true, true, A, A, true, ""},
    {"gfx908", 0x30, true, true, A, A, false, ""},    {"gfx909", 0x31, true, false, A, U, false, ""},
    {"gfx90c", 0x32, true, false, A, U, false, ""},   {"gfx90a", 0x3f, true, true, A, A, false, ""},
    {"gfx940", 0x40, true, true, A, A, false, ""},    {"gfx941", 0x4b, true, true, A, A, false, ""},
    {"gfx942", 0x4c, true, true, A, A, false, ""},    {"gfx1010", 0x33, true, false, A, U, false, ""},
    {"gfx1011", 0x34, true, false, A, U, false, ""},  {"gfx1012", 0x35, true, false, A, U, false, ""},
    {"gfx1013", 0x42, true, false, A, U, false, ""},  {"gfx1030", 0x36, false, false, U, U, false, ""},
    {"gfx1031", 0x37, false, false, U, U, false, ""}, {"gfx1032", 0x38, false, false, U, U, false, ""},
    {"gfx1033", 0x39, false, false, U, U, false, ""}, {"gfx1034", 0x3e, false, false, U, U, false, ""},
    {"gfx1035", 0x3d, false, false, U, U, false, ""}, {"gfx1036", 0x45, false, false, U, U, false, ""},
    {"gfx1100", 0x41, false, false, U, U, false, ""}, {"gfx1101", 0x46, false, false, U, U, false, ""},
    {"gfx1102", 0x47, false, false, U, U, false, ""}, {"gfx1103", 0x44, false, false, U, U, false, ""},
    {"gfx1150", 0x43, false, false, U, U, false, ""}, {"gfx1151", 0x4a, false, false, U, U, false, ""},
    {"gfx1200", 0x48, false, false, U, U, false, ""}, {"gfx1201", 0x4e, false, false, U, U, false, ""},
    {"gfx926", 0x81, true, true, A, FS::On, true, ".fp64_status"},
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

bool is_toolkit_target(const Target& t) {
  const ProcessorInfo* p = find_processor(t.processor);
  return p && p->toolkit_target;
}

std::string toolkit_processors_text() {
  std::string names;
  for (const auto& p : kProcessors)
    if (p.toolkit_target) names += (names.empty() ? "" : " and ") + std::string(p.name);
  return names + " (xnack and sramecc any, on or off)";
}

void require_toolkit_target(const Target& t, const std::string& origin) {
  if (is_toolkit_target(t)) return;
  throw Error(origin + ": a code object for " + t.processor + " (" + t.id() +
              "); k100lc runs and reads code for " + toolkit_processors_text());
}

std::optional<Target> combined_target(const Target& a, const Target& b) {
  if (a.processor != b.processor) return std::nullopt;
  // LLVM's rule: "any" (no suffix) goes with either setting; + and - exclude each other.
  auto feature = [](FS x, FS y) -> std::optional<FS> {
    if (x == y) return x;
    if (x == FS::Any && (y == FS::On || y == FS::Off)) return y;
    if (y == FS::Any && (x == FS::On || x == FS::Off)) return x;
    return std::nullopt;
  };
  auto xnack = feature(a.xnack, b.xnack), sramecc = feature(a.sramecc, b.sramecc);
  if (!xnack || !sramecc) return std::nullopt;
  Target t = a;
  t.xnack = *xnack;
  t.sramecc = *sramecc;
  return t;
}

}  // namespace k100::codeobj
