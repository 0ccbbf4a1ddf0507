// k100lc model: a kernel of the loaded packages launched by its launch contract.
//
// The model never restates a kernel's workgroup, grid or host-derived
// arguments (shifts, counts): it gives the contract the case's sizes (and
// its own policy as the contract's choices) and the pointers and values only
// it knows; the contract of the package it runs gives the rest
// (k100/kernels/launch_contract.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "k100/kernels/launch_contract.h"
#include "k100/model/device.h"

namespace k100::model {

struct ContractKernel {
  KernelRef ref;
  kernels::LaunchContract contract;

  ContractKernel() = default;
  // The kernel and its contract, or a k100::Error naming the kernel (and what needs it).
  ContractKernel(const Device& dev, std::string_view lookup, std::string_view needed_by = {});
  ContractKernel(const Device& dev, KernelRef k);
  bool valid() const { return ref.valid(); }

  kernels::Launch plan(const std::map<std::string, int64_t>& sizes,
                       const std::map<std::string, int64_t>& choices = {}) const {
    return contract.evaluate(sizes, choices);
  }
  // Enqueues the launch `l` (a plan of this contract) with the arguments the
  // contract does not derive given by name.
  void launch(Device& dev, const kernels::Launch& l,
              const std::map<std::string, uint64_t>& given) const;
  // plan + launch.
  void launch(Device& dev, const std::map<std::string, int64_t>& sizes,
              const std::map<std::string, uint64_t>& given,
              const std::map<std::string, int64_t>& choices = {}) const {
    launch(dev, plan(sizes, choices), given);
  }
};

}  // namespace k100::model
