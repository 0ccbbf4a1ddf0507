#include "k100/codeobj/kernel_descriptor.h"

#include <cstdio>

#include "byte_io.h"
#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

using namespace detail;

constexpr BitField kRsrc1[] = {
    rsrc1::kVgprBlocks,
    rsrc1::kSgprBlocks,
    rsrc1::kPriority,
    rsrc1::kFloatRoundMode32,
    rsrc1::kFloatRoundMode16_64,
    rsrc1::kFloatDenormMode32,
    rsrc1::kFloatDenormMode16_64,
    rsrc1::kPriv,
    rsrc1::kDx10Clamp,
    rsrc1::kDebugMode,
    rsrc1::kIeeeMode,
    rsrc1::kBulky,
    rsrc1::kCdbgUser,
    rsrc1::kFp16Ovfl,
};

constexpr BitField kRsrc2[] = {
    rsrc2::kPrivateSegmentWaveOffset,
    rsrc2::kUserSgprCount,
    rsrc2::kTrapHandler,
    rsrc2::kWorkgroupIdX,
    rsrc2::kWorkgroupIdY,
    rsrc2::kWorkgroupIdZ,
    rsrc2::kWorkgroupInfo,
    rsrc2::kWorkitemId,
    rsrc2::kExceptionAddressWatch,
    rsrc2::kExceptionMemory,
    rsrc2::kLdsSize,
    rsrc2::kExcFpInvalid,
    rsrc2::kExcFpDenormSrc,
    rsrc2::kExcFpDivZero,
    rsrc2::kExcFpOverflow,
    rsrc2::kExcFpUnderflow,
    rsrc2::kExcFpInexact,
    rsrc2::kExcIntDivZero,
};

constexpr BitField kProps[] = {
    props::kPrivateSegmentBuffer, props::kDispatchPtr,     props::kQueuePtr,
    props::kKernargSegmentPtr,    props::kDispatchId,      props::kFlatScratchInit,
    props::kPrivateSegmentSize,   props::kWavefrontSize32, props::kUsesDynamicStack,
};

uint32_t covered_mask(std::span<const BitField> fields) {
  uint32_t m = 0;
  for (const auto& f : fields) m |= f.mask();
  return m;
}

template <size_t N>
bool all_zero(const std::array<uint8_t, N>& a) {
  for (uint8_t b : a)
    if (b) return false;
  return true;
}

}  // namespace

std::array<uint8_t, KernelDescriptor::kSize> KernelDescriptor::encode() const {
  std::array<uint8_t, kSize> b{};
  store_u32(&b[0], group_segment_fixed_size);
  store_u32(&b[4], private_segment_fixed_size);
  store_u32(&b[8], kernarg_size);
  std::memcpy(&b[12], reserved0.data(), reserved0.size());
  store_u64(&b[16], static_cast<uint64_t>(kernel_code_entry_byte_offset));
  std::memcpy(&b[24], reserved1.data(), reserved1.size());
  store_u32(&b[44], compute_pgm_rsrc3);
  store_u32(&b[48], compute_pgm_rsrc1);
  store_u32(&b[52], compute_pgm_rsrc2);
  store_u16(&b[56], kernel_code_properties);
  std::memcpy(&b[58], reserved2.data(), reserved2.size());
  return b;
}

KernelDescriptor KernelDescriptor::decode(std::span<const uint8_t> b) {
  if (b.size() < kSize)
    throw Error("kernel descriptor needs 64 bytes, got " + std::to_string(b.size()));
  KernelDescriptor kd;
  kd.group_segment_fixed_size = load_u32(&b[0]);
  kd.private_segment_fixed_size = load_u32(&b[4]);
  kd.kernarg_size = load_u32(&b[8]);
  std::memcpy(kd.reserved0.data(), &b[12], kd.reserved0.size());
  kd.kernel_code_entry_byte_offset = static_cast<int64_t>(load_u64(&b[16]));
  std::memcpy(kd.reserved1.data(), &b[24], kd.reserved1.size());
  kd.compute_pgm_rsrc3 = load_u32(&b[44]);
  kd.compute_pgm_rsrc1 = load_u32(&b[48]);
  kd.compute_pgm_rsrc2 = load_u32(&b[52]);
  kd.kernel_code_properties = load_u16(&b[56]);
  std::memcpy(kd.reserved2.data(), &b[58], kd.reserved2.size());
  return kd;
}

std::span<const BitField> rsrc1_fields() {
  return kRsrc1;
}
std::span<const BitField> rsrc2_fields() {
  return kRsrc2;
}
std::span<const BitField> kernel_code_properties_fields() {
  return kProps;
}

std::vector<DescriptorField> describe(const KernelDescriptor& kd) {
  std::vector<DescriptorField> out;
  out.push_back({"group_segment_fixed_size", kd.group_segment_fixed_size});
  out.push_back({"private_segment_fixed_size", kd.private_segment_fixed_size});
  out.push_back({"kernarg_size", kd.kernarg_size});
  out.push_back({"kernel_code_entry_byte_offset", kd.kernel_code_entry_byte_offset});
  out.push_back({"compute_pgm_rsrc3", kd.compute_pgm_rsrc3});
  out.push_back({"compute_pgm_rsrc1", kd.compute_pgm_rsrc1});
  for (const auto& f : kRsrc1)
    out.push_back({"COMPUTE_PGM_RSRC1." + std::string(f.name), f.get(kd.compute_pgm_rsrc1)});
  if (uint32_t r = kd.compute_pgm_rsrc1 & ~covered_mask(kRsrc1))
    out.push_back({"COMPUTE_PGM_RSRC1.reserved_bits", r});
  out.push_back({"compute_pgm_rsrc2", kd.compute_pgm_rsrc2});
  for (const auto& f : kRsrc2)
    out.push_back({"COMPUTE_PGM_RSRC2." + std::string(f.name), f.get(kd.compute_pgm_rsrc2)});
  if (uint32_t r = kd.compute_pgm_rsrc2 & ~covered_mask(kRsrc2))
    out.push_back({"COMPUTE_PGM_RSRC2.reserved_bits", r});
  out.push_back({"kernel_code_properties", kd.kernel_code_properties});
  for (const auto& f : kProps)
    out.push_back(
        {"KERNEL_CODE_PROPERTIES." + std::string(f.name), f.get(kd.kernel_code_properties)});
  if (uint32_t r = kd.kernel_code_properties & ~covered_mask(kProps) & 0xffff)
    out.push_back({"KERNEL_CODE_PROPERTIES.reserved_bits", r});
  // GFX9 wave64 granules: 4 VGPRs, 8 SGPRs per block.
  out.push_back(
      {"vgpr_count (from granule)", int64_t(rsrc1::kVgprBlocks.get(kd.compute_pgm_rsrc1) + 1) * 4});
  out.push_back(
      {"sgpr_count (from granule)", int64_t(rsrc1::kSgprBlocks.get(kd.compute_pgm_rsrc1) + 1) * 8});
  if (!all_zero(kd.reserved0) || !all_zero(kd.reserved1) || !all_zero(kd.reserved2))
    out.push_back({"reserved_bytes_nonzero", 1});
  return out;
}

std::string format_descriptor(const KernelDescriptor& kd, std::string_view indent) {
  std::string s;
  for (const auto& f : describe(kd)) {
    char buf[160];
    bool word = f.name.rfind("compute_pgm_rsrc", 0) == 0 || f.name == "kernel_code_properties";
    if (word)
      std::snprintf(buf, sizeof buf, "%-56s 0x%08llx\n", f.name.c_str(),
                    static_cast<unsigned long long>(f.value));
    else
      std::snprintf(buf, sizeof buf, "%-56s %lld\n", f.name.c_str(),
                    static_cast<long long>(f.value));
    s += indent;
    s += buf;
  }
  return s;
}

}  // namespace k100::codeobj
