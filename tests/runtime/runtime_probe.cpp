// Opens two runtimes as K100_BACKEND says (no package) and prints their
// backends: the auto fallback note must appear once per process.
#include <cstdio>

#include "k100/runtime/runtime.h"

int main() {
  try {
    k100::runtime::RuntimeOptions o;
    o.default_package = false;
    k100::Runtime a(o);
    k100::Runtime b(o);
    std::printf("backend %s %s\n", a.backend_name().c_str(), b.backend_name().c_str());
    return 0;
  } catch (const std::exception& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
