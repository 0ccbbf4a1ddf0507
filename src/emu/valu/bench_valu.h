// k100lc emu/valu: a micro benchmark of the vector ALU semantics alone (no
// decode, no scheduling): how many wave-instructions per second one host
// thread executes for a mix of common VALU instructions. k100-bench calls it.
#pragma once

#include <string>
#include <vector>

namespace k100::emu::valu {

struct ValuBenchLine {
  std::string name;            // instruction (and form) measured
  double winst_per_sec = 0;    // wave-instructions per second of thread CPU time
};

// Runs each benchmark instruction for about `seconds_each` seconds.
std::vector<ValuBenchLine> run_valu_benchmark(double seconds_each = 0.05);

}  // namespace k100::emu::valu
