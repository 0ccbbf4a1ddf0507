// k100-bench asm: assembler throughput on a generated 200,000-line file,
// beside llvm-mc (-filetype=obj) on the same file when it is installed.
// Best of several runs for both; wall-clock on whatever else the machine does.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>

#include "bench_registry.h"
#include "command_table.h"
#include "k100/asm/assembler.h"

namespace {

std::string generate(size_t lines, uint32_t seed) {
  // A mix shaped like the kernel library: VALU with modifiers, memory, SALU,
  // DPP, packed math and dot products, with varied registers and offsets.
  static const char* kTemplates[] = {
      "v_add_f32 v%a, v%b, v%c",
      "v_fma_f32 v%a, v%b, s%s, v%c",
      "s_load_dwordx4 s[%S:%T], s[0:1], 0x%o",
      "global_load_dwordx4 v[%A:%B], v%b, s[2:3] offset:%o",
      "v_mul_f32_e32 v%a, 0x3f3504f3, v%b",
      "s_waitcnt vmcnt(0) lgkmcnt(0)",
      "v_dot4_i32_i8 v%a, v%b, v%c, v%a",
      "ds_read_b128 v[%A:%B], v%b offset:%o",
      "v_cmp_gt_u32 vcc, s%s, v%b",
      "s_and_saveexec_b64 s[%P:%Q], vcc",
      "v_add_u32_dpp v%a, v%b, v%c row_shr:1 bound_ctrl:0",
      "buffer_store_dword v%a, v%b, s[4:7], 0 offen offset:%o",
      "v_pk_fma_f16 v%a, v%b, v%c, v%a op_sel_hi:[1,1,1]",
      "s_lshl_b32 s%s, s%s, 2",
      "v_lshlrev_b32 v%a, 2, v%b",
      "v_mad_u64_u32 v[%A:%C], s[%P:%Q], v%b, s%s, v[%A:%C]",
  };
  std::mt19937 rng(seed);
  std::string out;
  out.reserve(lines * 40);
  char buf[160];
  for (size_t i = 0; i < lines; ++i) {
    const char* t = kTemplates[rng() % (sizeof kTemplates / sizeof *kTemplates)];
    unsigned a = rng() % 250, b = rng() % 256, c = rng() % 256, s = rng() % 100, A = (rng() % 60) * 4;
    unsigned S = (rng() % 24) * 4, P = (rng() % 50) * 2, o = (rng() % 256) * 4;
    std::string line = "  ";
    for (const char* p = t; *p; ++p) {
      if (*p != '%') {
        line += *p;
        continue;
      }
      unsigned v = 0;
      switch (*++p) {
        case 'a': v = a; break;
        case 'b': v = b; break;
        case 'c': v = c; break;
        case 's': v = s; break;
        case 'A': v = A; break;
        case 'B': v = A + 3; break;
        case 'C': v = A + 1; break;
        case 'S': v = S; break;
        case 'T': v = S + 3; break;
        case 'P': v = P; break;
        case 'Q': v = P + 1; break;
        case 'o': std::snprintf(buf, sizeof buf, "%u", o); line += buf; continue;
      }
      std::snprintf(buf, sizeof buf, "%u", v);
      line += buf;
    }
    out += line;
    out += '\n';
  }
  return out;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int run(int argc, char** argv) {
  size_t lines = 200000;
  int repeats = 5;  // best of several: short runs are easily disturbed by other work on the host
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--lines=", 8)) lines = std::strtoul(argv[i] + 8, nullptr, 10);
    else if (!std::strncmp(argv[i], "--repeat=", 9)) repeats = std::atoi(argv[i] + 9);
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("usage: k100-bench asm [--lines=N] [--repeat=N]\n"
                  "Assembles a generated N-line file (default 200000) with k100's assembler and, when installed,\n"
                  "llvm-mc; prints the best of --repeat runs (default 5) of each.\n");
      return 0;
    } else {
      std::fprintf(stderr, "k100-bench asm: %s\nusage: k100-bench asm [--lines=N] [--repeat=N]\n",
                   k100::tools::unknown_option(argv[i], {"--lines", "--repeat", "--help"}).c_str());
      return 2;
    }
  }
  std::string src = generate(lines, 1);
  std::string path = "/tmp/k100-bench-asm.s";
  std::ofstream(path) << src;

  double best = 1e30;
  size_t bytes = 0;
  for (int r = 0; r < repeats; ++r) {
    k100::DiagnosticSink diags;
    k100::as::Options opts;
    opts.target = k100::isa::Target::gfx906;
    opts.listing = false;
    auto t0 = std::chrono::steady_clock::now();
    k100::as::Program p = k100::as::assemble(src, path, opts, diags);
    best = std::min(best, seconds_since(t0));
    if (diags.has_errors()) {
      std::fprintf(stderr, "%s", diags.format_all().c_str());
      return 1;
    }
    bytes = p.section(".text")->bytes.size();
  }
  std::printf("k100-as (in process): %zu lines, %zu bytes of code, best of %d: %.3f s = %.0f lines/s\n", lines,
              bytes, repeats, best, double(lines) / best);

  const char* mc = nullptr;
  for (const char* cand : {"/usr/bin/llvm-mc-14", "/usr/bin/llvm-mc"})
    if (std::ifstream(cand)) {
      mc = cand;
      break;
    }
  if (!mc) {
    std::printf("llvm-mc: not installed, no comparison\n");
    return 0;
  }
  std::string cmd = std::string(mc) + " -triple=amdgcn-amd-amdhsa -mcpu=gfx906 -filetype=obj -o /dev/null " + path;
  double mc_best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) {
      std::printf("llvm-mc failed on the file\n");
      return 1;
    }
    mc_best = std::min(mc_best, seconds_since(t0));
  }
  std::printf("llvm-mc -filetype=obj (process): best of %d: %.3f s = %.0f lines/s\n", repeats, mc_best,
              double(lines) / mc_best);
  std::printf("ratio: k100-as is %.2fx llvm-mc's throughput (target: 5x)\n", mc_best / best);
  return 0;
}

k100::bench::Register reg("asm", "assembler throughput on a 200,000-line file, beside llvm-mc", run);

}  // namespace
