// The description of a dispatch that an ExecutionObserver receives.
#include "core.h"

namespace k100::emu::detail {

ObservedDispatch observed_dispatch(const DispatchShared& d) {
  const KernelSpec& k = *d.kernel;
  ObservedDispatch o;
  o.kernel = k.name;
  o.workgroups = d.groups.volume();
  o.workgroup_items = uint32_t(d.launch.workgroup.volume());
  o.waves_per_workgroup = d.max_waves;
  o.vgprs = ((k.rsrc1 & 0x3f) + 1) * 4;
  o.sgprs = (((k.rsrc1 >> 6) & 0xf) + 1) * 8;
  o.lds_bytes = d.lds_size;
  o.private_bytes = d.private_size;
  // The segments the runtime keeps in host memory, reached over the host link.
  o.kernarg_address = d.kernarg_address;
  o.kernarg_bytes = (std::max<uint64_t>(k.kernarg_size, 8) + 255) & ~uint64_t(255);  // the slot as allocated
  o.packet_address = d.packet_address;
  o.packet_bytes = 64;
  o.queue_address = d.queue_address;
  o.queue_bytes = 256;
  return o;
}

}  // namespace k100::emu::detail
