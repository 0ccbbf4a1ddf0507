// k100-bench repack: host throughput of the load-time GEMV repack
// (quant::repack_for_gemv, docs/GGUF.md "Fast GEMVs") and of its inverse on
// one ROWS x COLS matrix of random blocks per type. Best of several runs;
// MB/s counts the GGUF bytes, by wall clock (on whatever else the machine
// does) and by the thread's CPU time (what the repack costs a free core).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_registry.h"
#include "command_table.h"
#include "k100/base/error.h"
#include "k100/quant/gemv_layout.h"

namespace {

using k100::quant::TensorType;

constexpr TensorType kTypes[] = {TensorType::Q4_0,   TensorType::Q8_0,   TensorType::Q2_0,  TensorType::Q4_K,
                                 TensorType::Q5_K,   TensorType::Q6_K,   TensorType::IQ4_NL, TensorType::IQ4_XS,
                                 TensorType::IQ2_S,  TensorType::IQ3_S,  TensorType::IQ3_XXS};

double cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Wall-clock and CPU seconds of one call.
template <class F>
std::pair<double, double> timed(F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = cpu_seconds();
  f();
  return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), cpu_seconds() - c0};
}

const char* kUsage =
    "usage: k100-bench repack [--rows=N] [--cols=N] [--only=TYPE[,TYPE...]] [--repeat=N]\n"
    "Repacks a ROWS x COLS matrix (default 17408 x 5120) of random blocks of each GEMV type into the GEMV\n"
    "layout and back on the host; prints the best of --repeat runs (default 3) as MB/s of GGUF bytes.\n";

int run(int argc, char** argv) {
  int64_t rows = 17408, cols = 5120;
  int repeats = 3;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--rows=", 7)) rows = std::strtoll(argv[i] + 7, nullptr, 10);
    else if (!std::strncmp(argv[i], "--cols=", 7)) cols = std::strtoll(argv[i] + 7, nullptr, 10);
    else if (!std::strncmp(argv[i], "--repeat=", 9)) repeats = std::max(1, std::atoi(argv[i] + 9));
    else if (!std::strncmp(argv[i], "--only=", 7)) only = std::string(",") + (argv[i] + 7) + ",";
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf("%s", kUsage);
      return 0;
    } else {
      std::fprintf(stderr, "k100-bench repack: %s\n%s",
                   k100::tools::unknown_option(argv[i], {"--rows", "--cols", "--only", "--repeat", "--help"}).c_str(),
                   kUsage);
      return 2;
    }
  }
  // Every name of --only must be a GEMV type, and the shape not empty, before any output.
  std::string names = ",";
  for (TensorType t : kTypes) names += k100::quant::type_name(t) + ",";
  for (size_t at = 1; at < only.size();) {
    const size_t end = only.find(',', at);
    const std::string name = only.substr(at, end - at);
    if (names.find("," + name + ",") == std::string::npos) {
      std::fprintf(stderr, "k100-bench repack: --only: '%s' is not a GEMV type (%s)\n", name.c_str(),
                   names.substr(1, names.size() - 2).c_str());
      return 2;
    }
    at = end + 1;
  }
  if (rows <= 0 || cols <= 0) {
    std::fprintf(stderr, "k100-bench repack: --rows and --cols must be positive, not %lld x %lld\n", (long long)rows,
                 (long long)cols);
    return 2;
  }
  int status = 0;
  std::printf("%-8s %9s %10s %9s %9s %10s %12s %12s\n", "type", "GGUF MB", "layout MB", "repack s", "MB/s",
              "MB/s cpu", "unpack MB/s", "unpack cpu");
  for (TensorType t : kTypes) {
    const std::string name = k100::quant::type_name(t);
    if (!only.empty() && only.find("," + name + ",") == std::string::npos) continue;
    k100::quant::GemvLayout l;
    try {
      l = k100::quant::gemv_layout(t, rows, cols);
    } catch (const k100::Error& e) {
      std::fprintf(stderr, "k100-bench repack: %s\n", e.what());
      return 2;
    }
    const size_t gguf = size_t(rows * l.blocks_per_row * l.block_bytes);
    std::vector<uint8_t> src(gguf), packed(size_t(l.bytes())), back(gguf);
    std::mt19937_64 g{static_cast<uint64_t>(t)};
    for (size_t i = 0; i + 8 <= gguf; i += 8) {
      const uint64_t v = g();
      std::memcpy(&src[i], &v, 8);
    }
    std::pair<double, double> best{1e30, 1e30}, best_back{1e30, 1e30};
    for (int r = 0; r < repeats; ++r) {
      const auto there = timed([&] { k100::quant::repack_for_gemv(l, src.data(), packed.data()); });
      const auto back_again = timed([&] { k100::quant::unpack_from_gemv(l, packed.data(), back.data()); });
      best = {std::min(best.first, there.first), std::min(best.second, there.second)};
      best_back = {std::min(best_back.first, back_again.first), std::min(best_back.second, back_again.second)};
    }
    // A bench that reports a speed for a wrong result measures nothing.
    const bool same = back == src;
    if (!same) status = 1;
    const double mb = double(gguf) / 1e6;
    std::printf("%-8s %9.1f %10.1f %9.3f %9.0f %10.0f %12.0f %12.0f%s\n", name.c_str(), mb, double(l.bytes()) / 1e6,
                best.first, mb / best.first, mb / best.second, mb / best_back.first, mb / best_back.second,
                same ? "" : "  ROUND TRIP FAILED");
  }
  return status;
}

const k100::bench::Register kRegister("repack", "host throughput of the GEMV load-time repack per GGUF type", run);

}  // namespace
