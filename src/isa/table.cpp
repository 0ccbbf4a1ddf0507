// The instruction table: rows from gfx9_table.inc, parsed once.
#include "k100/isa/table.h"

#include <array>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

namespace k100::isa {

namespace {

// Flag names used in gfx9_table.inc.
namespace row_flags {
[[maybe_unused]] constexpr uint32_t SDWA = kFlagSdwa, DPP = kFlagDpp, CLAMP = kFlagClamp, OMOD = kFlagOmod,
                   OPSEL = kFlagOpSel, OPSEL_HI = kFlagOpSelHi, NEG_LO = kFlagNegLo,
                   NEG_HI = kFlagNegHi, SDWA_CLAMP = kFlagSdwaClamp, SDWA_OMOD = kFlagSdwaOmod,
                   SDWA_SGPR_DST = kFlagSdwaSgprDst, E32_SUFFIX = kFlagE32Suffix,
                   E64_SUFFIX = kFlagE64Suffix, GLC = kFlagGlc, SLC = kFlagSlc, LDS = kFlagLds,
                   TFE = kFlagTfe, GDS = kFlagGds, DS2 = kFlagDs2, SWIZZLE = kFlagSwizzle,
                   ATOMIC_RTN = kFlagAtomicRtn, OPT_IMM = kFlagOptImm, NO_IMM = kFlagNoImm,
                   DECODE_ONLY = kFlagDecodeOnly, SDWA_SEXT0 = kFlagSdwaSext0,
                   SDWA_SEXT1 = kFlagSdwaSext1, SDWA_NEG0 = kFlagSdwaNeg0, SDWA_NEG1 = kFlagSdwaNeg1,
                   DPP_NEG0 = kFlagDppNeg0, DPP_NEG1 = kFlagDppNeg1, DPP_SEXT0 = kFlagDppSext0,
                   DPP_SEXT1 = kFlagDppSext1;
}  // namespace row_flags

struct RawRow {
  const char* ident;
  Family family;
  int opcode;
  int e64_opcode;
  uint32_t flags;
  const char* mnemonic;
  const char* e64_mnemonic;
  const char* operands;
  const char* e64_operands;
};

constexpr RawRow kRows[] = {
#define K100_INST(ident, fam, op, op64, flags, mn, mn64, ops, ops64) \
  {#ident, Family::fam, op, op64, [] { using namespace row_flags; return uint32_t(flags); }(), mn, mn64, ops, ops64},
#include "k100/isa/gfx9_table.inc"
#undef K100_INST
};

Field parse_field(std::string_view s) {
  static const std::unordered_map<std::string_view, Field> m = {
      {"sdst", Field::sdst},     {"ssrc0", Field::ssrc0}, {"ssrc1", Field::ssrc1},
      {"simm16", Field::simm16}, {"literal", Field::literal}, {"sdata", Field::sdata},
      {"sbase", Field::sbase},   {"offset", Field::offset}, {"vdst", Field::vdst},
      {"src0", Field::src0},     {"src1", Field::src1},   {"src2", Field::src2},
      {"vsrc1", Field::vsrc1},   {"vcc", Field::vcc},     {"off", Field::off},
      {"addr", Field::addr},     {"data0", Field::data0}, {"data1", Field::data1},
      {"vaddr", Field::vaddr},   {"vdata", Field::vdata}, {"srsrc", Field::srsrc},
      {"soffset", Field::soffset}, {"saddr", Field::saddr}};
  auto it = m.find(s);
  if (it == m.end()) throw std::logic_error("gfx9_table.inc: unknown field " + std::string(s));
  return it->second;
}

OpType parse_type(std::string_view s) {
  static const std::unordered_map<std::string_view, OpType> m = {
      {"-", OpType::None},         {"b32", OpType::B32},         {"f16", OpType::F16},
      {"i16", OpType::I16},        {"f64", OpType::F64},         {"b64", OpType::B64},
      {"v2f16", OpType::V2F16},    {"v2i16", OpType::V2I16},     {"label", OpType::Label},
      {"waitcnt", OpType::Waitcnt}, {"sendmsg", OpType::Sendmsg}, {"hwreg", OpType::Hwreg},
      {"gpridx", OpType::GprIdx},  {"uimm16", OpType::Uimm16},   {"simm16", OpType::Simm16},
      {"imm32", OpType::Imm32},    {"kimm", OpType::Kimm},       {"smem_offset", OpType::SmemOffset},
      {"uimm7", OpType::Uimm7}};
  auto it = m.find(s);
  if (it == m.end()) throw std::logic_error("gfx9_table.inc: unknown type " + std::string(s));
  return it->second;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

std::vector<OperandSpec> parse_operands(std::string_view text) {
  std::vector<OperandSpec> out;
  for (auto item : split(text, ' ')) {
    auto parts = split(item, ':');
    if (parts.size() != 5) throw std::logic_error("gfx9_table.inc: bad operand " + std::string(item));
    OperandSpec spec{};
    spec.field = parse_field(parts[0]);
    spec.width = uint8_t(std::stoi(std::string(parts[1])));
    spec.type = parse_type(parts[2]);
    uint8_t accept = 0;
    if (parts[3] != "-")
      for (char c : parts[3]) {
        if (c == 'v') accept |= kAcceptVgpr;
        if (c == 's') accept |= kAcceptSgpr;
        if (c == 'i') accept |= kAcceptInline;
        if (c == 'l') accept |= kAcceptLiteral;
        if (c == 'o') accept |= kAcceptOff;
      }
    spec.accept = accept;
    uint8_t mods = 0;
    if (parts[4] != "-")
      for (char c : parts[4]) {
        if (c == 'n') mods |= kModNeg;
        if (c == 'a') mods |= kModAbs;
        if (c == 'x') mods |= kModSext;
      }
    spec.mods = mods;
    // VOP3B's scalar carry-out lives in its own field.
    out.push_back(spec);
  }
  return out;
}

std::string base_name(std::string_view mnemonic) {
  for (std::string_view suffix : {"_e32", "_e64"})
    if (mnemonic.size() > 4 && mnemonic.substr(mnemonic.size() - 4) == suffix)
      return std::string(mnemonic.substr(0, mnemonic.size() - 4));
  return std::string(mnemonic);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

uint16_t quirks_of(std::string_view name) {
  uint16_t q = 0;
  if (starts_with(name, "v_div_fmas_")) q |= kQuirkReadsVcc;
  for (std::string_view r : {"subrev", "subbrev", "lshlrev", "lshrrev", "ashrrev"})
    if (name.find(r) != std::string_view::npos) q |= kQuirkReversed;
  if (name == "v_mqsad_u32_u8" || name == "v_mqsad_pk_u16_u8" || name == "v_qsad_pk_u16_u8") q |= kQuirkEarlyClobber;
  if (name == "buffer_store_lds_dword") q |= kQuirkLdsSyntax;
  if (starts_with(name, "v_fma_mix")) q |= kQuirkMix;
  if (name.find("cmpswap") != std::string_view::npos) q |= kQuirkCmpswap;
  if (starts_with(name, "s_cmpk_") && ends_with(name, "_u32")) q |= kQuirkUnsignedImm;
  if ((starts_with(name, "v_madmk_") || starts_with(name, "v_madak_")) && ends_with(name, "f16"))
    q |= kQuirkF16Constant;
  return q;
}

struct Tables {
  std::vector<InstDesc> rows;
  std::unordered_map<std::string_view, uint16_t> by_name;  // views into rows' strings
  std::array<std::vector<int16_t>, kFamilyCount> by_opcode;
  std::vector<std::string> names;
};

const Tables& tables() {
  static const Tables t = [] {
    Tables t;
    for (auto& v : t.by_opcode) v.assign(1024, -1);
    uint16_t id = 0;
    for (const RawRow& r : kRows) {
      InstDesc d;
      d.id = id;
      d.ident = r.ident;
      d.name = base_name(r.mnemonic);
      d.family = r.family;
      d.opcode = uint16_t(r.opcode);
      d.e64_opcode = int16_t(r.e64_opcode);
      d.flags = r.flags;
      d.quirks = quirks_of(d.name);
      d.mnemonic = r.mnemonic;
      d.e64_mnemonic = r.e64_mnemonic;
      d.operands = parse_operands(r.operands);
      d.e64_operands = parse_operands(r.e64_operands);
      // In VOP3 forms a second scalar destination is VOP3B's sdst field.
      for (auto* list : {&d.operands, &d.e64_operands}) {
        bool vop3 = (list == &d.e64_operands) || d.family == Family::VOP3;
        if (!vop3) continue;
        for (auto& s : *list)
          if (s.field == Field::sdst) s.field = Field::sdst_vop3b;
      }
      auto& slot = t.by_opcode[size_t(d.family)][d.opcode];
      if (slot < 0) slot = int16_t(id);
      if (d.e64_opcode >= 0) t.by_opcode[size_t(Family::VOP3)][size_t(d.e64_opcode)] = int16_t(id);
      t.rows.push_back(std::move(d));
      ++id;
    }
    // names are indexed once the rows no longer move
    for (const auto& d : t.rows) {
      if (d.has(kFlagDecodeOnly)) continue;
      t.by_name.emplace(d.name, d.id);
      t.by_name.emplace(d.mnemonic, d.id);
      if (!d.e64_mnemonic.empty()) t.by_name.emplace(d.e64_mnemonic, d.id);
      t.names.push_back(d.name);
    }
    return t;
  }();
  return t;
}

}  // namespace

const char* family_name(Family f) {
  static const char* names[] = {"SOP1", "SOP2", "SOPK", "SOPC", "SOPP", "SMEM",
                                "VOP1", "VOP2", "VOPC", "VOP3", "VOP3P", "DS",
                                "MUBUF", "MTBUF", "FLAT", "GLOBAL", "SCRATCH"};
  return names[size_t(f)];
}

const char* field_name(Field f) {
  static const char* names[] = {"sdst",  "ssrc0", "ssrc1", "simm16", "literal", "sdata",
                                "sbase", "offset", "vdst", "sdst",   "src0",    "src1",
                                "src2",  "vsrc1", "vcc",  "off",    "addr",    "data0",
                                "data1", "vaddr", "vdata", "srsrc", "soffset", "saddr"};
  return names[size_t(f)];
}

bool OperandSpec::is_source() const {
  switch (field) {
    case Field::ssrc0: case Field::ssrc1: case Field::src0: case Field::src1:
    case Field::src2: case Field::vsrc1:
      return type != OpType::GprIdx;
    default:
      return false;
  }
}

bool InstDesc::is_vop() const {
  switch (family) {
    case Family::VOP1: case Family::VOP2: case Family::VOPC: case Family::VOP3: case Family::VOP3P:
      return true;
    default:
      return false;
  }
}

uint8_t InstDesc::source_mods(Encoding e, const OperandSpec& spec) const {
  int slot = spec.field == Field::src0 ? 0 : spec.field == Field::vsrc1 ? 1 : -1;
  if (e == Encoding::SDWA) {
    if (slot < 0) return 0;
    uint8_t m = 0;
    if (flags & (slot ? kFlagSdwaSext1 : kFlagSdwaSext0)) m |= kModSext;
    if (flags & (slot ? kFlagSdwaNeg1 : kFlagSdwaNeg0)) m |= kModNeg | kModAbs;
    return m;
  }
  if (e == Encoding::DPP) {
    if (slot < 0) return 0;
    uint8_t m = 0;
    if (flags & (slot ? kFlagDppNeg1 : kFlagDppNeg0)) m |= kModNeg | kModAbs;
    if (flags & (slot ? kFlagDppSext1 : kFlagDppSext0)) m |= kModSext;
    return m;
  }
  return spec.mods;
}

uint8_t InstDesc::accept_of(Encoding e, const OperandSpec& spec) const {
  bool src = spec.field == Field::src0 || spec.field == Field::vsrc1;
  if (e == Encoding::SDWA && src) return kAcceptVgpr | kAcceptSgpr | kAcceptInline;
  if (e == Encoding::DPP && src) return kAcceptVgpr;
  if (spec.field == Field::vaddr && (family == Family::MUBUF || family == Family::MTBUF))
    return spec.accept | kAcceptOff;  // off when neither offen nor idxen
  return spec.accept;
}

const std::vector<InstDesc>& detail::load_instructions() { return tables().rows; }

const InstDesc* find_instruction(std::string_view name) {
  const auto& t = tables();
  auto it = t.by_name.find(name);
  return it == t.by_name.end() ? nullptr : &t.rows[it->second];
}

const InstDesc* lookup_opcode(Family family, uint16_t opcode) {
  const auto& t = tables();
  if (opcode >= 1024) return nullptr;
  int16_t id = t.by_opcode[size_t(family)][opcode];
  return id < 0 ? nullptr : &t.rows[size_t(id)];
}

const std::vector<std::string>& all_mnemonics() { return tables().names; }

}  // namespace k100::isa
