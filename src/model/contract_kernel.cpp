#include "k100/model/contract_kernel.h"

#include "k100/base/error.h"

namespace k100::model {

ContractKernel::ContractKernel(const Device& dev, std::string_view lookup,
                               std::string_view needed_by)
    : ContractKernel(dev, dev.kernel(lookup, needed_by)) {}

ContractKernel::ContractKernel(const Device& dev, KernelRef k)
    : ref(std::move(k)), contract(dev.contract(ref)) {}

void ContractKernel::launch(Device& dev, const kernels::Launch& l,
                            const std::map<std::string, uint64_t>& given) const {
  const std::vector<uint64_t> argv = contract.argv(l, given);
  if (l.grid[2] != 1)
    throw Error("kernel '" + ref.name +
                "': its contract gives a 3-D grid; the model launches 1-D and 2-D grids");
  if (l.grid[1] != 1)
    dev.launch_2d(ref, l.grid[0], l.grid[1], l.workgroup, argv);
  else
    dev.launch(ref, l.grid[0], l.workgroup, argv);
}

}  // namespace k100::model
