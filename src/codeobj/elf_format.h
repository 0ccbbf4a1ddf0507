// ELF64 constants used by the code-object writer and reader (the subset AMDHSA needs).
#pragma once

#include <cstdint>

namespace k100::codeobj::elf {

constexpr uint8_t kClass64 = 2;
constexpr uint8_t kDataLsb = 1;
constexpr uint8_t kOsAbiAmdgpuHsa = 64;
constexpr uint16_t kTypeRel = 1;
constexpr uint16_t kTypeDyn = 3;
constexpr uint16_t kMachineAmdgpu = 0xe0;

constexpr size_t kEhdrSize = 64;
constexpr size_t kPhdrSize = 56;
constexpr size_t kShdrSize = 64;
constexpr size_t kSymSize = 24;
constexpr size_t kDynSize = 16;

constexpr uint32_t kShtNull = 0, kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3, kShtRela = 4,
                   kShtHash = 5, kShtDynamic = 6, kShtNote = 7, kShtNobits = 8, kShtDynsym = 11,
                   kShtGnuHash = 0x6ffffff6;
constexpr uint64_t kShfWrite = 1, kShfAlloc = 2, kShfExec = 4, kShfMerge = 0x10, kShfStrings = 0x20;

constexpr uint32_t kPtLoad = 1, kPtDynamic = 2, kPtNote = 4, kPtPhdr = 6, kPtGnuStack = 0x6474e551,
                   kPtGnuRelro = 0x6474e552;
constexpr uint32_t kPfX = 1, kPfW = 2, kPfR = 4;

constexpr int64_t kDtNull = 0, kDtHash = 4, kDtStrtab = 5, kDtSymtab = 6, kDtStrsz = 10,
                  kDtSyment = 11, kDtGnuHash = 0x6ffffef5;

constexpr uint16_t kShnUndef = 0, kShnLoReserve = 0xff00, kShnAbs = 0xfff1;
constexpr uint8_t kSttSection = 3, kSttFile = 4;

constexpr uint32_t kNtAmdgpuMetadata = 32;
constexpr uint64_t kPageSize = 0x1000;  // ld.lld's max and common page size for AMDGPU

}  // namespace k100::codeobj::elf
