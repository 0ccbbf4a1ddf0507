// Naming what limits a simulated dispatch, from its busy fractions,
// residency and waits (DispatchTiming fields).
#pragma once

#include "k100/timing/simulator.h"

namespace k100::timing::detail {

// Sets r.limiter and r.reason.
void attribute_limiter(DispatchTiming& r);

}  // namespace k100::timing::detail
