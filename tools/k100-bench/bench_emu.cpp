// k100-bench emu: emulator throughput in wave-instructions per second on a
// VALU-heavy, a memory-heavy and an LDS-heavy kernel, with one host thread and
// with all of them, with the checks (missing waits, hazards, LDS races; on by
// default) and without them. The kernels are assembled with the project's
// assembler.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "bench_registry.h"
#include "command_table.h"
#include "k100/asm/object_builder.h"
#include "k100/codeobj/writer.h"
#include "k100/emu/device.h"

namespace {

using namespace k100;

const char* kSource = R"(
.amdgcn_target "amdgcn-amd-amdhsa--gfx906"
.text
.globl valu_loop
.p2align 8
.type valu_loop,@function
valu_loop:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  v_cvt_f32_u32 v1, v0
  v_mov_b32 v2, 1.0
  v_mov_b32 v3, 0.5
  v_mov_b32 v4, v0
  v_mov_b32 v5, 0
  s_waitcnt lgkmcnt(0)
.Lvalu:
  v_fma_f32 v2, v2, 0.5, v1
  v_mul_f32 v3, v3, 0.5
  v_add_f32 v3, v3, 1.0
  v_xor_b32 v4, v4, v0
  v_add_u32 v5, v5, v4
  v_mad_u32_u24 v4, v4, 3, v5
  v_max_f32 v6, v2, v3
  v_min_f32 v7, v2, v3
  v_fma_f32 v2, v6, 0.5, v7
  v_lshlrev_b32 v8, 1, v5
  v_and_b32 v8, 0xffff, v8
  v_or_b32 v5, v5, v8
  v_sub_u32 v5, v5, v4
  v_cvt_f32_u32 v9, v5
  v_fma_f32 v3, v9, 0, v3
  v_mul_lo_u32 v10, v4, v5
  v_fma_f32 v2, v2, 0.5, v1
  v_mul_f32 v3, v3, 0.5
  v_add_f32 v3, v3, 1.0
  v_xor_b32 v4, v4, v0
  v_add_u32 v5, v5, v4
  v_mad_u32_u24 v4, v4, 3, v5
  v_max_f32 v6, v2, v3
  v_min_f32 v7, v2, v3
  v_fma_f32 v2, v6, 0.5, v7
  v_lshlrev_b32 v8, 1, v5
  v_and_b32 v8, 0xffff, v8
  v_or_b32 v5, v5, v8
  v_sub_u32 v5, v5, v4
  v_cvt_f32_u32 v9, v5
  v_fma_f32 v3, v9, 0, v3
  v_add_u32 v10, v10, v4
  s_sub_u32 s6, s6, 1
  s_cmp_lg_u32 s6, 0
  s_cbranch_scc1 .Lvalu
  v_lshlrev_b32 v11, 2, v0
  v_add_f32 v2, v2, v3
  v_add_u32 v10, v10, v5
  v_cvt_f32_u32 v10, v10
  v_add_f32 v2, v2, v10
  global_store_dword v11, v2, s[4:5]
  s_endpgm
.size valu_loop, .-valu_loop

.globl mem_copy
.p2align 8
.type mem_copy,@function
mem_copy:
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_load_dwordx2 s[8:9], s[0:1], 0x10
  s_lshl_b32 s10, s2, 12
  v_lshlrev_b32 v1, 4, v0
  v_add_u32 v1, s10, v1
  s_waitcnt lgkmcnt(0)
.Lmem:
  global_load_dwordx4 v[2:5], v1, s[4:5]
  s_waitcnt vmcnt(0)
  v_add_f32 v2, 1.0, v2
  v_add_f32 v3, 1.0, v3
  global_store_dwordx4 v1, v[2:5], s[6:7]
  v_add_u32 v1, s9, v1
  s_sub_u32 s8, s8, 1
  s_cmp_lg_u32 s8, 0
  s_cbranch_scc1 .Lmem
  s_endpgm
.size mem_copy, .-mem_copy

.globl lds_loop
.p2align 8
.type lds_loop,@function
lds_loop:
  s_load_dwordx2 s[4:5], s[0:1], 0x0
  s_load_dword s6, s[0:1], 0x8
  v_lshlrev_b32 v1, 2, v0
  v_mov_b32 v3, 0
  s_waitcnt lgkmcnt(0)
.Llds:
  ds_write_b32 v1, v0
  ds_read_b32 v2, v1
  ds_write_b32 v1, v3 offset:1024
  ds_read_b32 v4, v1 offset:1024
  s_waitcnt lgkmcnt(0)
  v_add_u32 v3, v3, v2
  v_add_u32 v3, v3, v4
  s_barrier
  s_sub_u32 s6, s6, 1
  s_cmp_lg_u32 s6, 0
  s_cbranch_scc1 .Llds
  global_store_dword v1, v3, s[4:5]
  s_endpgm
.size lds_loop, .-lds_loop

.rodata
.p2align 6
.amdhsa_kernel lds_loop
  .amdhsa_kernarg_size 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_group_segment_fixed_size 2048
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
.end_amdhsa_kernel
.amdhsa_kernel valu_loop
  .amdhsa_kernarg_size 16
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_float_denorm_mode_32 3
.end_amdhsa_kernel
.amdhsa_kernel mem_copy
  .amdhsa_kernarg_size 24
  .amdhsa_user_sgpr_kernarg_segment_ptr 1
  .amdhsa_next_free_vgpr 16
  .amdhsa_next_free_sgpr 16
  .amdhsa_float_denorm_mode_32 3
.end_amdhsa_kernel
)";

struct Measure {
  double seconds;      // wall time
  double cpu_seconds;  // process CPU time (robust on a loaded machine)
  uint64_t wave_instructions;
  double rate() const { return double(wave_instructions) / seconds; }
  double cpu_rate() const { return double(wave_instructions) / cpu_seconds; }
};

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

Measure best_of(int reps, emu::Device& dev, const emu::Program& prog, const char* kernel, const emu::LaunchConfig& l,
                const std::vector<uint8_t>& args, unsigned threads, bool checks) {
  Measure best{1e30, 1e30, 0};
  for (int i = 0; i < reps; ++i) {
    emu::DispatchOptions opt;
    opt.threads = threads;
    if (!checks) opt.checks = emu::CheckOptions::none();
    double cpu0 = process_cpu_seconds();
    emu::DispatchResult r = dev.dispatch(prog, kernel, l, args, opt);
    double cpu = process_cpu_seconds() - cpu0;
    if (!r.ok()) {
      std::fprintf(stderr, "%s", r.fault->report().c_str());
      std::exit(1);
    }
    if (r.seconds < best.seconds) best.seconds = r.seconds;
    if (cpu < best.cpu_seconds) best.cpu_seconds = cpu;
    best.wave_instructions = r.profile.wave_instructions;
  }
  return best;
}

template <class T>
std::vector<uint8_t> pack(std::initializer_list<T> vals, std::vector<uint8_t> bytes = {}) {
  for (T v : vals) {
    size_t at = bytes.size();
    bytes.resize(at + sizeof(T));
    std::memcpy(bytes.data() + at, &v, sizeof(T));
  }
  return bytes;
}

int run(int argc, char** argv) {
  unsigned all = std::max(1u, std::thread::hardware_concurrency());
  // the best of several runs: a short run is easily disturbed by other work on the host
  int reps = 9;
  uint32_t scale = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") scale = 0;
    else if (a.rfind("--threads=", 0) == 0) all = unsigned(std::atoi(a.c_str() + 10));
    else if (a.rfind("--repeat=", 0) == 0 && std::atoi(a.c_str() + 9) > 0) reps = std::atoi(a.c_str() + 9);
    else if (a == "--help" || a == "-h") {
      std::printf("usage: k100-bench emu [--quick] [--threads=N] [--repeat=N]\n"
                  "Emulator wave-instructions per second on a VALU-heavy, a memory-heavy and an LDS-heavy kernel,\n"
                  "with 1 and N host threads (default: all), with and without the checks; the best of --repeat\n"
                  "runs (default 9); --quick: a tenth of the loop iterations.\n");
      return 0;
    } else {
      std::fprintf(stderr, "k100-bench emu: %s\nusage: k100-bench emu [--quick] [--threads=N] [--repeat=N]\n",
                   k100::tools::unknown_option(a, {"--quick", "--threads", "--repeat", "--help"}).c_str());
      return 2;
    }
  }
  DiagnosticSink diags;
  as::Options aopt;
  aopt.listing = false;
  auto co = as::assemble_code_object(kSource, "bench_emu.s", aopt, diags);
  if (!co) {
    for (const auto& d : diags.diagnostics()) std::fprintf(stderr, "%s\n", d.format().c_str());
    return 1;
  }
  emu::Device dev;
  auto prog = dev.load_code_object(codeobj::write_code_object(*co), "bench_emu");

  // VALU: 64 workgroups of 256 items, 32 VALU + 3 scalar per iteration.
  const uint32_t groups = 64, valu_iters = scale ? 400 : 40;
  uint64_t out = dev.alloc(groups * 256 * 4, "bench output");
  auto valu_args = pack<uint32_t>({valu_iters}, pack<uint64_t>({out}));
  emu::LaunchConfig lv = emu::LaunchConfig::groups({groups, 1, 1}, {256, 1, 1});

  // Memory: each iteration copies 4 KiB per workgroup with dwordx4 loads/stores.
  const uint32_t mem_iters = scale ? 64 : 8;
  const uint64_t bytes = uint64_t(groups) * 4096 * mem_iters;
  uint64_t src = dev.alloc(bytes, "bench source"), dst = dev.alloc(bytes, "bench destination");
  auto mem_args = pack<uint32_t>({mem_iters, groups * 4096}, pack<uint64_t>({src, dst}));

  // LDS: 64 workgroups of 256 items, 4 LDS ops, 2 VALU, a wait, a barrier per iteration.
  const uint32_t lds_iters = scale ? 400 : 40;
  auto lds_args = pack<uint32_t>({lds_iters}, pack<uint64_t>({out}));

  std::printf("k100-bench emu: wave-instructions per second (best of %d)\n", reps);
  std::printf("%-10s %-6s %7s %12s %9s %14s %14s %18s\n", "kernel", "checks", "threads", "wave-instr", "seconds",
              "wave-instr/s", "per thread", "per CPU-second");
  struct Row {
    const char* kernel;
    double on, off;  // per-CPU-second rates, one thread
  };
  std::vector<Row> cost;
  for (const char* kernel : {"valu_loop", "mem_copy", "lds_loop"}) {
    std::string k = kernel;
    const std::vector<uint8_t>& args = k == "valu_loop" ? valu_args : k == "mem_copy" ? mem_args : lds_args;
    Row row{kernel, 0, 0};
    for (bool checks : {true, false})
      for (unsigned t : {1u, all}) {
        Measure m = best_of(reps, dev, *prog, kernel, lv, args, t, checks);
        std::printf("%-10s %-6s %7u %12llu %9.4f %12.2f M %12.2f M %16.2f M\n", kernel, checks ? "on" : "off", t,
                    (unsigned long long)m.wave_instructions, m.seconds, m.rate() / 1e6, m.rate() / 1e6 / t,
                    m.cpu_rate() / 1e6);
        if (t == 1) (checks ? row.on : row.off) = m.cpu_rate();
        if (t == all && all == 1) break;
        if (t == 1 && all == 1) break;
      }
    cost.push_back(row);
  }
  std::printf("cost of the checks (one thread, per CPU-second):");
  for (const Row& r : cost) std::printf("  %s %.0f%%", r.kernel, 100.0 * (r.off / r.on - 1.0));
  std::printf("\n(time with the checks on / time without, minus one)\n");
  std::printf("mem_copy moves %.1f MB per dispatch. \"per CPU-second\" divides by the process CPU time,\n"
              "so it measures the per-core rate even when other processes share the cores.\n",
              double(bytes) * 2 / 1e6);
  return 0;
}

k100::bench::Register reg("emu", "emulator wave-instructions per second (VALU-heavy and memory-heavy kernels)", run);

}  // namespace
