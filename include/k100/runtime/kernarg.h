// k100lc runtime: launch geometry and kernarg packing.
//
// A launch gives the number of WORKGROUPS per dimension and the workgroup
// size; the dispatch packet's grid size is their product in every dimension.
// The kernarg segment is built from an argument layout (offset, size, kind
// code per entry, explicit arguments first): explicit arguments take the low
// `size` bytes of their uint64 argv slot; hidden arguments are filled from the
// geometry (block counts, group sizes, remainders 0, global offsets 0, grid
// dims), each with its own width; every other byte is zero. The same bytes go
// to the emulator and to the hardware.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace k100::runtime {

constexpr uint32_t kMaxKernarg = 1024;  // bytes per kernarg slot (PYTHON_API.md §8)

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  uint64_t volume() const { return uint64_t(x) * y * z; }
  bool operator==(const Dim3&) const = default;
};

// Kind codes of the layouts (PYTHON_API.md §8, KERNELS.md §1.3); 14 and up are
// k100lc extensions for the other hidden kinds (see codeobj/catalog.h).
enum KindCode : uint8_t {
  kExplicit = 0,
  kBlockCountX = 1,
  kBlockCountY = 2,
  kBlockCountZ = 3,
  kGroupSizeX = 4,
  kGroupSizeY = 5,
  kGroupSizeZ = 6,
  kRemainderX = 7,
  kRemainderY = 8,
  kRemainderZ = 9,
  kGlobalOffsetX = 10,
  kGlobalOffsetY = 11,
  kGlobalOffsetZ = 12,
  kGridDims = 13,
  kHiddenNone = 14,
  kPrintfBuffer = 15,
  kHostcallBuffer = 16,
  kDefaultQueue = 17,
  kCompletionAction = 18,
  kMultigridSync = 19,
  kHeapV1 = 20,
  kPrivateBase = 21,
  kSharedBase = 22,
  kQueuePtr = 23,
  kDynamicLdsSize = 24,
};

struct LayoutEntry {
  uint32_t offset = 0;
  uint32_t size = 0;
  uint8_t kind = kExplicit;
};

// The dispatch shape. grid_items() = groups * workgroup per dimension.
struct Geometry {
  Dim3 groups;
  Dim3 workgroup;
  uint32_t dynamic_lds = 0;
  Dim3 grid_items() const {
    return {groups.x * workgroup.x, groups.y * workgroup.y, groups.z * workgroup.z};
  }
  // 3 if the grid has more than one work-item along z, else 2 if along y, else 1.
  uint32_t dims() const;
};

// Checks sizes (every dimension >= 1, workgroup volume <= 1024, each grid
// dimension in work-items < 2^32). Throws RuntimeError(InvalidLaunch) naming
// `kernel`.
void check_geometry(const Geometry& g, const std::string& kernel);

// Number of explicit arguments: the leading entries of kind 0. Throws
// RuntimeError(InvalidLaunch) if an explicit entry follows a hidden one.
size_t explicit_count(std::span<const LayoutEntry> layout, const std::string& kernel);

// Values the backend supplies for hidden kinds the runtime cannot know.
struct BackendHidden {
  uint64_t queue_ptr = 0;
  uint64_t private_base = 0;  // aperture bases as the kernarg fields hold them (high 32 bits)
  uint64_t shared_base = 0;
  bool known = false;  // false: those kinds are written as zero
};

// The value of a hidden argument of kind `code` for geometry `g` (0 for unknown kinds).
uint64_t hidden_value(uint8_t code, const Geometry& g, const BackendHidden& extra = {});

// Builds the kernarg segment of `kernarg_size` bytes (at least the end of the
// last entry). Throws RuntimeError: WrongArgCount when argv.size() differs
// from the explicit count, KernargTooBig above kMaxKernarg, InvalidLaunch for
// entries that do not fit or explicit arguments wider than 8 bytes.
std::vector<uint8_t> pack_kernarg(std::span<const LayoutEntry> layout, uint32_t kernarg_size,
                                  std::span<const uint64_t> argv, const Geometry& g,
                                  const std::string& kernel, const BackendHidden& extra = {});

// The IEEE-754 single bits of `v` in the low 32 bits of an argv slot.
uint64_t f32_arg(float v);

}  // namespace k100::runtime
