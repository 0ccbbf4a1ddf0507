#include "hsa_api.h"

#include <dlfcn.h>

#include "k100/runtime/error.h"
#include "k100/runtime/hsa_backend.h"

namespace k100::runtime {
namespace {

#define K100_HSA_NAME(name) #name,
constexpr const char* kSymbols[] = {K100_HSA_FUNCTIONS(K100_HSA_NAME)};
#undef K100_HSA_NAME

}  // namespace

std::span<const char* const> hsa_required_symbols() {
  return kSymbols;
}

HsaApi HsaApi::load(const std::string& explicit_path) {
  std::string tried;
  for (const std::string& path : hsa_library_candidates(explicit_path)) {
    dlerror();
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      const char* e = dlerror();
      tried += "\n  " + path + ": " + (e ? e : "cannot be opened");
      continue;
    }
    HsaApi api;
    api.handle = h;
    api.path = path;
    std::string missing;
#define K100_HSA_RESOLVE(name)                                      \
  api.name = reinterpret_cast<decltype(api.name)>(dlsym(h, #name)); \
  if (!api.name) missing += std::string(missing.empty() ? "" : ", ") + #name;
    K100_HSA_FUNCTIONS(K100_HSA_RESOLVE)
#undef K100_HSA_RESOLVE
    if (missing.empty()) return api;
    tried += "\n  " + path + ": lacks " + missing;
    dlclose(h);  // nothing of it was called
  }
  throw RuntimeError(ErrorCode::Backend,
                     "no usable HSA runtime library; tried:" + tried +
                         "\n(set K100_HSA_LIB to the driver's libhsa-runtime64.so)");
}

std::string HsaApi::status_text(hsa_status_t s) const {
  const char* text = nullptr;
  if (hsa_status_string) hsa_status_string(s, &text);
  char code[32];
  std::snprintf(code, sizeof code, "0x%x", unsigned(s));
  return text ? std::string(text) + " (" + code + ")" : std::string("HSA status ") + code;
}

}  // namespace k100::runtime
