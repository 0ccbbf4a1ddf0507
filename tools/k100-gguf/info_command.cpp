// k100-gguf info: everything the header says, in reading order.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>

#include "command_table.h"
#include "commands.h"
#include "k100/quant/gguf_reader.h"

namespace k100::gguf_tool {

const char* const kInfoUsage =
    "usage: k100-gguf info FILE [--all]\n"
    "  Prints the GGUF header, every metadata entry (arrays shortened to 8\n"
    "  items unless --all), every tensor (type, shape in GGUF order: elements\n"
    "  per row first, elements, bytes, file offset) and totals per type.\n";

namespace {

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

}  // namespace

int info_command(const std::vector<std::string>& args) {
  std::string path;
  bool all = false;
  for (const std::string& a : args) {
    if (a == "--all") all = true;
    else if (!a.empty() && a[0] == '-') throw UsageError{k100::tools::unknown_option(a, {"--all", "--help"})};
    else if (path.empty()) path = a;
    else throw UsageError{"more than one FILE ('" + path + "', '" + a + "')"};
  }
  if (path.empty()) throw UsageError{"FILE is missing"};
  const quant::GgufFile f = quant::GgufFile::open(path);

  std::printf("%s: GGUF version %u, alignment %u, data section at byte %llu, %llu bytes (%s)\n", path.c_str(),
              f.version(), f.alignment(), (unsigned long long)f.data_offset(), (unsigned long long)f.file_size(),
              human_bytes(f.file_size()).c_str());

  std::printf("\nmetadata: %zu entries\n", f.metadata().size());
  const size_t max_items = all ? std::numeric_limits<size_t>::max() : 8;
  for (const quant::KeyValue& kv : f.metadata()) {
    const std::string type = kv.value.is_array() ? "array" : quant::value_type_name(kv.value.type());
    std::printf("  %-40s %-6s %s\n", kv.key.c_str(), type.c_str(), kv.value.to_string(max_items).c_str());
  }

  std::printf("\ntensors: %zu\n", f.tensors().size());
  size_t name_width = 4;
  for (const quant::TensorInfo& t : f.tensors()) name_width = std::max(name_width, t.name.size());
  name_width = std::min<size_t>(name_width, 64);
  std::printf("  %-*s  %-8s %-24s %14s %14s %14s\n", int(name_width), "name", "type", "shape", "elements", "bytes",
              "file offset");
  struct Total {
    uint64_t tensors = 0, elements = 0, bytes = 0;
  };
  std::map<std::string, Total> totals;
  Total all_types;
  for (const quant::TensorInfo& t : f.tensors()) {
    const std::string type = quant::type_name(t.type);
    std::printf("  %-*s  %-8s %-24s %14llu %14llu %14llu\n", int(name_width), t.name.c_str(), type.c_str(),
                quant::format_dims(t.dims).c_str(), (unsigned long long)t.elements, (unsigned long long)t.size,
                (unsigned long long)t.file_offset);
    for (Total* tot : {&totals[type], &all_types}) ++tot->tensors, tot->elements += t.elements, tot->bytes += t.size;
  }

  std::printf("\ntotals by type:\n");
  auto line = [](const std::string& type, const Total& t) {
    const double bpw = t.elements ? 8.0 * double(t.bytes) / double(t.elements) : 0.0;
    std::printf("  %-8s %6llu tensors %16llu elements %16llu bytes (%s) %7.4f bits/weight\n", type.c_str(),
                (unsigned long long)t.tensors, (unsigned long long)t.elements, (unsigned long long)t.bytes,
                human_bytes(t.bytes).c_str(), bpw);
  };
  for (const auto& [type, t] : totals) line(type, t);
  line("all", all_types);
  return 0;
}

}  // namespace k100::gguf_tool
