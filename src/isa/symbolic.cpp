// Named immediates: waitcnt, hwreg, sendmsg, gpr_idx, swizzle, buffer formats,
// SDWA selects and DPP controls, printed the way llvm prints them for GFX9.
#include "k100/isa/symbolic.h"

#include <array>
#include <cstdio>

namespace k100::isa {

namespace {
std::string hex(unsigned v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%x", v);
  return buf;
}
}  // namespace

// ---------------------------------------------------------------- waitcnt

Waitcnt Waitcnt::decode(uint16_t imm) {
  Waitcnt w;
  w.vmcnt = (imm & 0xf) | ((imm >> 14) & 0x3) << 4;
  w.expcnt = (imm >> 4) & 0x7;
  w.lgkmcnt = (imm >> 8) & 0xf;
  return w;
}

uint16_t Waitcnt::encode() const {
  return uint16_t((vmcnt & 0xf) | (expcnt & 0x7) << 4 | (lgkmcnt & 0xf) << 8 |
                  ((vmcnt >> 4) & 0x3) << 14);
}

std::string print_waitcnt(uint16_t imm) {
  Waitcnt w = Waitcnt::decode(imm);
  bool all = w.vmcnt == kVmcntMax && w.expcnt == kExpcntMax && w.lgkmcnt == kLgkmcntMax;
  std::string out;
  auto add = [&](const char* name, unsigned v, unsigned max) {
    if (v == max && !all) return;
    if (!out.empty()) out += ' ';
    out += name;
    out += '(' + std::to_string(v) + ')';
  };
  add("vmcnt", w.vmcnt, kVmcntMax);
  add("expcnt", w.expcnt, kExpcntMax);
  add("lgkmcnt", w.lgkmcnt, kLgkmcntMax);
  return out;
}

// ---------------------------------------------------------------- hwreg

namespace {
struct Named {
  unsigned id;
  const char* name;
};
constexpr Named kHwregs[] = {{1, "HW_REG_MODE"},      {2, "HW_REG_STATUS"},
                             {3, "HW_REG_TRAPSTS"},   {4, "HW_REG_HW_ID"},
                             {5, "HW_REG_GPR_ALLOC"}, {6, "HW_REG_LDS_ALLOC"},
                             {7, "HW_REG_IB_STS"},    {15, "HW_REG_SH_MEM_BASES"}};
constexpr Named kMsgs[] = {{1, "MSG_INTERRUPT"},        {2, "MSG_GS"},
                           {3, "MSG_GS_DONE"},          {4, "MSG_SAVEWAVE"},
                           {5, "MSG_STALL_WAVE_GEN"},   {6, "MSG_HALT_WAVES"},
                           {7, "MSG_ORDERED_PS_DONE"},  {8, "MSG_EARLY_PRIM_DEALLOC"},
                           {9, "MSG_GS_ALLOC_REQ"},     {10, "MSG_GET_DOORBELL"},
                           {15, "MSG_SYSMSG"}};
constexpr Named kGsOps[] = {{0, "GS_OP_NOP"}, {1, "GS_OP_CUT"}, {2, "GS_OP_EMIT"},
                            {3, "GS_OP_EMIT_CUT"}};
constexpr Named kSysOps[] = {{1, "SYSMSG_OP_ECC_ERR_INTERRUPT"}, {2, "SYSMSG_OP_REG_RD"},
                             {3, "SYSMSG_OP_HOST_TRAP_ACK"}, {4, "SYSMSG_OP_TTRACE_PC"}};

template <size_t N>
const char* name_of(const Named (&table)[N], unsigned id) {
  for (const auto& n : table)
    if (n.id == id) return n.name;
  return nullptr;
}
template <size_t N>
std::optional<unsigned> id_of(const Named (&table)[N], std::string_view name) {
  for (const auto& n : table)
    if (name == n.name) return n.id;
  return std::nullopt;
}
}  // namespace

std::optional<unsigned> hwreg_id(std::string_view name) { return id_of(kHwregs, name); }
const char* hwreg_name(unsigned id) { return name_of(kHwregs, id); }

std::string print_hwreg(uint16_t imm) {
  unsigned id = imm & 0x3f, offset = (imm >> 6) & 0x1f, size = ((imm >> 11) & 0x1f) + 1;
  const char* name = hwreg_name(id);
  std::string out = "hwreg(" + (name ? std::string(name) : std::to_string(id));
  if (offset != 0 || size != 32) out += ", " + std::to_string(offset) + ", " + std::to_string(size);
  return out + ")";
}

// ---------------------------------------------------------------- sendmsg

std::optional<unsigned> sendmsg_id(std::string_view name) { return id_of(kMsgs, name); }
const char* sendmsg_name(unsigned id) { return name_of(kMsgs, id); }

std::optional<unsigned> sendmsg_op_id(unsigned msg, std::string_view name) {
  if (msg == 2 || msg == 3) return id_of(kGsOps, name);
  if (msg == 15) return id_of(kSysOps, name);
  return std::nullopt;
}
const char* sendmsg_op_name(unsigned msg, unsigned op) {
  if (msg == 2 || msg == 3) return name_of(kGsOps, op);
  if (msg == 15) return name_of(kSysOps, op);
  return nullptr;
}

std::optional<std::string> print_sendmsg(uint16_t imm) {
  unsigned msg = imm & 0xf, op = (imm >> 4) & 0x7, stream = (imm >> 8) & 0x3;
  const char* name = sendmsg_name(msg);
  bool needs_op = msg == 2 || msg == 3 || msg == 15;
  bool valid = name != nullptr;
  if (valid) {
    if (msg == 2) valid = op >= 1 && op <= 3;
    else if (msg == 3) valid = op <= 3 && (op != 0 || stream == 0);
    else if (msg == 15) valid = op >= 1 && op <= 4 && stream == 0;
    else valid = op == 0 && stream == 0;
  }
  if (valid) {
    std::string out = std::string("sendmsg(") + name;
    if (needs_op) {
      out += std::string(", ") + sendmsg_op_name(msg, op);
      if ((msg == 2 || msg == 3) && op != 0) out += ", " + std::to_string(stream);
    }
    return out + ")";
  }
  if (uint16_t(msg | op << 4 | stream << 8) == imm)
    return "sendmsg(" + std::to_string(msg) + ", " + std::to_string(op) + ", " +
           std::to_string(stream) + ")";
  return std::nullopt;
}

// ---------------------------------------------------------------- gpr_idx

std::string print_gpr_idx(uint16_t imm) {
  static const char* names[] = {"SRC0", "SRC1", "SRC2", "DST"};
  std::string out = "gpr_idx(";
  bool first = true;
  for (int i = 0; i < 4; ++i)
    if (imm & (1u << i)) {
      if (!first) out += ',';
      out += names[i];
      first = false;
    }
  return out + ")";
}

std::optional<unsigned> gpr_idx_mode(std::string_view name) {
  if (name == "SRC0") return 1;
  if (name == "SRC1") return 2;
  if (name == "SRC2") return 4;
  if (name == "DST") return 8;
  return std::nullopt;
}

// ---------------------------------------------------------------- swizzle

std::string print_swizzle(uint16_t offset) {
  // Symbolic forms are printed only when they re-assemble to the same offset.
  auto raw = [&]() { return std::to_string(offset); };
  if (offset & 0x8000) {
    if (offset & 0x7f00) return raw();
    std::string out = "swizzle(QUAD_PERM";
    for (int i = 0; i < 4; ++i) out += "," + std::to_string((offset >> (2 * i)) & 3);
    return out + ")";
  }
  unsigned and_mask = offset & 0x1f, or_mask = (offset >> 5) & 0x1f, xor_mask = (offset >> 10) & 0x1f;
  auto pow2 = [](unsigned v) { return v && !(v & (v - 1)); };
  if (and_mask == 0x1f && or_mask == 0 && pow2(xor_mask))
    return "swizzle(SWAP," + std::to_string(xor_mask) + ")";
  if (and_mask == 0x1f && or_mask == 0 && xor_mask > 0 && pow2(xor_mask + 1))
    return "swizzle(REVERSE," + std::to_string(xor_mask + 1) + ")";
  unsigned group = 1 + (~and_mask & 0x1f);
  if (xor_mask == 0 && pow2(group) && or_mask < group && and_mask == 0x20 - group)
    return "swizzle(BROADCAST," + std::to_string(group) + "," + std::to_string(or_mask) + ")";
  if (offset & 0x8000) return raw();
  std::string perm;
  for (unsigned mask = 0x10; mask; mask >>= 1) {
    if ((and_mask & mask) ? (or_mask & mask) : (xor_mask & mask)) return raw();
    if (and_mask & mask) perm += (xor_mask & mask) ? 'i' : 'p';
    else perm += ((or_mask ^ xor_mask) & mask) ? '1' : '0';
  }
  return "swizzle(BITMASK_PERM,\"" + perm + "\")";
}

// ---------------------------------------------------------------- buffer formats

namespace {
constexpr const char* kDataFormats[16] = {
    "BUF_DATA_FORMAT_INVALID",  "BUF_DATA_FORMAT_8",          "BUF_DATA_FORMAT_16",
    "BUF_DATA_FORMAT_8_8",      "BUF_DATA_FORMAT_32",         "BUF_DATA_FORMAT_16_16",
    "BUF_DATA_FORMAT_10_11_11", "BUF_DATA_FORMAT_11_11_10",   "BUF_DATA_FORMAT_10_10_10_2",
    "BUF_DATA_FORMAT_2_10_10_10", "BUF_DATA_FORMAT_8_8_8_8",  "BUF_DATA_FORMAT_32_32",
    "BUF_DATA_FORMAT_16_16_16_16", "BUF_DATA_FORMAT_32_32_32", "BUF_DATA_FORMAT_32_32_32_32",
    "BUF_DATA_FORMAT_RESERVED_15"};
constexpr const char* kNumFormats[8] = {
    "BUF_NUM_FORMAT_UNORM", "BUF_NUM_FORMAT_SNORM", "BUF_NUM_FORMAT_USCALED",
    "BUF_NUM_FORMAT_SSCALED", "BUF_NUM_FORMAT_UINT", "BUF_NUM_FORMAT_SINT",
    "BUF_NUM_FORMAT_RESERVED_6", "BUF_NUM_FORMAT_FLOAT"};
}  // namespace

const char* buf_data_format_name(unsigned dfmt) { return dfmt < 16 ? kDataFormats[dfmt] : nullptr; }
const char* buf_num_format_name(unsigned nfmt) { return nfmt < 8 ? kNumFormats[nfmt] : nullptr; }
std::optional<unsigned> buf_data_format(std::string_view name) {
  for (unsigned i = 0; i < 16; ++i)
    if (name == kDataFormats[i]) return i;
  return std::nullopt;
}
std::optional<unsigned> buf_num_format(std::string_view name) {
  for (unsigned i = 0; i < 8; ++i)
    if (name == kNumFormats[i]) return i;
  return std::nullopt;
}

// ---------------------------------------------------------------- SDWA

namespace {
constexpr const char* kSels[7] = {"BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"};
constexpr const char* kUnused[3] = {"UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"};
}  // namespace

const char* sdwa_sel_name(unsigned sel) { return sel < 7 ? kSels[sel] : nullptr; }
std::optional<unsigned> sdwa_sel(std::string_view name) {
  for (unsigned i = 0; i < 7; ++i)
    if (name == kSels[i]) return i;
  return std::nullopt;
}
const char* sdwa_unused_name(unsigned u) { return u < 3 ? kUnused[u] : nullptr; }
std::optional<unsigned> sdwa_unused(std::string_view name) {
  for (unsigned i = 0; i < 3; ++i)
    if (name == kUnused[i]) return i;
  return std::nullopt;
}

// ---------------------------------------------------------------- DPP

namespace dpp {

bool valid_ctrl(uint16_t c) {
  if (c <= kQuadPermLast) return true;
  if (c > kRowShl && c < kRowShl + 16) return true;
  if (c > kRowShr && c < kRowShr + 16) return true;
  if (c > kRowRor && c < kRowRor + 16) return true;
  switch (c) {
    case kWaveShl: case kWaveRol: case kWaveShr: case kWaveRor: case kRowMirror:
    case kRowHalfMirror: case kRowBcast15: case kRowBcast31:
      return true;
    default:
      return false;
  }
}

std::string print_ctrl(uint16_t c) {
  if (c <= kQuadPermLast)
    return "quad_perm:[" + std::to_string(c & 3) + "," + std::to_string((c >> 2) & 3) + "," +
           std::to_string((c >> 4) & 3) + "," + std::to_string((c >> 6) & 3) + "]";
  if (c > kRowShl && c < kRowShl + 16) return "row_shl:" + std::to_string(c - kRowShl);
  if (c > kRowShr && c < kRowShr + 16) return "row_shr:" + std::to_string(c - kRowShr);
  if (c > kRowRor && c < kRowRor + 16) return "row_ror:" + std::to_string(c - kRowRor);
  switch (c) {
    case kWaveShl: return "wave_shl:1";
    case kWaveRol: return "wave_rol:1";
    case kWaveShr: return "wave_shr:1";
    case kWaveRor: return "wave_ror:1";
    case kRowMirror: return "row_mirror";
    case kRowHalfMirror: return "row_half_mirror";
    case kRowBcast15: return "row_bcast:15";
    case kRowBcast31: return "row_bcast:31";
    default: return hex(c);
  }
}

}  // namespace dpp
}  // namespace k100::isa
