#include "parameter_override.h"

#include <cstdio>
#include <cstdlib>

namespace k100::bench {

bool apply_override(timing::MachineParams& m, const std::string& name_value) {
  auto eq = name_value.find('=');
  if (eq == std::string::npos || eq + 1 == name_value.size()) return false;
  char* end = nullptr;
  double v = std::strtod(name_value.c_str() + eq + 1, &end);
  if (!end || *end) return false;
  return timing::set_parameter(m, name_value.substr(0, eq), v);
}

bool apply_set_option(timing::MachineParams& m, const char* command, const std::string& name_value) {
  if (apply_override(m, name_value)) return true;
  std::fprintf(stderr, "k100-bench %s: --set wants name=value with a parameter name of k100/timing/machine.h, got '%s'\n",
               command, name_value.c_str());
  return false;
}

}  // namespace k100::bench
