// k100lc isa: the named immediates of GFX9 assembly.
//
// s_waitcnt counters, hwreg(...), sendmsg(...), gpr_idx(...), swizzle(...),
// buffer formats and SDWA/DPP keywords: their encodings and names, shared by
// the printer (immediate -> text) and the assembler (text -> immediate).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace k100::isa {

// s_waitcnt on GFX9: vmcnt 6 bits (3:0 and 15:14), expcnt 3 bits (6:4), lgkmcnt 4 bits (11:8).
struct Waitcnt {
  unsigned vmcnt = 63, expcnt = 7, lgkmcnt = 15;
  static Waitcnt decode(uint16_t imm);
  uint16_t encode() const;
};
constexpr unsigned kVmcntMax = 63, kExpcntMax = 7, kLgkmcntMax = 15;
std::string print_waitcnt(uint16_t imm);

// hwreg(id, offset, size): simm16 = id | offset << 6 | (size - 1) << 11.
std::optional<unsigned> hwreg_id(std::string_view name);  // HW_REG_MODE -> 1
const char* hwreg_name(unsigned id);                        // null when unnamed on gfx9
std::string print_hwreg(uint16_t imm);

// sendmsg(msg, op, stream): simm16 = msg | op << 4 | stream << 8.
std::optional<unsigned> sendmsg_id(std::string_view name);
const char* sendmsg_name(unsigned id);
std::optional<unsigned> sendmsg_op_id(unsigned msg, std::string_view name);
const char* sendmsg_op_name(unsigned msg, unsigned op);
// Text for a simm16, or nullopt when llvm would print it as a plain number.
std::optional<std::string> print_sendmsg(uint16_t imm);

// gpr_idx(SRC0,SRC1,SRC2,DST): bit mask of the four modes.
std::string print_gpr_idx(uint16_t imm);
std::optional<unsigned> gpr_idx_mode(std::string_view name);  // SRC0 -> 1, ..., DST -> 8

// ds_swizzle_b32 offset.
std::string print_swizzle(uint16_t offset);

// MTBUF formats (GFX9: dfmt 4 bits, nfmt 3 bits).
const char* buf_data_format_name(unsigned dfmt);  // BUF_DATA_FORMAT_32
const char* buf_num_format_name(unsigned nfmt);   // BUF_NUM_FORMAT_FLOAT
std::optional<unsigned> buf_data_format(std::string_view name);
std::optional<unsigned> buf_num_format(std::string_view name);

// SDWA keywords.
const char* sdwa_sel_name(unsigned sel);        // BYTE_0 ... DWORD
std::optional<unsigned> sdwa_sel(std::string_view name);
const char* sdwa_unused_name(unsigned u);      // UNUSED_PAD ...
std::optional<unsigned> sdwa_unused(std::string_view name);

// DPP controls (dpp_ctrl encodings).
namespace dpp {
constexpr uint16_t kQuadPermLast = 0xff;
constexpr uint16_t kRowShl = 0x100, kRowShr = 0x110, kRowRor = 0x120;  // + 1..15
constexpr uint16_t kWaveShl = 0x130, kWaveRol = 0x134, kWaveShr = 0x138, kWaveRor = 0x13c;
constexpr uint16_t kRowMirror = 0x140, kRowHalfMirror = 0x141;
constexpr uint16_t kRowBcast15 = 0x142, kRowBcast31 = 0x143;
bool valid_ctrl(uint16_t ctrl);
std::string print_ctrl(uint16_t ctrl);
}  // namespace dpp

}  // namespace k100::isa
