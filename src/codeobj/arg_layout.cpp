#include "k100/codeobj/arg_layout.h"

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

struct HiddenSlot {
  ValueKind kind;
  uint32_t offset;  // from H
  uint32_t size;
  bool pointer;  // gets .address_space: global, as clang writes it
};

// Code object v5 implicit argument block (clang / AMDGPUUsage offsets).
constexpr HiddenSlot kV5Grid[] = {
    {ValueKind::HiddenBlockCountX, 0, 4, false},    {ValueKind::HiddenBlockCountY, 4, 4, false},
    {ValueKind::HiddenBlockCountZ, 8, 4, false},    {ValueKind::HiddenGroupSizeX, 12, 2, false},
    {ValueKind::HiddenGroupSizeY, 14, 2, false},    {ValueKind::HiddenGroupSizeZ, 16, 2, false},
    {ValueKind::HiddenRemainderX, 18, 2, false},    {ValueKind::HiddenRemainderY, 20, 2, false},
    {ValueKind::HiddenRemainderZ, 22, 2, false},    {ValueKind::HiddenGlobalOffsetX, 40, 8, false},
    {ValueKind::HiddenGlobalOffsetY, 48, 8, false}, {ValueKind::HiddenGlobalOffsetZ, 56, 8, false},
    {ValueKind::HiddenGridDims, 64, 2, false},
};
constexpr HiddenSlot kV5Pointers[] = {
    {ValueKind::HiddenHostcallBuffer, 80, 8, true},
    {ValueKind::HiddenMultigridSyncArg, 88, 8, true},
    {ValueKind::HiddenHeapV1, 96, 8, true},
    {ValueKind::HiddenQueuePtr, 200, 8, true},
};
constexpr uint32_t kV5BlockSize = 256;

// Code object v4 (and v3): 56 bytes of 8-byte slots.
constexpr HiddenSlot kV4Plain[] = {
    {ValueKind::HiddenGlobalOffsetX, 0, 8, false},  {ValueKind::HiddenGlobalOffsetY, 8, 8, false},
    {ValueKind::HiddenGlobalOffsetZ, 16, 8, false}, {ValueKind::HiddenNone, 24, 8, false},
    {ValueKind::HiddenNone, 32, 8, false},          {ValueKind::HiddenNone, 40, 8, false},
    {ValueKind::HiddenNone, 48, 8, false},
};
constexpr HiddenSlot kV4Pointers[] = {
    {ValueKind::HiddenGlobalOffsetX, 0, 8, false},
    {ValueKind::HiddenGlobalOffsetY, 8, 8, false},
    {ValueKind::HiddenGlobalOffsetZ, 16, 8, false},
    {ValueKind::HiddenHostcallBuffer, 24, 8, true},
    {ValueKind::HiddenNone, 32, 8, false},
    {ValueKind::HiddenNone, 40, 8, false},
    {ValueKind::HiddenMultigridSyncArg, 48, 8, true},
};
constexpr uint32_t kV4BlockSize = 56;

// k100lc compact layout (KERNELS.md §1.3 / DSL.md §2.1).
constexpr HiddenSlot kCompact[] = {
    {ValueKind::HiddenBlockCountX, 0, 4, false},    {ValueKind::HiddenBlockCountY, 4, 4, false},
    {ValueKind::HiddenBlockCountZ, 8, 4, false},    {ValueKind::HiddenGroupSizeX, 12, 2, false},
    {ValueKind::HiddenGroupSizeY, 14, 2, false},    {ValueKind::HiddenGroupSizeZ, 16, 2, false},
    {ValueKind::HiddenRemainderX, 18, 2, false},    {ValueKind::HiddenRemainderY, 20, 2, false},
    {ValueKind::HiddenRemainderZ, 22, 2, false},    {ValueKind::HiddenGlobalOffsetX, 24, 8, false},
    {ValueKind::HiddenGlobalOffsetY, 32, 8, false}, {ValueKind::HiddenGlobalOffsetZ, 40, 8, false},
    {ValueKind::HiddenGridDims, 48, 2, false},
};
constexpr uint32_t kCompactBlockSize = 56;

void add_slots(ArgLayout& l, std::span<const HiddenSlot> slots, uint32_t h) {
  for (const auto& s : slots) {
    ArgMeta a;
    a.value_kind = s.kind;
    a.offset = h + s.offset;
    a.size = s.size;
    if (s.pointer) a.address_space = AddressSpace::Global;
    l.args.push_back(std::move(a));
  }
}

}  // namespace

ArgLayout layout_kernel_args(std::span<const ExplicitArg> args, CodeObjectVersion version,
                             const ArgLayoutOptions& options) {
  ArgLayout l;
  uint64_t offset = 0;
  uint32_t max_align = 4;
  for (size_t i = 0; i < args.size(); ++i) {
    const ExplicitArg& e = args[i];
    std::string who = "argument " + std::to_string(i) + (e.name.empty() ? "" : " '" + e.name + "'");
    if (is_hidden(e.kind))
      throw Error(who + ": " + std::string(value_kind_name(e.kind)) +
                  " is a hidden argument; the layout adds hidden arguments itself");
    if (e.size == 0) throw Error(who + ": size must not be 0");
    uint32_t align = e.align;
    if (align == 0) {
      align = e.size & (~e.size + 1);  // largest power of two dividing the size
      if (align > 16) align = 16;
    }
    if ((align & (align - 1)) != 0)
      throw Error(who + ": alignment " + std::to_string(align) + " is not a power of two");
    offset = align_up(offset, align);
    ArgMeta a;
    if (!e.name.empty()) a.name = e.name;
    if (!e.type_name.empty()) a.type_name = e.type_name;
    a.offset = static_cast<uint32_t>(offset);
    a.size = e.size;
    a.value_kind = e.kind;
    a.address_space = e.address_space;
    if (!a.address_space && e.kind == ValueKind::GlobalBuffer)
      a.address_space = AddressSpace::Global;
    a.access = e.access;
    a.actual_access = e.actual_access;
    a.is_const = e.is_const;
    l.args.push_back(std::move(a));
    offset += e.size;
    if (offset > UINT32_MAX) throw Error(who + ": kernarg segment exceeds 4 GiB");
    if (align > max_align) max_align = align;
  }
  l.explicit_end = static_cast<uint32_t>(offset);
  if (options.hidden == HiddenArgLayout::None) {
    l.kernarg_segment_size =
        static_cast<uint32_t>(options.round_none_to_8 ? align_up(offset, 8) : offset);
    l.kernarg_segment_align = max_align;
    return l;
  }
  uint64_t h = align_up(offset, 8);
  uint64_t block = 0;
  if (options.hidden == HiddenArgLayout::Compact) {
    add_slots(l, kCompact, uint32_t(h));
    block = kCompactBlockSize;
  } else if (version == CodeObjectVersion::V5) {
    add_slots(l, kV5Grid, uint32_t(h));
    if (options.runtime_pointers) add_slots(l, kV5Pointers, uint32_t(h));
    block = kV5BlockSize;
  } else {
    add_slots(l,
              options.runtime_pointers ? std::span<const HiddenSlot>(kV4Pointers)
                                       : std::span<const HiddenSlot>(kV4Plain),
              uint32_t(h));
    block = kV4BlockSize;
  }
  if (h + block > UINT32_MAX) throw Error("kernarg segment exceeds 4 GiB");
  l.hidden_start = static_cast<uint32_t>(h);
  l.kernarg_segment_size = static_cast<uint32_t>(h + block);
  l.kernarg_segment_align = max_align < 8 ? 8 : max_align;
  return l;
}

}  // namespace k100::codeobj
