#include "emu_test_support.h"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace k100::emu::test {


std::string work_dir() {
  static const std::string dir = [] {
    std::string d = std::string(K100_BINARY_DIR) + "/tests/emu_work";
    mkdir((std::string(K100_BINARY_DIR) + "/tests").c_str(), 0755);
    mkdir(d.c_str(), 0755);
    return d;
  }();
  return dir;
}

std::string kernel_asm(const std::string& name, const std::string& body, const KernelOptions& o) {
  std::ostringstream s;
  s << ".text\n.globl " << name << "\n.p2align 8\n.type " << name << ",@function\n" << name << ":\n"
    << body << "\n.size " << name << ", .-" << name << "\n\n";
  s << ".rodata\n.p2align 6\n.amdhsa_kernel " << name << "\n"
    << "  .amdhsa_group_segment_fixed_size " << o.lds << "\n"
    << "  .amdhsa_private_segment_fixed_size " << o.private_size << "\n"
    << "  .amdhsa_kernarg_size " << o.kernarg_size << "\n"
    << "  .amdhsa_user_sgpr_private_segment_buffer " << o.private_segment_buffer << "\n"
    << "  .amdhsa_user_sgpr_dispatch_ptr " << o.dispatch_ptr << "\n"
    << "  .amdhsa_user_sgpr_queue_ptr " << o.queue_ptr << "\n"
    << "  .amdhsa_user_sgpr_kernarg_segment_ptr " << o.kernarg_ptr << "\n"
    << "  .amdhsa_user_sgpr_dispatch_id " << o.dispatch_id << "\n"
    << "  .amdhsa_user_sgpr_flat_scratch_init " << o.flat_scratch_init << "\n"
    << "  .amdhsa_user_sgpr_private_segment_size " << o.private_segment_size << "\n"
    << "  .amdhsa_system_sgpr_private_segment_wavefront_offset " << o.wave_offset << "\n"
    << "  .amdhsa_system_sgpr_workgroup_id_x " << o.wg_id_x << "\n"
    << "  .amdhsa_system_sgpr_workgroup_id_y " << o.wg_id_y << "\n"
    << "  .amdhsa_system_sgpr_workgroup_id_z " << o.wg_id_z << "\n"
    << "  .amdhsa_system_sgpr_workgroup_info " << o.wg_info << "\n"
    << "  .amdhsa_system_vgpr_workitem_id " << o.workitem_id << "\n"
    << "  .amdhsa_next_free_vgpr " << o.vgprs << "\n"
    << "  .amdhsa_next_free_sgpr " << o.sgprs << "\n"
    << "  .amdhsa_reserve_vcc 1\n"
    << "  .amdhsa_reserve_flat_scratch " << (o.flat_scratch_init ? 1 : 0) << "\n"
    << "  .amdhsa_float_denorm_mode_32 " << o.denorm32 << "\n"
    << "  .amdhsa_ieee_mode " << o.ieee << "\n"
    << "  .amdhsa_dx10_clamp " << o.dx10_clamp << "\n"
    << ".end_amdhsa_kernel\n\n";
  return s.str();
}

namespace {
int run(const std::string& cmd, std::string* output) { return k100::test::run_shell(cmd, output); }
}  // namespace

std::optional<std::vector<uint8_t>> assemble(const std::string& source, const std::string& stem, std::string* why) {
  std::string mc = find_tool("llvm-mc-14"), ld = find_tool("ld.lld-14");
  if (mc.empty()) mc = find_tool("llvm-mc");
  if (ld.empty()) ld = find_tool("ld.lld");
  if (mc.empty() || ld.empty()) {
    *why = "llvm-mc-14 / ld.lld-14 not found (apt-get install llvm-14 lld-14)";
    return std::nullopt;
  }
  // Cache by content so reruns and repeated fixtures do not reassemble.
  std::string base = work_dir() + "/" + stem + "_" + std::to_string(std::hash<std::string>{}(source));
  std::string co_path = base + ".hsaco";
  if (auto cached = read_file(co_path)) return cached;
  // Private intermediate names: several test processes may assemble at once.
  std::string tmp = base + "." + std::to_string(getpid());
  std::string s_path = tmp + ".s", o_path = tmp + ".o", co_tmp = tmp + ".hsaco";
  {
    std::ofstream f(s_path);
    f << ".amdgcn_target \"amdgcn-amd-amdhsa--gfx906\"\n" << source;
  }
  std::string out;
  if (run(mc + " -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj -o " + o_path + " " + s_path, &out) != 0)
    throw std::runtime_error("llvm-mc failed on " + s_path + ":\n" + out);
  out.clear();
  if (run(ld + " -shared -o " + co_tmp + " " + o_path, &out) != 0)
    throw std::runtime_error("ld.lld failed on " + o_path + ":\n" + out);
  std::rename(co_tmp.c_str(), co_path.c_str());
  std::remove(s_path.c_str());
  std::remove(o_path.c_str());
  return read_file(co_path);
}

DispatchResult run_one_wave(Device& dev, const Program& prog, const std::string& kernel, uint64_t out, uint64_t in) {
  Args args;
  args.add(out).add(in);
  LaunchConfig launch;
  launch.grid = {64, 1, 1};
  launch.workgroup = {64, 1, 1};
  DispatchOptions opt;
  opt.threads = 1;
  return dev.dispatch(prog, kernel, launch, args.bytes(), opt);
}

}  // namespace k100::emu::test
