// Check and schedule switches: parsing and the environment variables.
#include <cstdlib>
#include <random>
#include <string>

#include "k100/base/error.h"
#include "k100/emu/device.h"

namespace k100::emu {

std::optional<ScheduleOptions> parse_schedule(std::string_view text) {
  ScheduleOptions s;
  if (text == "in-order" || text == "inorder" || text == "fixed") return s;
  if (text.substr(0, 6) != "random") return std::nullopt;
  s.kind = Schedule::Random;
  std::string_view rest = text.substr(6);
  if (rest.empty()) {
    // No seed given: a different interleaving every run.
    s.seed = uint64_t(std::random_device{}()) << 32 ^ uint64_t(std::random_device{}());
    return s;
  }
  if (rest[0] != ':' || rest.size() == 1) return std::nullopt;
  std::string digits(rest.substr(1));
  try {
    size_t pos = 0;
    s.seed = std::stoull(digits, &pos, 0);
    if (pos != digits.size()) return std::nullopt;
  } catch (...) {
    return std::nullopt;
  }
  return s;
}

std::optional<CheckOptions> parse_checks(std::string_view text) {
  if (text == "0" || text == "off" || text == "none" || text == "no") return CheckOptions::none();
  if (text == "1" || text == "on" || text == "all" || text == "yes" || text.empty()) return CheckOptions{};
  CheckOptions c = CheckOptions::none();
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view item = text.substr(start, end - start);
    if (item == "waits") c.waits = true;
    else if (item == "hazards") c.hazards = true;
    else if (item == "races") c.lds_races = true;
    else return std::nullopt;
    start = end + 1;
  }
  return c;
}

void apply_environment(DispatchOptions& options) {
  if (const char* v = std::getenv("K100_EMU_CHECK")) {
    auto c = parse_checks(v);
    if (!c)
      throw Error(std::string("K100_EMU_CHECK='") + v +
                  "' is not understood (0, off, 1, all, or a comma list of waits, hazards, races)");
    options.checks = *c;
  }
  if (const char* v = std::getenv("K100_EMU_BUDGET")) {
    char* end = nullptr;
    unsigned long long n = std::strtoull(v, &end, 0);
    if (end == v || *end || n == 0)
      throw Error(std::string("K100_EMU_BUDGET=") + v + " is not a positive number of wave-instructions");
    options.instruction_budget = n;
  }
  if (const char* v = std::getenv("K100_EMU_NOTICE")) {
    char* end = nullptr;
    double s = std::strtod(v, &end);
    if (!*v || *end || !(s >= 0))
      throw Error(std::string("K100_EMU_NOTICE='") + v + "' is not a number of seconds (0: no notice)");
    options.notice_after_seconds = s;
  }
  if (const char* v = std::getenv("K100_EMU_SCHEDULE")) {
    auto s = parse_schedule(v);
    if (!s) throw Error(std::string("K100_EMU_SCHEDULE='") + v + "' is not understood (random, random:SEED, in-order)");
    options.schedule = *s;
  }
}

}  // namespace k100::emu
