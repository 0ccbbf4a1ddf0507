// The kernel registry's documentation behind a C entry point of
// libk100_selftest.so: what each kernel computes (description, semantics),
// how it is launched (geometry), what it requires (limits) and the tolerance
// its self-test uses, for `python3 -m k100lc_kernels info NAME`.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <nlohmann/json.hpp>
#include <string>

#include "k100/kernels/registry.h"

// Writes at most `cap` bytes of the JSON ({"kernels": [{"lookup", "family",
// "description", "semantics", "geometry", "limits", "tolerance"}]}, NUL
// terminated) and returns its full length; -1 when the registry fails.
extern "C" __attribute__((visibility("default"))) long k100_kernel_docs_json(char* buf, size_t cap) {
  try {
    using J = nlohmann::ordered_json;
    J kernels = J::array();
    for (const auto& d : k100::kernels::registry().all()) {
      J k = J::object();
      k["lookup"] = d.lookup;
      k["family"] = d.family;
      k["description"] = d.description;
      k["semantics"] = d.semantics;
      k["geometry"] = d.geometry;
      k["limits"] = d.limits;
      k["tolerance"] = d.tolerance.describe();
      kernels.push_back(std::move(k));
    }
    J doc = J::object();
    doc["kernels"] = std::move(kernels);
    std::string text = doc.dump();
    if (buf && cap) {
      size_t n = std::min(cap - 1, text.size());
      std::memcpy(buf, text.data(), n);
      buf[n] = 0;
    }
    return long(text.size());
  } catch (const std::exception&) {
    return -1;
  }
}
