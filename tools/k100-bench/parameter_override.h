// `--set name=value`: one timing-model parameter changed for a sensitivity
// study (k100-bench calibrate and validate). Names are the fields of
// k100/timing/machine.h.
#pragma once

#include <string>

#include "k100/timing/machine.h"

namespace k100::bench {

// Applies "name=value" to `m`; false (and `m` unchanged) when the text is not
// of that form or names no parameter.
bool apply_override(timing::MachineParams& m, const std::string& name_value);

// The same for a command's `--set` option: on failure prints why, naming
// `command` and the text, on standard error.
bool apply_set_option(timing::MachineParams& m, const char* command, const std::string& name_value);

}  // namespace k100::bench
