// The engine from C++ through its C ABI: open it with a kernel package,
// allocate device memory, move bytes both ways, free. Runs on the emulator
// when there is no DCU (K100_BACKEND=auto|emu|hsa chooses).
//
//   g++ -O2 -std=c++17 -I include/k100/runtime examples/cpp_alloc.cpp \
//       -L build -lfm_engine -Wl,-rpath,$PWD/build -o /tmp/cpp_alloc
//   /tmp/cpp_alloc build/k100lc_kernels.hsaco
#include <cstdio>
#include <cstring>
#include <vector>

#include "fm_engine.h"

int main(int argc, char** argv) {
  const char* package = argc > 1 ? argv[1] : nullptr;  // nullptr: the built kernel package
  if (fm_init(package) != 0) {
    std::fprintf(stderr, "fm_init failed: %s\n", fm_last_error());
    return 1;
  }
  std::printf("engine open on the %s backend\n", fm_backend());

  std::vector<unsigned char> in(1024), out(1024);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned char>(i * 7);
  void* p = fm_alloc(in.size());
  if (!p || fm_upload(p, in.data(), in.size()) != 0 ||
      fm_download(out.data(), p, out.size()) != 0) {
    std::fprintf(stderr, "device memory failed: %s\n", fm_last_error());
    return 1;
  }
  std::printf("1024 bytes up and down: %s\n",
              std::memcmp(in.data(), out.data(), in.size()) ? "MISMATCH" : "ok");

  // Errors are return codes plus text, never a crash.
  if (fm_download(out.data(), p, 2048) != 0) std::printf("expected error: %s\n", fm_last_error());
  fm_free(p);
  fm_shutdown();
  return std::memcmp(in.data(), out.data(), in.size()) ? 1 : 0;
}
