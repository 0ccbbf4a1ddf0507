#include <sys/stat.h>

#include <atomic>
#include <cctype>
#include <cstdlib>
#include <iostream>

#include "k100/runtime/backend.h"
#include "k100/runtime/emu_backend.h"
#include "k100/runtime/error.h"
#include "k100/runtime/hsa_backend.h"

namespace k100::runtime {

std::optional<BackendKind> parse_backend_kind(std::string_view text) {
  std::string t;
  for (char c : text) t += char(std::tolower(static_cast<unsigned char>(c)));
  if (t == "auto") return BackendKind::Auto;
  if (t == "emu" || t == "emulator") return BackendKind::Emu;
  if (t == "hsa" || t == "hw" || t == "hardware") return BackendKind::Hsa;
  return std::nullopt;
}

BackendKind backend_kind_from_environment() {
  const char* v = std::getenv("K100_BACKEND");
  if (!v || !*v) return BackendKind::Auto;
  if (auto k = parse_backend_kind(v)) return *k;
  throw RuntimeError(ErrorCode::InvalidArgument,
                     std::string("K100_BACKEND=") + v + " is not one of auto, emu, hsa");
}

namespace {

unsigned emu_threads(unsigned requested) {
  if (requested) return requested;
  if (const char* v = std::getenv("K100_EMU_THREADS")) {
    char* end = nullptr;
    unsigned long n = std::strtoul(v, &end, 10);
    if (end != v && n > 0 && n <= 1024) return unsigned(n);
  }
  return 0;
}

uint64_t emu_budget(uint64_t requested) {
  if (requested) return requested;
  if (const char* v = std::getenv("K100_EMU_BUDGET")) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 0);
    if (end == v || *end || n == 0)
      throw RuntimeError(ErrorCode::InvalidArgument,
                         std::string("K100_EMU_BUDGET=") + v +
                             " is not a positive number of wave-instructions");
    return n;
  }
  return emu::kDefaultInstructionBudget;
}

bool kfd_missing() {
  struct stat st;
  return ::stat("/dev/kfd", &st) != 0;
}

std::atomic<bool> g_fallback_noted{false};

}  // namespace

std::unique_ptr<Backend> open_backend(const BackendOptions& options) {
  auto emulator = [&] {
    EmuBackendOptions e;
    e.threads = emu_threads(options.emu_threads);
    e.instruction_budget = emu_budget(options.emu_instruction_budget);
    return std::unique_ptr<Backend>(std::make_unique<EmuBackend>(e));
  };
  HsaBackendOptions h = HsaBackendOptions::from_environment();
  if (!options.hsa_library.empty()) h.library = options.hsa_library;
  switch (options.kind) {
    case BackendKind::Emu:
      return emulator();
    case BackendKind::Hsa:
      try {
        return std::make_unique<HsaBackend>(h);
      } catch (const RuntimeError& e) {
        // the machine-level cause first: without the kernel driver the HSA
        // runtime's own error is only a consequence
        std::string cause = kfd_missing() ? "/dev/kfd does not exist: this machine has no DCU/GPU kernel "
                                            "driver (kfd), or the device is not passed into this "
                                            "container; the HSA runtime reports: "
                                          : "";
        throw RuntimeError(ErrorCode::Backend, "K100_BACKEND=hsa: no usable DCU: " + cause + e.what() +
                                                   " (K100_BACKEND=emu or auto runs on the emulator)");
      }
    case BackendKind::Auto:
      break;
  }
  std::string why;
  if (kfd_missing()) {
    why = "/dev/kfd does not exist";
  } else {
    try {
      return std::make_unique<HsaBackend>(h);
    } catch (const RuntimeError& e) {
      why = e.what();
    }
  }
  if (!g_fallback_noted.exchange(true)) {
    std::string note = "k100: no usable DCU (" + why +
                       "); running kernels on the emulator (K100_BACKEND=emu selects it "
                       "explicitly, K100_BACKEND=hsa requires the hardware)";
    if (options.note)
      options.note(note);
    else
      std::cerr << note << std::endl;
  }
  return emulator();
}

}  // namespace k100::runtime
