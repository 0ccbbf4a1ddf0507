// LDS race detection. Every LDS access of a workgroup records, per dword,
// the last writer and the readers of the current barrier epoch (the stretch
// between two s_barrier releases). Two different waves in the same epoch,
// one of them writing, is a race whatever order they ran in: the record of
// the first access is there when the second comes, whichever came first.
// Atomics against atomics are not races.
#include <string>

#include "../core.h"

namespace k100::emu::detail {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

[[noreturn]] void report_race(Exec& e, uint64_t dword, bool write, bool other_write, unsigned other_wave,
                              uint32_t other_pc, int lane) {
  const Wave& w = *e.cur_wave;
  std::string what = std::string("wave ") + std::to_string(w.index) + (write ? " writes" : " reads") +
                     " LDS offset " + hex(dword * 4) + " which wave " + std::to_string(other_wave) +
                     (other_write ? " wrote" : " read") + " at pc " + hex(other_pc) +
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

}  // namespace

void lds_race_access(Exec& e, uint64_t offset, uint32_t size, bool write, int lane) {
  if (!e.cur_wave) return;
  const unsigned wave = e.cur_wave->index;
  const uint32_t pc = uint32_t(e.cur_wave->s.pc);
  const uint32_t epoch = e.epoch;
  const uint8_t atomic = e.lds_atomic ? 1 : 0;
  for (uint64_t d = offset >> 2, last = (offset + size - 1) >> 2; d <= last && d < e.lds_shadow.size(); ++d) {
    LdsShadow& s = e.lds_shadow[size_t(d)];
    if (s.write_epoch == epoch && s.write_wave != wave && !(atomic && s.write_atomic))
      report_race(e, d, write, true, s.write_wave, s.write_pc, lane);
    if (write) {
      if (s.read_epoch == epoch && (s.read_mask & ~(1u << wave))) {
        int k = s.read_wave[0] != wave ? 0 : 1;
        report_race(e, d, true, false, s.read_wave[k], s.read_pc[k], lane);
      }
      s.write_epoch = epoch;
      s.write_wave = uint8_t(wave);
      s.write_pc = pc;
      s.write_atomic = atomic;
    } else {
      if (s.read_epoch != epoch) {
        s.read_epoch = epoch;
        s.read_mask = 0;
        s.readers = 0;
      }
      if (!(s.read_mask & (1u << wave))) {
        s.read_mask = uint16_t(s.read_mask | (1u << wave));
        // Keep two different reader waves, so a writer always finds one that is not itself.
        if (s.readers < 2) {
          s.read_wave[s.readers] = uint8_t(wave);
          s.read_pc[s.readers] = pc;
          ++s.readers;
        }
      }
    }
  }
}

}  // namespace k100::emu::detail
