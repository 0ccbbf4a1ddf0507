#include "k100/kernels/emu_test_device.h"

#include <cstring>

#include "k100/base/closest_match.h"
#include "k100/base/error.h"
#include "k100/codeobj/reader.h"
#include "k100/codeobj/writer.h"
#include "k100/emu/checks.h"
#include "k100/kernels/package.h"

namespace k100::kernels {

EmuTestDevice::EmuTestDevice(const Registry& registry, const std::string& kernels_dir, isa::Target target) {
  emu::apply_environment(options_);
  Package pkg = build_package(registry, target, kernels_dir, codeobj::CodeObjectVersion::V5, true);
  broken_ = pkg.broken;
  auto bytes = codeobj::write_code_object(pkg.code_object);
  program_ = device_.load_code_object(bytes, "k100lc_kernels (built in process)");
  for (const auto& e : pkg.catalog) {
    lookup_to_symbol_.emplace_back(e.lookup, e.name);
    launch_lines_[e.lookup] = e.launch;
  }
}

EmuTestDevice::EmuTestDevice(const Registry& registry, const std::string& kernels_dir, OnFirstLaunch,
                             isa::Target target)
    : lazy_registry_(&registry), kernels_dir_(kernels_dir), target_(target) {
  emu::apply_environment(options_);
}

const EmuTestDevice::Loaded& EmuTestDevice::loaded(const std::string& lookup) {
  auto it = lazy_.find(lookup);
  if (it != lazy_.end()) return it->second;
  const KernelDef* def = lazy_registry_->find(lookup);
  if (!def) {
    std::vector<std::string> names;
    for (const auto& d : lazy_registry_->all()) names.push_back(d.lookup);
    std::string near = closest_match(lookup, names);
    throw Error("unknown kernel '" + lookup + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
  }
  Registry one;
  one.add(*def);
  Package pkg = build_package(one, target_, kernels_dir_);
  auto bytes = codeobj::write_code_object(pkg.code_object);
  Loaded l{device_.load_code_object(bytes, "kernel " + lookup + " (built in process)"), pkg.catalog.at(0).name};
  launch_lines_[lookup] = pkg.catalog.at(0).launch;
  return lazy_.emplace(lookup, std::move(l)).first->second;
}

const emu::Program& EmuTestDevice::program() const {
  if (!program_) throw Error("this emulator test device builds each kernel at its first launch; use program_for(kernel)");
  return *program_;
}

const emu::Program& EmuTestDevice::program_for(const std::string& lookup) {
  return lazy_registry_ ? *loaded(lookup).program : program();
}

EmuTestDevice::EmuTestDevice(const std::string& package_path) {
  emu::apply_environment(options_);
  program_ = device_.load_code_object_file(package_path);
  codeobj::CodeObject co = codeobj::read_code_object_file(package_path);
  for (const auto& e : codeobj::make_catalog(co)) {
    lookup_to_symbol_.emplace_back(e.lookup, e.name);
    launch_lines_[e.lookup] = e.launch;
  }
}

LaunchContract EmuTestDevice::launch_contract(const std::string& lookup) {
  if (lazy_registry_) loaded(lookup);
  auto it = launch_lines_.find(lookup);
  if (it == launch_lines_.end() || it->second.empty())
    throw Error("kernel '" + lookup + "' has no launch contract in the emulator's package");
  return LaunchContract::from_lines(it->second, lookup);
}

uint64_t EmuTestDevice::alloc(size_t bytes) { return device_.alloc(bytes); }
void EmuTestDevice::free(uint64_t address) { device_.free(address); }
void EmuTestDevice::upload(uint64_t dst, const void* src, size_t bytes) {
  device_.write(dst, std::span<const uint8_t>(static_cast<const uint8_t*>(src), bytes));
}
void EmuTestDevice::download(void* dst, uint64_t src, size_t bytes) {
  device_.read(src, std::span<uint8_t>(static_cast<uint8_t*>(dst), bytes));
}
void EmuTestDevice::fill(uint64_t dst, uint8_t value, size_t bytes) { device_.fill(dst, value, bytes); }

std::string EmuTestDevice::symbol_for(const std::string& lookup) const {
  if (lazy_registry_) return const_cast<EmuTestDevice*>(this)->loaded(lookup).symbol;
  for (const auto& [l, s] : lookup_to_symbol_)
    if (l == lookup) return s;
  for (const auto& [l, why] : broken_)
    if (l == lookup) throw Error("kernel '" + lookup + "' did not build: " + why);
  std::vector<std::string> names;
  for (const auto& p : lookup_to_symbol_) names.push_back(p.first);
  std::string near = closest_match(lookup, names);
  throw Error("unknown kernel '" + lookup + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)"));
}

void EmuTestDevice::launch(const std::string& lookup, Dim3 grid, Dim3 workgroup, const std::vector<uint64_t>& argv) {
  std::string symbol = symbol_for(lookup);
  const emu::Program& program = program_for(lookup);
  const emu::KernelSpec* spec = program.find_kernel(symbol);
  if (!spec) throw Error("kernel '" + lookup + "' is not in the loaded code object");
  auto explicit_args = spec->explicit_args();
  if (argv.size() != explicit_args.size())
    throw Error("kernel '" + lookup + "' takes " + std::to_string(explicit_args.size()) + " arguments, " +
                std::to_string(argv.size()) + " given");
  std::vector<uint8_t> kernarg(spec->explicit_size(), 0);
  for (size_t i = 0; i < argv.size(); ++i) {
    const auto* a = explicit_args[i];
    std::memcpy(kernarg.data() + a->offset, &argv[i], std::min<size_t>(a->size, 8));
  }
  emu::LaunchConfig lc = emu::LaunchConfig::groups({grid.x, grid.y, grid.z}, {workgroup.x, workgroup.y, workgroup.z});
  emu::DispatchResult r = device_.dispatch(program, symbol, lc, kernarg, options_);
  last_profile_ = r.profile;
  r.check();
}

}  // namespace k100::kernels
