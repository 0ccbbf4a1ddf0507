// k100lc codeobj: kernarg segment layout from a compact argument list.
//
// Hand-written and generated kernels declare only their explicit arguments
// (name, value kind, type, size, optional access). This computes offsets
// (natural alignment), the segment size and alignment, and appends the hidden
// arguments of the chosen layout:
//   None     no hidden arguments (hand-written kernels);
//   Full     what clang emits: v5 block counts, group sizes, remainders, global
//            offsets, grid dims (and, with runtime_pointers, hostcall, multigrid,
//            heap and queue pointers) at clang's offsets, kernarg size H+256;
//            v4 global offsets x/y/z plus four 8-byte slots, size H+56;
//   Compact  the k100lc DSL layout (KERNELS.md §1.3): block counts, group sizes,
//            remainders, global offsets, grid dims packed, size H+56,
// where H is the end of the explicit arguments rounded up to 8.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "k100/codeobj/kernel_metadata.h"
#include "k100/codeobj/target.h"

namespace k100::codeobj {

enum class HiddenArgLayout { None, Full, Compact };

struct ExplicitArg {
  std::string name;
  ValueKind kind = ValueKind::ByValue;  // by_value or global_buffer (any non-hidden kind)
  std::string type_name;                // e.g. "float*", "uint"; "" = omit .type_name
  uint32_t size = 4;
  uint32_t align = 0;  // 0 = natural: the largest power of two dividing the size, at most 16
  std::optional<Access> access;
  std::optional<Access> actual_access;
  std::optional<AddressSpace> address_space;  // default: global for global_buffer
  std::optional<bool> is_const;
};

struct ArgLayoutOptions {
  HiddenArgLayout hidden = HiddenArgLayout::Full;
  // Full layout only: also list the runtime pointers clang emits when a kernel may need
  // them (v5: hidden_hostcall_buffer, hidden_multigrid_sync_arg, hidden_heap_v1,
  // hidden_queue_ptr; v4: hidden_hostcall_buffer and hidden_multigrid_sync_arg in place of
  // two of the hidden_none slots). Off gives the layout of the catalog's HIP kernels.
  bool runtime_pointers = false;
  // None layout only: round the kernarg size up to 8 instead of keeping it exact.
  bool round_none_to_8 = false;
};

struct ArgLayout {
  std::vector<ArgMeta> args;  // explicit ones first, then hidden ones
  uint32_t kernarg_segment_size = 0;
  uint32_t kernarg_segment_align = 4;
  uint32_t explicit_end = 0;  // end of the last explicit argument
  uint32_t hidden_start = 0;  // H (0 when there are no hidden arguments)
};

// Throws k100::Error naming the argument for hidden kinds, zero sizes, alignments that are
// not powers of two and layouts beyond 4 GiB.
ArgLayout layout_kernel_args(std::span<const ExplicitArg> args, CodeObjectVersion version,
                             const ArgLayoutOptions& options = {});

}  // namespace k100::codeobj
