#include "k100/runtime/kernarg.h"

#include <bit>
#include <cstring>

#include "k100/runtime/error.h"

namespace k100::runtime {

uint32_t Geometry::dims() const {
  Dim3 g = grid_items();
  return g.z > 1 ? 3 : g.y > 1 ? 2 : 1;
}

void check_geometry(const Geometry& g, const std::string& kernel) {
  auto fail = [&](const std::string& why) {
    throw RuntimeError(ErrorCode::InvalidLaunch, "launch of kernel '" + kernel + "': " + why);
  };
  const char* axis[3] = {"x", "y", "z"};
  uint32_t groups[3] = {g.groups.x, g.groups.y, g.groups.z};
  uint32_t wg[3] = {g.workgroup.x, g.workgroup.y, g.workgroup.z};
  for (int i = 0; i < 3; ++i) {
    if (groups[i] == 0) fail(std::string("grid ") + axis[i] + " is 0 workgroups");
    if (wg[i] == 0) fail(std::string("workgroup size ") + axis[i] + " is 0");
    if (wg[i] > 1024)
      fail(std::string("workgroup size ") + axis[i] + " " + std::to_string(wg[i]) +
           " exceeds 1024");
    if (uint64_t(groups[i]) * wg[i] > 0xffffffffull)
      fail(std::string("grid ") + axis[i] + " of " + std::to_string(groups[i]) + " workgroups x " +
           std::to_string(wg[i]) + " work-items exceeds 2^32-1 work-items");
  }
  if (g.workgroup.volume() > 1024)
    fail("workgroup of " + std::to_string(g.workgroup.volume()) + " work-items exceeds 1024");
  if (g.dynamic_lds > 65536)
    fail("dynamic LDS of " + std::to_string(g.dynamic_lds) + " bytes exceeds 65536");
}

size_t explicit_count(std::span<const LayoutEntry> layout, const std::string& kernel) {
  size_t n = 0;
  while (n < layout.size() && layout[n].kind == kExplicit) ++n;
  for (size_t i = n; i < layout.size(); ++i)
    if (layout[i].kind == kExplicit)
      throw RuntimeError(ErrorCode::InvalidLaunch,
                         "kernel '" + kernel + "': argument " + std::to_string(i) +
                             " is explicit but follows hidden argument " + std::to_string(n) +
                             "; explicit arguments must come first");
  return n;
}

uint64_t hidden_value(uint8_t code, const Geometry& g, const BackendHidden& extra) {
  switch (code) {
    case kBlockCountX:
      return g.groups.x;
    case kBlockCountY:
      return g.groups.y;
    case kBlockCountZ:
      return g.groups.z;
    case kGroupSizeX:
      return g.workgroup.x;
    case kGroupSizeY:
      return g.workgroup.y;
    case kGroupSizeZ:
      return g.workgroup.z;
    case kRemainderX:
    case kRemainderY:
    case kRemainderZ:
      return 0;  // grid = groups x size
    case kGlobalOffsetX:
    case kGlobalOffsetY:
    case kGlobalOffsetZ:
      return 0;
    case kGridDims:
      return g.dims();
    case kDynamicLdsSize:
      return g.dynamic_lds;
    case kQueuePtr:
      return extra.known ? extra.queue_ptr : 0;
    case kPrivateBase:
      return extra.known ? extra.private_base : 0;
    case kSharedBase:
      return extra.known ? extra.shared_base : 0;
    default:
      return 0;  // hidden_none, printf/hostcall buffers, queues, heap: not provided
  }
}

std::vector<uint8_t> pack_kernarg(std::span<const LayoutEntry> layout, uint32_t kernarg_size,
                                  std::span<const uint64_t> argv, const Geometry& g,
                                  const std::string& kernel, const BackendHidden& extra) {
  size_t n_explicit = explicit_count(layout, kernel);
  if (argv.size() != n_explicit)
    throw RuntimeError(ErrorCode::WrongArgCount,
                       "kernel '" + kernel + "' takes " + std::to_string(n_explicit) +
                           " explicit argument" + (n_explicit == 1 ? "" : "s") + ", " +
                           std::to_string(argv.size()) + " given");
  uint64_t size = kernarg_size;
  for (const auto& e : layout) size = std::max<uint64_t>(size, uint64_t(e.offset) + e.size);
  if (size > kMaxKernarg)
    throw RuntimeError(ErrorCode::KernargTooBig,
                       "kernel '" + kernel + "' needs a kernarg segment of " +
                           std::to_string(size) + " bytes; the runtime's maximum is " +
                           std::to_string(kMaxKernarg));
  std::vector<uint8_t> out(size, 0);
  for (size_t i = 0; i < layout.size(); ++i) {
    const LayoutEntry& e = layout[i];
    uint64_t v;
    if (i < n_explicit) {
      if (e.size > 8)
        throw RuntimeError(ErrorCode::InvalidLaunch,
                           "kernel '" + kernel + "' argument " + std::to_string(i) + " is " +
                               std::to_string(e.size) + " bytes wide; an argv slot holds 8");
      v = argv[i];
    } else {
      v = hidden_value(e.kind, g, extra);
    }
    // Little-endian: the low `size` bytes of the value (wider hidden fields stay zero above 8).
    std::memcpy(out.data() + e.offset, &v, std::min<uint32_t>(e.size, 8));
  }
  return out;
}

uint64_t f32_arg(float v) {
  return std::bit_cast<uint32_t>(v);
}

}  // namespace k100::runtime
