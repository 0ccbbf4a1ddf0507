// k100lc codeobj: the 64-byte AMDHSA kernel descriptor.
//
// The descriptor ("NAME.kd" in .rodata) tells the command processor how to
// launch a kernel: segment sizes, the entry offset, and the COMPUTE_PGM_RSRC1/2
// and kernel_code_properties words that set register granules, modes and which
// SGPRs/VGPRs the hardware initialises. This header holds the raw struct with
// byte-exact encode/decode and the named bit fields (GFX9 layout) so tools can
// print and edit single fields.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace k100::codeobj {

struct KernelDescriptor {
  static constexpr size_t kSize = 64;

  uint32_t group_segment_fixed_size = 0;      // byte 0
  uint32_t private_segment_fixed_size = 0;    // byte 4
  uint32_t kernarg_size = 0;                  // byte 8
  std::array<uint8_t, 4> reserved0{};         // byte 12
  int64_t kernel_code_entry_byte_offset = 0;  // byte 16: entry address - descriptor address
  std::array<uint8_t, 20> reserved1{};        // byte 24
  uint32_t compute_pgm_rsrc3 = 0;             // byte 44 (unused on GFX9)
  uint32_t compute_pgm_rsrc1 = 0;             // byte 48
  uint32_t compute_pgm_rsrc2 = 0;             // byte 52
  uint16_t kernel_code_properties = 0;        // byte 56
  std::array<uint8_t, 6> reserved2{};         // byte 58

  std::array<uint8_t, kSize> encode() const;
  // Decodes the first 64 bytes; throws k100::Error if fewer are given.
  static KernelDescriptor decode(std::span<const uint8_t> bytes);

  bool operator==(const KernelDescriptor&) const = default;
};

// A bit field of one of the descriptor words.
struct BitField {
  std::string_view name;  // LLVM's name, e.g. "GRANULATED_WORKITEM_VGPR_COUNT"
  uint8_t shift;
  uint8_t width;

  constexpr uint32_t mask() const { return (width >= 32 ? ~0u : ((1u << width) - 1)) << shift; }
  constexpr uint32_t get(uint32_t word) const { return (word & mask()) >> shift; }
  // Returns word with the field replaced; value bits beyond the width are dropped.
  constexpr uint32_t set(uint32_t word, uint32_t value) const {
    return (word & ~mask()) | ((value << shift) & mask());
  }
};

namespace rsrc1 {
inline constexpr BitField kVgprBlocks{"GRANULATED_WORKITEM_VGPR_COUNT", 0, 6};
inline constexpr BitField kSgprBlocks{"GRANULATED_WAVEFRONT_SGPR_COUNT", 6, 4};
inline constexpr BitField kPriority{"PRIORITY", 10, 2};
inline constexpr BitField kFloatRoundMode32{"FLOAT_ROUND_MODE_32", 12, 2};
inline constexpr BitField kFloatRoundMode16_64{"FLOAT_ROUND_MODE_16_64", 14, 2};
inline constexpr BitField kFloatDenormMode32{"FLOAT_DENORM_MODE_32", 16, 2};
inline constexpr BitField kFloatDenormMode16_64{"FLOAT_DENORM_MODE_16_64", 18, 2};
inline constexpr BitField kPriv{"PRIV", 20, 1};
inline constexpr BitField kDx10Clamp{"ENABLE_DX10_CLAMP", 21, 1};
inline constexpr BitField kDebugMode{"DEBUG_MODE", 22, 1};
inline constexpr BitField kIeeeMode{"ENABLE_IEEE_MODE", 23, 1};
inline constexpr BitField kBulky{"BULKY", 24, 1};
inline constexpr BitField kCdbgUser{"CDBG_USER", 25, 1};
inline constexpr BitField kFp16Ovfl{"FP16_OVFL", 26, 1};
}  // namespace rsrc1

namespace rsrc2 {
inline constexpr BitField kPrivateSegmentWaveOffset{"ENABLE_PRIVATE_SEGMENT", 0, 1};
inline constexpr BitField kUserSgprCount{"USER_SGPR_COUNT", 1, 5};
inline constexpr BitField kTrapHandler{"ENABLE_TRAP_HANDLER", 6, 1};
inline constexpr BitField kWorkgroupIdX{"ENABLE_SGPR_WORKGROUP_ID_X", 7, 1};
inline constexpr BitField kWorkgroupIdY{"ENABLE_SGPR_WORKGROUP_ID_Y", 8, 1};
inline constexpr BitField kWorkgroupIdZ{"ENABLE_SGPR_WORKGROUP_ID_Z", 9, 1};
inline constexpr BitField kWorkgroupInfo{"ENABLE_SGPR_WORKGROUP_INFO", 10, 1};
inline constexpr BitField kWorkitemId{"ENABLE_VGPR_WORKITEM_ID", 11, 2};
inline constexpr BitField kExceptionAddressWatch{"ENABLE_EXCEPTION_ADDRESS_WATCH", 13, 1};
inline constexpr BitField kExceptionMemory{"ENABLE_EXCEPTION_MEMORY", 14, 1};
inline constexpr BitField kLdsSize{"GRANULATED_LDS_SIZE", 15, 9};
inline constexpr BitField kExcFpInvalid{"ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION", 24, 1};
inline constexpr BitField kExcFpDenormSrc{"ENABLE_EXCEPTION_FP_DENORMAL_SOURCE", 25, 1};
inline constexpr BitField kExcFpDivZero{"ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO", 26, 1};
inline constexpr BitField kExcFpOverflow{"ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW", 27, 1};
inline constexpr BitField kExcFpUnderflow{"ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW", 28, 1};
inline constexpr BitField kExcFpInexact{"ENABLE_EXCEPTION_IEEE_754_FP_INEXACT", 29, 1};
inline constexpr BitField kExcIntDivZero{"ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO", 30, 1};
}  // namespace rsrc2

namespace props {
inline constexpr BitField kPrivateSegmentBuffer{"ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER", 0, 1};
inline constexpr BitField kDispatchPtr{"ENABLE_SGPR_DISPATCH_PTR", 1, 1};
inline constexpr BitField kQueuePtr{"ENABLE_SGPR_QUEUE_PTR", 2, 1};
inline constexpr BitField kKernargSegmentPtr{"ENABLE_SGPR_KERNARG_SEGMENT_PTR", 3, 1};
inline constexpr BitField kDispatchId{"ENABLE_SGPR_DISPATCH_ID", 4, 1};
inline constexpr BitField kFlatScratchInit{"ENABLE_SGPR_FLAT_SCRATCH_INIT", 5, 1};
inline constexpr BitField kPrivateSegmentSize{"ENABLE_SGPR_PRIVATE_SEGMENT_SIZE", 6, 1};
inline constexpr BitField kWavefrontSize32{"ENABLE_WAVEFRONT_SIZE32", 10, 1};
inline constexpr BitField kUsesDynamicStack{"USES_DYNAMIC_STACK", 11, 1};
}  // namespace props

// The named fields of each word, in bit order (reserved bits not listed).
std::span<const BitField> rsrc1_fields();
std::span<const BitField> rsrc2_fields();
std::span<const BitField> kernel_code_properties_fields();

// One printable line of a decoded descriptor: "COMPUTE_PGM_RSRC1.ENABLE_IEEE_MODE" = 1.
struct DescriptorField {
  std::string name;
  int64_t value;
};

// Every field of the descriptor: the plain ones, then each bit field of rsrc1, rsrc2,
// kernel_code_properties, plus the register counts the granules stand for
// ("vgpr_count (from granule)", "sgpr_count (from granule)"). Non-zero reserved bytes and
// bits are listed as "reserved..." entries so nothing is silently dropped.
std::vector<DescriptorField> describe(const KernelDescriptor& kd);

// Human-readable block, one "name value" per line (for k100-objdump --kernels).
std::string format_descriptor(const KernelDescriptor& kd, std::string_view indent = "  ");

}  // namespace k100::codeobj
