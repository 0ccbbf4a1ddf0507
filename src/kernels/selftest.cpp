#include "k100/kernels/selftest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "k100/base/closest_match.h"
#include "k100/kernels/lookup_list.h"

namespace k100::kernels {

const char* const kSelftestUsage =
    "usage: k100-selftest [--group a,b] [--only x,y] [--sweep] [--repeat N] [--json] [--list] [--verbose]\n"
    "                     [--no-check]\n"
    "Runs every kernel's self-test cases against its host reference on the runtime's backend\n"
    "(K100_BACKEND=auto|emu|hsa). The last line is \"N passed, M failed\".\n"
    "On the emulator, missing waits, hazards and LDS races fail a case; --no-check (or\n"
    "K100_EMU_CHECK=0) turns those checks off, K100_EMU_SCHEDULE=random[:SEED] shuffles waves.\n";

namespace {

std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

std::string json_number(double v) {
  if (!std::isfinite(v)) return v > 0 ? "1e999" : v < 0 ? "-1e999" : "null";
  char b[32];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

struct KernelOutcome {
  const KernelDef* def = nullptr;
  std::vector<Case> cases;
  std::vector<CaseResult> results;
  bool pass = true;
  std::string reason;  // kernel-level failure (missing, no cases)
  double max_abs = 0, max_rel = 0;
};

KernelOutcome run_kernel(TestDevice& dev, const KernelDef& def, const SelftestOptions& o) {
  KernelOutcome k;
  k.def = &def;
  k.cases = def.cases(o.sweep);
  if (k.cases.empty()) {
    k.pass = false;
    k.reason = "no test cases";
  }
  size_t compared = 0;
  for (const Case& c : k.cases) {
    CaseResult r;
    uint64_t first_hash = 0;
    for (int rep = 0; rep < std::max(1, o.repeat); ++rep) {
      CaseResult cur;
      try {
        cur = def.run(dev, c);
      } catch (const std::exception& e) {
        cur.pass = false;
        cur.note = e.what();
      }
      if (rep == 0) {
        r = cur;
        first_hash = cur.output_hash;
        continue;
      }
      r.max_abs = std::max(r.max_abs, cur.max_abs);
      r.max_rel = std::max(r.max_rel, cur.max_rel);
      if (!cur.pass && r.pass) {
        r.pass = false;
        r.note = "repeat " + std::to_string(rep + 1) + ": " + cur.note;
      }
      if (cur.output_hash != first_hash && r.pass) {
        r.pass = false;
        r.note = "output of repeat " + std::to_string(rep + 1) + " differs from the first run";
      }
    }
    if (r.pass && r.tolerance && !(*r.tolerance == def.tolerance)) {
      r.pass = false;
      r.note = "compared with " + r.tolerance->describe() + ", but the kernel states " + def.tolerance.describe();
    }
    k.max_abs = std::max(k.max_abs, r.max_abs);
    k.max_rel = std::max(k.max_rel, r.max_rel);
    if (!r.pass) k.pass = false;
    compared += r.compared;
    k.results.push_back(std::move(r));
  }
  if (!k.cases.empty() && compared == 0) {
    k.pass = false;
    k.reason = "its test cases compared no output value";
  }
  return k;
}

}  // namespace

bool parse_selftest_options(int argc, const char* const* argv, SelftestOptions& o, std::FILE* err) {
  // messages start with the program's name (k100-selftest, or the Python CLI's)
  std::string prog = argc > 0 && argv[0] && *argv[0] ? argv[0] : "selftest";
  if (size_t slash = prog.rfind('/'); slash != std::string::npos) prog = prog.substr(slash + 1);
  const char* tool = prog.c_str();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](std::string& v) {
      if (i + 1 >= argc) {
        std::fprintf(err, "%s: %s needs a value\n%s", tool, a.c_str(), kSelftestUsage);
        return false;
      }
      v = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--group" || a == "--only") {
      if (!value(v)) return false;
      auto items = split_lookup_list(v);
      if (items.empty()) {
        std::fprintf(err, "%s: %s needs at least one name\n", tool, a.c_str());
        return false;
      }
      auto& dst = a == "--group" ? o.groups : o.only;
      dst.insert(dst.end(), items.begin(), items.end());
    } else if (a == "--repeat") {
      if (!value(v)) return false;
      char* end = nullptr;
      long n = std::strtol(v.c_str(), &end, 10);
      if (!end || *end || n < 1 || n > 1000) {
        std::fprintf(err, "%s: --repeat wants a count from 1 to 1000, got '%s'\n", tool, v.c_str());
        return false;
      }
      o.repeat = int(n);
    } else if (a == "--sweep") {
      o.sweep = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--verbose" || a == "-v") {
      o.verbose = true;
    } else if (a == "--no-check") {
      setenv("K100_EMU_CHECK", "0", 1);  // read by the emulator backend when the runtime starts
    } else {
      std::string near = closest_match(a, {"--group", "--only", "--repeat", "--sweep", "--json", "--list", "--verbose",
                                           "--no-check", "--help", "--version"});
      std::fprintf(err, "%s: unknown option '%s'%s\n%s", tool, a.c_str(),
                   near.empty() ? "" : ("; did you mean '" + near + "'?").c_str(), kSelftestUsage);
      return false;
    }
  }
  return true;
}

int run_selftest(TestDevice& dev, const Registry& registry, const SelftestOptions& o, std::FILE* out, std::FILE* err,
                 const std::function<bool(const std::string&)>& has_kernel) {
  // Validate the selection first: an unknown name is an error, not an empty run.
  auto families = registry.families();
  std::vector<std::string> names;
  for (const auto& d : registry.all()) names.push_back(d.lookup);
  bool bad = false;
  for (const auto& g : o.groups)
    if (std::find(families.begin(), families.end(), g) == families.end()) {
      std::string near = closest_match(g, families);
      std::fprintf(err, "selftest: no group '%s'%s\n", g.c_str(),
                   near.empty() ? "" : (" (did you mean '" + near + "'?)").c_str());
      bad = true;
    }
  for (const auto& n : o.only)
    if (!registry.find(n)) {
      std::string near = closest_match(n, names);
      std::fprintf(err, "selftest: no kernel '%s'%s\n", n.c_str(),
                   near.empty() ? "" : (" (did you mean '" + near + "'?)").c_str());
      bad = true;
    }
  if (bad) {
    std::fprintf(err, "0 passed, 1 failed\n");
    return 1;
  }
  std::vector<const KernelDef*> selected;
  for (const auto& d : registry.all()) {
    if (!o.groups.empty() && std::find(o.groups.begin(), o.groups.end(), d.family) == o.groups.end()) continue;
    if (!o.only.empty() && std::find(o.only.begin(), o.only.end(), d.lookup) == o.only.end()) continue;
    selected.push_back(&d);
  }
  if (o.list) {
    for (const auto* d : selected) std::fprintf(out, "%-32s %s\n", d->lookup.c_str(), d->family.c_str());
    return 0;
  }
  if (!o.json)
    std::fprintf(out, "k100lc self-test on %s: %zu kernels%s%s\n", dev.backend().c_str(), selected.size(),
                 o.sweep ? ", sweep sizes" : "", o.repeat > 1 ? (", " + std::to_string(o.repeat) + " repeats").c_str() : "");
  int passed = 0, failed = 0;
  std::string json = "{\"backend\":" + json_string(dev.backend()) + ",\"sweep\":" + (o.sweep ? "true" : "false") +
                     ",\"repeat\":" + std::to_string(o.repeat) + ",\"kernels\":[";
  bool first = true;
  for (const KernelDef* d : selected) {
    KernelOutcome k;
    if (has_kernel && !has_kernel(d->lookup)) {
      k.def = d;
      k.pass = false;
      k.reason = "not in the loaded kernel package (rebuild it: cmake --build build)";
    } else {
      k = run_kernel(dev, *d, o);
    }
    (k.pass ? passed : failed)++;
    if (o.json) {
      json += std::string(first ? "\n" : ",\n") + "{\"lookup\":" + json_string(d->lookup) +
              ",\"family\":" + json_string(d->family) + ",\"pass\":" + (k.pass ? "true" : "false") +
              ",\"tolerance\":" + json_string(d->tolerance.describe()) + ",\"limits\":" + json_string(d->limits) +
              ",\"max_abs\":" + json_number(k.max_abs) + ",\"max_rel\":" + json_number(k.max_rel);
      if (!k.reason.empty()) json += ",\"reason\":" + json_string(k.reason);
      json += ",\"cases\":[";
      for (size_t i = 0; i < k.results.size(); ++i) {
        const CaseResult& r = k.results[i];
        json += std::string(i ? "," : "") + "{\"sizes\":" + json_string(k.cases[i].describe()) +
                ",\"pass\":" + (r.pass ? "true" : "false") + ",\"max_abs\":" + json_number(r.max_abs) +
                ",\"max_rel\":" + json_number(r.max_rel) + ",\"compared\":" + std::to_string(r.compared) +
                (r.note.empty() ? "" : ",\"note\":" + json_string(r.note)) + "}";
      }
      json += "]}";
      first = false;
      continue;
    }
    std::string sizes;
    if (k.cases.size() <= 6) {
      for (size_t i = 0; i < k.cases.size(); ++i) sizes += (i ? "; " : "") + k.cases[i].describe();
    } else {
      sizes = k.cases.front().describe() + " ... " + k.cases.back().describe();
    }
    std::fprintf(out, "%s %-28s [%s] %zu sizes (%s)  max abs %.3g  max rel %.3g  tolerance %s\n",
                 k.pass ? "PASS" : "FAIL", d->lookup.c_str(), d->family.c_str(), k.cases.size(), sizes.c_str(),
                 k.max_abs, k.max_rel, d->tolerance.describe().c_str());
    if (o.sweep && !d->limits.empty()) std::fprintf(out, "     limits: %s\n", d->limits.c_str());
    if (!k.reason.empty()) std::fprintf(out, "     %s\n", k.reason.c_str());
    for (size_t i = 0; i < k.results.size(); ++i) {
      const CaseResult& r = k.results[i];
      if (r.pass && !o.verbose) continue;
      std::fprintf(out, "     %s %s: max abs %.3g, max rel %.3g over %zu values%s%s\n", r.pass ? "ok  " : "FAIL",
                   k.cases[i].describe().c_str(), r.max_abs, r.max_rel, r.compared, r.note.empty() ? "" : ": ",
                   r.note.c_str());
    }
    std::fflush(out);
  }
  if (o.json) {
    json += "\n],\"passed\":" + std::to_string(passed) + ",\"failed\":" + std::to_string(failed) + "}\n";
    std::fputs(json.c_str(), out);
    std::fprintf(err, "%d passed, %d failed\n", passed, failed);
  } else {
    std::fprintf(out, "%d passed, %d failed\n", passed, failed);
  }
  return failed;
}

}  // namespace k100::kernels
