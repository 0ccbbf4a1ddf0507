// k100-run: run one kernel of a code object on the emulator.
//
//   k100-run OBJ KERNEL (--grid GX[,GY[,GZ]] | --global NX[,NY[,NZ]]) --wg WX[,WY[,WZ]]
//            [--profile] [--json] [--trace[=SPEC]]... [--threads N] [--budget N]
//            [--dynamic-lds BYTES] [--schedule=random[:SEED]] [--no-check] ARG...
//
// One ARG per explicit kernel argument, in order:
//   in:FILE             buffer initialised from the file's bytes
//   out:NBYTES:FILE     zeroed buffer of NBYTES, written to FILE after the run
//   io:FILE:OUTFILE     buffer initialised from FILE, written to OUTFILE after the run
//   u32:V i32:V u64:V i64:V f16:V f32:V f64:V   scalars
// --grid counts workgroups (grid = groups x workgroup); --global is the HSA
// grid size in work-items (the last workgroup may be partial).
// --trace prints each executed instruction and the registers it wrote;
// SPEC is "wg=N|all,wave=N|all,lanes=L" with L like "0-3,7" or "all"
// (default wg=0,wave=0,lanes=0).
// The emulator checks missing waits, hazards and LDS races (a report is a
// fault); --no-check turns them off. --schedule=random[:SEED] interleaves the
// waves of a workgroup randomly between barriers.
// Exit status: 0 success, 1 fault (report on stderr) or an unusable input, 2 usage error.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "k100/base/error.h"
#include "k100/emu/device.h"
#include "k100/emu/loader.h"
#include "k100/base/closest_match.h"
#include "k100/codeobj/input_file.h"
#include "k100/codeobj/reader.h"
#include "option_table.h"

using namespace k100;
using namespace k100::emu;

namespace {


struct UsageError : Error {
  using Error::Error;
};

// IEEE binary16 bits of x, rounded to nearest even (f16: arguments).
uint16_t f16_bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  uint32_t sign = (b >> 16) & 0x8000u, exp = (b >> 23) & 0xff, man = b & 0x7fffffu;
  if (exp == 0xff) return uint16_t(sign | 0x7c00u | (man ? 0x200u : 0));  // inf, NaN
  int e = int(exp) - 127 + 15;
  if (e >= 31) return uint16_t(sign | 0x7c00u);  // overflow: inf
  if (e <= 0) {                                   // subnormal or zero
    if (e < -10) return uint16_t(sign);
    man |= 0x800000u;
    uint32_t shift = uint32_t(14 - e);
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return uint16_t(sign | h);
  }
  uint32_t h = uint32_t(e) << 10 | man >> 13, rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;  // may carry into the exponent: still right
  return uint16_t(sign | h);
}

uint64_t parse_uint(const std::string& s, const std::string& what) {
  try {
    size_t pos = 0;
    unsigned long long v = std::stoull(s, &pos, 0);
    if (pos != s.size()) throw 0;
    return v;
  } catch (...) {
    throw UsageError("k100-run: " + what + ": '" + s + "' is not a number");
  }
}

int64_t parse_int(const std::string& s, const std::string& what) {
  try {
    size_t pos = 0;
    long long v = std::stoll(s, &pos, 0);
    if (pos != s.size()) throw 0;
    return v;
  } catch (...) {
    throw UsageError("k100-run: " + what + ": '" + s + "' is not a number");
  }
}

Dim3 parse_dims(const std::string& s, const std::string& what) {
  std::vector<uint32_t> v;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ',')) {
    uint64_t x = parse_uint(part, what);
    if (x == 0 || x > 0xffffffffull) throw UsageError("k100-run: " + what + ": each size must be 1..2^32-1");
    v.push_back(uint32_t(x));
  }
  if (v.empty() || v.size() > 3) throw UsageError("k100-run: " + what + " takes 1 to 3 comma-separated sizes");
  Dim3 d;
  d.x = v[0];
  if (v.size() > 1) d.y = v[1];
  if (v.size() > 2) d.z = v[2];
  return d;
}

std::vector<uint8_t> read_all(const std::string& path) {
  return codeobj::read_input_file(path, "input file");
}

void write_all(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  if (!f || !f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size())))
    throw Error("cannot write output file '" + path + "'");
}

uint64_t parse_lanes(const std::string& s) {
  if (s == "all") return ~uint64_t(0);
  uint64_t m = 0;
  std::stringstream ss(s);
  std::string part;
  while (std::getline(ss, part, ':')) {
    size_t dash = part.find('-');
    uint64_t lo = parse_uint(part.substr(0, dash), "--trace lanes");
    uint64_t hi = dash == std::string::npos ? lo : parse_uint(part.substr(dash + 1), "--trace lanes");
    if (lo > 63 || hi > 63 || lo > hi) throw UsageError("k100-run: --trace lanes must be within 0-63");
    for (uint64_t l = lo; l <= hi; ++l) m |= uint64_t(1) << l;
  }
  return m;
}

// "wg=0,wave=all,lanes=0-3:8" (lane ranges separated by ':' since ',' separates keys)
TraceFilter parse_trace(const std::string& spec) {
  TraceFilter f;
  if (spec.empty()) return f;
  std::stringstream ss(spec);
  std::string kv;
  while (std::getline(ss, kv, ',')) {
    size_t eq = kv.find('=');
    if (eq == std::string::npos) throw UsageError("k100-run: --trace: expected key=value, got '" + kv + "'");
    std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    if (k == "wg") f.workgroup = v == "all" ? -1 : int64_t(parse_uint(v, "--trace wg"));
    else if (k == "wave") f.wave = v == "all" ? -1 : int64_t(parse_uint(v, "--trace wave"));
    else if (k == "lanes") f.lanes = parse_lanes(v);
    else throw UsageError("k100-run: --trace: unknown key '" + k + "' (wg, wave, lanes)");
  }
  return f;
}

std::string json_str(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      default:
        if (uint8_t(c) < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += c;
        }
    }
  }
  return o + "\"";
}

std::string fault_json(const Fault& f) {
  std::ostringstream o;
  o << "{\"kind\":" << json_str(fault_kind_name(f.kind)) << ",\"message\":" << json_str(f.message)
    << ",\"kernel\":" << json_str(f.kernel) << ",\"pc\":" << f.pc << ",\"instruction\":" << json_str(f.instruction)
    << ",\"encoding\":" << json_str(f.encoding) << ",\"workgroup\":[" << f.workgroup[0] << "," << f.workgroup[1]
    << "," << f.workgroup[2] << "],\"wave\":" << f.wave << ",\"lane\":" << f.lane;
  if (f.address) o << ",\"address\":" << *f.address << ",\"access_size\":" << f.access_size << ",\"write\":" << (f.write ? "true" : "false");
  if (f.nearest)
    o << ",\"allocation\":{\"id\":" << f.nearest->id << ",\"address\":" << f.nearest->address
      << ",\"size\":" << f.nearest->size << ",\"label\":" << json_str(f.nearest->label)
      << ",\"live\":" << (f.nearest->live ? "true" : "false") << "},\"distance\":" << f.distance;
  // the emulator checks' reports (missing waits, hazards, LDS races)
  if (!f.rule.empty()) o << ",\"rule\":" << json_str(f.rule);
  if (!f.reg.empty()) o << ",\"register\":" << json_str(f.reg);
  if (f.other_pc) o << ",\"other_pc\":" << *f.other_pc;
  if (!f.other_instruction.empty()) o << ",\"other_instruction\":" << json_str(f.other_instruction);
  if (f.other_wave >= 0) o << ",\"other_wave\":" << f.other_wave;
  if (!f.fix.empty()) o << ",\"fix\":" << json_str(f.fix);
  o << "}";
  return o.str();
}

struct OutBuffer {
  uint64_t address;
  uint64_t size;
  std::string path;
};

// "k100-run: k100-run: x" -> "x": messages are built in layers, each may add the prefix.
std::string strip_prefix(std::string m) {
  while (m.rfind("k100-run: ", 0) == 0) m = m.substr(10);
  return m;
}

// What a by-value argument's type name says it is. Only names that are
// certainly one or the other count: a typedef (clang writes PolyBench's
// DATA_TYPE as it is spelled) or a struct says nothing, and then every typed
// form of the argument's size is taken.
enum class ScalarClass { Floating, Integer, Unknown };

ScalarClass scalar_class(const std::string& type) {
  std::vector<std::string> words;
  std::string w;
  for (char c : type + " ") {
    if (std::isalnum(uint8_t(c)) || c == '_') {
      w += c;
    } else if (!w.empty()) {
      if (w != "const" && w != "volatile" && w != "restrict" && w != "__restrict") words.push_back(w);
      w.clear();
    }
  }
  if (words.empty()) return ScalarClass::Unknown;
  static const char* const kFloating[] = {"float", "double", "half", "_Float16", "__fp16", "bf16", "bfloat16",
                                          "__bf16", "f16", "f32", "f64"};
  static const char* const kInteger[] = {"char", "short", "int", "long", "unsigned", "signed", "bool", "_Bool",
                                         "size_t", "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "uchar",
                                         "ushort", "uint", "ulong", "i8", "u8", "i16", "u16", "i32", "u32", "i64",
                                         "u64", "int8_t", "uint8_t", "int16_t", "uint16_t", "int32_t", "uint32_t",
                                         "int64_t", "uint64_t"};
  auto in = [](const std::string& x, const auto& list) {
    return std::find(std::begin(list), std::end(list), x) != std::end(list);
  };
  if (words.size() == 1 && in(words[0], kFloating)) return ScalarClass::Floating;
  for (const auto& x : words)
    if (!in(x, kInteger)) return ScalarClass::Unknown;
  return ScalarClass::Integer;
}

// A command-line value's kind against the kernel's metadata record: a buffer
// for a pointer, f16:/f32:/f64: for a floating-point scalar, an integer kind for
// an integer one, any kind of the argument's size for a type name it does not know.
void check_kind(const std::string& kind, const codeobj::ArgMeta& m, const std::string& where) {
  std::string arg = m.name ? " '" + *m.name + "'" : "";
  std::string type = m.type_name.value_or("");
  bool buffer_kind = kind == "in" || kind == "out" || kind == "io";
  bool pointer = m.value_kind == codeobj::ValueKind::GlobalBuffer || m.value_kind == codeobj::ValueKind::DynamicSharedPointer ||
                 type.find('*') != std::string::npos;
  if (kind != "in" && kind != "out" && kind != "io" && kind != "u32" && kind != "i32" && kind != "u64" &&
      kind != "i64" && kind != "f16" && kind != "f32" && kind != "f64")
    return;  // reported as an unknown kind below
  // u64: stays allowed for a pointer: a raw address (u64:0 tests a kernel's null-pointer handling)
  if (pointer && !buffer_kind && kind != "u64")
    throw UsageError(where + ": kernel argument" + arg + " is a pointer (" + type + "): give in:, out:, io: or u64:");
  if (!pointer && buffer_kind)
    throw UsageError(where + ": kernel argument" + arg + " is a " + (type.empty() ? "scalar" : type) +
                     " value, not a buffer");
  if (pointer || type.empty()) return;
  // the size is checked against the metadata where the value is placed
  bool float_kind = kind == "f16" || kind == "f32" || kind == "f64";
  switch (scalar_class(type)) {
    case ScalarClass::Integer:
      if (float_kind)
        throw UsageError(where + ": kernel argument" + arg + " is " + type +
                         ", an integer: give i32:/u32:/i64:/u64:");
      break;
    case ScalarClass::Floating:
      if (!float_kind)
        throw UsageError(where + ": kernel argument" + arg + " is " + type + ": give " +
                         (m.size == 8 ? "f64:" : m.size == 2 ? "f16:" : "f32:"));
      break;
    case ScalarClass::Unknown:
      break;
  }
}

int run(int argc, char** argv) {
  std::vector<std::string> pos;
  bool profile = false, json = false, have_grid = false, have_global = false, have_wg = false;
  Dim3 grid, wg;
  DispatchOptions opt;
  try {
    apply_environment(opt);  // K100_EMU_CHECK, _SCHEDULE, _BUDGET, _NOTICE; the options below win
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  std::optional<ScheduleOptions> schedule;
  bool no_check = false;
  TraceOptions trace;
  trace.out = &std::cout;
  uint32_t dynamic_lds = 0;
  using tools::OptionTable;
  // One row per option: add new ones here (the help and suggestions follow).
  OptionTable table("k100-run", "runs one kernel of a code object on the emulator, with buffers from and to files",
                    {"k100-run OBJ KERNEL (--grid GX[,GY[,GZ]] | --global NX[,NY[,NZ]]) --wg WX[,WY[,WZ]] "
                     "[options] ARG..."});
  auto dims = [](const char* what, Dim3& d, bool& have) {
    return [what, &d, &have](const std::string& v) {
      try {
        d = parse_dims(v, what);
      } catch (const UsageError& e) {
        throw OptionTable::UsageProblem{strip_prefix(e.what())};
      }
      have = true;
    };
  };
  auto number = [](const char* what, auto& out) {
    return [what, &out](const std::string& v) {
      try {
        out = decltype(out + 0)(parse_uint(v, what));
      } catch (const UsageError& e) {
        throw OptionTable::UsageProblem{strip_prefix(e.what())};
      }
    };
  };
  uint64_t budget = opt.instruction_budget;
  table.value({"--grid"}, "GX[,GY[,GZ]]", "number of workgroups in each dimension", dims("--grid", grid, have_grid))
      .value({"--global"}, "NX[,NY[,NZ]]", "HSA grid size in work-items (the last workgroup may be partial)",
             dims("--global", grid, have_global))
      .value({"--wg"}, "WX[,WY[,WZ]]", "workgroup size in work-items (required)", dims("--wg", wg, have_wg))
      .value({"--budget"}, "N", "instruction budget of the dispatch in wave-instructions (default: K100_EMU_BUDGET or "
             "4 Gi); a kernel that runs longer is stopped with a fault",
             number("--budget", budget))
      .value({"--threads"}, "N", "host threads that run workgroups (default: all cores)", number("--threads", opt.threads))
      .value({"--dynamic-lds"}, "BYTES", "LDS bytes added to the kernel's static LDS", number("--dynamic-lds", dynamic_lds))
      .value({"--schedule"}, "random[:SEED]|in-order",
             "order of the waves of a workgroup between barriers (random: a seeded random interleaving)",
             [&](const std::string& v) {
               auto sched = parse_schedule(v);
               if (!sched) throw OptionTable::UsageProblem{"--schedule: '" + v + "' is not random, random:SEED or in-order"};
               schedule = *sched;
             })
      .flag({"--no-check"}, "turn off the checks for missing waits, hazards and LDS races", [&] { no_check = true; })
      .flag({"--profile"}, "print the profile counters after the run", [&] { profile = true; })
      .flag({"--json"}, "print the result (profile, fault) as one JSON object", [&] { json = true; })
      .optional_value({"--trace"}, "wg=N,wave=N,lanes=L",
                      "print each executed instruction and the registers it wrote (repeatable; default wg=0,wave=0,lanes=0)",
                      [&](const std::string& v) {
                        try {
                          trace.filters.push_back(parse_trace(v));
                        } catch (const UsageError& e) {
                          throw OptionTable::UsageProblem{strip_prefix(e.what())};
                        }
                      })
      .epilog("ARG: one per explicit kernel argument, in order:\n"
              "  in:FILE             a buffer holding FILE's bytes (read by the kernel)\n"
              "  out:NBYTES:FILE     a zeroed buffer of NBYTES, written to FILE after the run\n"
              "  io:FILE:OUTFILE     a buffer holding FILE's bytes, written to OUTFILE after the run\n"
              "  u32:V i32:V u64:V i64:V f16:V f32:V f64:V   a scalar of that type; its size must be the\n"
              "    argument's, and its kind must match a type name the metadata gives (f16:/f32:/f64: for\n"
              "    float, half, double; the integer kinds for integer types; any kind for a type name such\n"
              "    as a typedef that says neither; u64: also for a pointer, as a raw address)\n\n"
              "--grid counts workgroups (grid = groups x workgroup in each dimension); --global gives the\n"
              "grid in work-items, as the HSA dispatch packet does. Give exactly one of them.\n\n"
              "example:\n"
              "  k100-run vadd.hsaco vadd --grid 4 --wg 64 in:a.bin in:b.bin out:1024:c.bin u32:256\n\n"
              "exit status: 0 the kernel ran, 1 it faulted (report on standard error) or an input could not\n"
              "be read or used, 2 usage error\n");
  int rc = table.parse(argc, argv, [&](const std::string& a) { pos.push_back(a); });
  if (rc >= 0) return rc;
  opt.instruction_budget = budget;
  if (pos.size() < 2) return table.usage_error("missing OBJ or KERNEL");
  if (have_grid == have_global) throw UsageError("k100-run: give exactly one of --grid and --global");
  if (!have_wg) throw UsageError("k100-run: --wg is required");
  if (have_grid) {
    // the dispatch's grid is groups x workgroup in work-items: 32 bits per dimension
    const uint32_t g[3] = {grid.x, grid.y, grid.z}, w[3] = {wg.x, wg.y, wg.z};
    for (int i = 0; i < 3; ++i)
      if (uint64_t(g[i]) * w[i] > 0xffffffffull)
        throw UsageError("k100-run: --grid " + std::to_string(g[i]) + " x --wg " + std::to_string(w[i]) + " in " +
                         "xyz"[i] + " is " + std::to_string(uint64_t(g[i]) * w[i]) +
                         " work-items, over the dispatch's 2^32-1");
  }
  if (uint64_t(wg.x) * wg.y * wg.z > 1024)
    throw UsageError("k100-run: --wg " + std::to_string(wg.x) + "," + std::to_string(wg.y) + "," +
                     std::to_string(wg.z) + " is over 1024 work-items per workgroup");

  Device dev;
  auto prog = dev.load_code_object_file(pos[0]);
  const KernelSpec* k = prog->find_kernel(pos[1]);
  if (!k) {
    std::string names;
    std::vector<std::string> all;
    for (const KernelSpec& x : prog->image().kernels) {
      names += " " + x.name;
      all.push_back(x.name);
    }
    std::string near = closest_match(pos[1], all);
    throw UsageError("k100-run: " + pos[0] + " has no kernel '" + pos[1] + "'" +
                     (near.empty() ? "" : "; did you mean '" + near + "'?") + " (kernels:" + names + ")");
  }
  // The metadata's argument records, for the kinds of the command-line values.
  std::vector<codeobj::ArgMeta> meta_args;
  try {
    codeobj::CodeObject co = codeobj::read_code_object_file(pos[0]);
    for (const auto& ck : co.kernels)
      if (ck.name == k->name && ck.meta)
        for (const auto& a : ck.meta->args)
          if (!codeobj::is_hidden(a.value_kind)) meta_args.push_back(a);
  } catch (const Error&) {
    // the emulator loaded it: a reader problem only costs the kind checks
  }
  LaunchConfig launch = have_grid ? LaunchConfig::groups(grid, wg) : LaunchConfig{};
  if (!have_grid) {
    launch.grid = grid;
    launch.workgroup = wg;
  }
  launch.dynamic_lds = dynamic_lds;

  // Arguments: by metadata when present, else packed in order with natural alignment.
  auto explicit_args = k->explicit_args();
  std::vector<std::string> args(pos.begin() + 2, pos.end());
  bool by_meta = !explicit_args.empty();
  if (by_meta && args.size() != explicit_args.size())
    throw UsageError("k100-run: kernel '" + k->name + "' takes " + std::to_string(explicit_args.size()) +
                     " arguments, " + std::to_string(args.size()) + " given");
  std::vector<uint8_t> kernarg(std::max(k->kernarg_size, k->explicit_size()), 0);
  std::vector<OutBuffer> outs;
  std::vector<uint64_t> owned;
  size_t cursor = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    std::string where = "k100-run: argument " + std::to_string(i) + " ('" + a + "')";
    size_t colon = a.find(':');
    if (colon == std::string::npos) throw UsageError(where + ": expected KIND:VALUE");
    std::string kind = a.substr(0, colon), rest = a.substr(colon + 1);
    if (i < meta_args.size()) check_kind(kind, meta_args[i], where);
    std::vector<uint8_t> value;
    auto scalar = [&](uint64_t v, size_t n) {
      for (size_t b = 0; b < n; ++b) value.push_back(uint8_t(v >> (8 * b)));
    };
    if (kind == "in" || kind == "out" || kind == "io") {
      std::vector<uint8_t> init;
      std::string out_path;
      uint64_t size;
      if (kind == "in") {
        init = read_all(rest);
        size = init.size();
      } else if (kind == "out") {
        size_t c2 = rest.find(':');
        if (c2 == std::string::npos) throw UsageError(where + ": expected out:NBYTES:FILE");
        size = parse_uint(rest.substr(0, c2), where);
        out_path = rest.substr(c2 + 1);
      } else {
        size_t c2 = rest.find(':');
        if (c2 == std::string::npos) throw UsageError(where + ": expected io:FILE:OUTFILE");
        init = read_all(rest.substr(0, c2));
        size = init.size();
        out_path = rest.substr(c2 + 1);
      }
      uint64_t addr = dev.alloc(size ? size : 1, kind + " argument " + std::to_string(i) + " (" + rest + ")");
      owned.push_back(addr);
      if (!init.empty()) dev.write(addr, init);
      if (!out_path.empty()) outs.push_back({addr, size, out_path});
      scalar(addr, 8);
    } else if (kind == "u32") {
      scalar(parse_uint(rest, where), 4);
    } else if (kind == "i32") {
      scalar(uint64_t(parse_int(rest, where)), 4);
    } else if (kind == "u64") {
      scalar(parse_uint(rest, where), 8);
    } else if (kind == "i64") {
      scalar(uint64_t(parse_int(rest, where)), 8);
    } else if (kind == "f16" || kind == "f32" || kind == "f64") {
      double x;
      try {
        size_t used = 0;
        x = std::stod(rest, &used);
        if (used != rest.size()) throw 0;
      } catch (...) {
        throw UsageError(where + ": '" + rest + "' is not a number");
      }
      if (kind == "f64") {
        uint64_t bits;
        std::memcpy(&bits, &x, 8);
        scalar(bits, 8);
      } else if (kind == "f32") {
        float f = float(x);
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        scalar(bits, 4);
      } else {
        scalar(f16_bits(float(x)), 2);
      }
    } else {
      throw UsageError(where + ": unknown kind '" + kind + "' (in, out, io, u32, i32, u64, i64, f16, f32, f64)");
    }
    size_t offset;
    if (by_meta) {
      const KernelArg& m = *explicit_args[i];
      if (m.size != value.size())
        throw UsageError(where + ": kernel argument " + std::to_string(i) + (m.name.empty() ? "" : " '" + m.name + "'") +
                         " is " + std::to_string(m.size) + " bytes, this value is " + std::to_string(value.size()));
      offset = m.offset;
    } else {
      offset = (cursor + value.size() - 1) / value.size() * value.size();
      cursor = offset + value.size();
    }
    if (offset + value.size() > kernarg.size()) kernarg.resize(offset + value.size(), 0);
    std::copy(value.begin(), value.end(), kernarg.begin() + std::ptrdiff_t(offset));
  }

  if (!trace.filters.empty()) opt.trace = &trace;
  if (schedule) opt.schedule = *schedule;
  if (no_check) opt.checks = CheckOptions::none();
  opt.detailed_profile = profile;
  DispatchResult r = dev.dispatch(*prog, k->name, launch, kernarg, opt);
  if (r.ok())
    for (const OutBuffer& o : outs) {
      std::vector<uint8_t> b(o.size);
      dev.read(o.address, b);
      write_all(o.path, b);
    }
  if (json) {
    std::cout << "{\"kernel\":" << json_str(k->name) << ",\"ok\":" << (r.ok() ? "true" : "false")
              << ",\"seconds\":" << r.seconds << ",\"profile\":" << r.profile.format_json();
    if (r.fault) std::cout << ",\"fault\":" << fault_json(*r.fault);
    std::cout << "}\n";
  } else if (profile) {
    std::cout << "kernel " << k->name << ": " << r.seconds << " s\n" << r.profile.format_text();
  }
  if (r.fault) {
    std::cerr << r.fault->report();
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "k100-run: " << strip_prefix(e.what()) << "\n";
    return 2;
  } catch (const std::exception& e) {  // an input that cannot be read or used
    std::cerr << "k100-run: error: " << strip_prefix(e.what()) << "\n";
    return 1;
  }
}
