// LDS race reports (the per-access bookkeeping is inline in core.h, on the
// LDS access path).
#include <string>

#include "../core.h"

namespace k100::emu::detail {

[[noreturn]] void report_lds_race(Exec& e, uint64_t dword, bool write, bool other_write, unsigned other_wave,
                                  uint32_t other_pc, int lane) {
  const Wave& w = *e.cur_wave;
  std::string what = std::string("wave ") + std::to_string(w.index) + (write ? " writes" : " reads") +
                     " LDS offset " + hex_text(dword * 4) + " which wave " + std::to_string(other_wave) +
                     (other_write ? " wrote" : " read") + " at pc " + hex_text(other_pc) +
                     " with no s_barrier in between (the result depends on the order the waves run)";
  CoreFault f{FaultKind::LdsRace, std::move(what), lane, dword * 4, 4, write, false};
  f.rule = write && other_write ? "lds_race.write_write" : write ? "lds_race.read_write" : "lds_race.write_read";
  f.other_pc = other_pc;
  f.other_wave = int(other_wave);
  try {
    f.other_text = e.d.prog->fetch(other_pc).text();
  } catch (...) {
  }
  f.fix = "s_waitcnt lgkmcnt(0) and s_barrier between the two accesses, or separate LDS ranges per wave";
  throw f;
}

}  // namespace k100::emu::detail
