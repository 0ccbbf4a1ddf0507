// k100-rt4: RT4 weight files from compressed-tensors checkpoints.
//
//   k100-rt4 convert DIR|model.safetensors|model.safetensors.index.json -o model.rt4
//   k100-rt4 info model.rt4 | DIR | model.safetensors [--all]
//   k100-rt4 help [COMMAND] | --help | --version
//
// Exit status: 0 success, 1 a file that cannot be read or converted (the
// message names the file and the tensor), 2 usage.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "command_table.h"
#include "k100/base/error.h"
#include "k100/quant/compressed_tensors.h"
#include "k100/quant/nvfp4.h"
#include "k100/quant/rt4.h"
#include "k100/quant/safetensors_checkpoint.h"

namespace {

using namespace k100;
using namespace k100::quant;

struct UsageError {
  std::string message;
};

const char* const kConvertUsage =
    "usage: k100-rt4 convert DIR|model.safetensors|model.safetensors.index.json -o model.rt4\n"
    "  Writes every INT4 layer of a compressed-tensors pack-quantized checkpoint\n"
    "  (<prefix>.weight_packed/_scale/_shape) to model.rt4 and its manifest\n"
    "  model.rt4.json: nibbles turned from offset-binary into two's complement,\n"
    "  BF16 scales rounded to f16 (FORMATS.md 3.4). The tensors are named\n"
    "  <prefix>.weight, kind i4, group 128.\n";

const char* const kInfoUsage =
    "usage: k100-rt4 info model.rt4 | DIR | model.safetensors [--all]\n"
    "  An .rt4 file: its manifest (format, group) and every tensor (kind, shape\n"
    "  [N, K], group, q and scale offsets, bytes). A safetensors checkpoint: its\n"
    "  files, bytes per dtype, and its INT4 and NVFP4 layers with their [N, K].\n"
    "  Lists are shortened to 20 rows unless --all.\n";

std::string human_bytes(uint64_t n) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(n);
  int u = 0;
  while (v >= 1024.0 && u < 4) v /= 1024.0, ++u;
  char buf[32];
  std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

int convert_command(const std::vector<std::string>& args) {
  std::string in, out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" || args[i] == "--output") {
      if (i + 1 >= args.size()) throw UsageError{args[i] + " needs a file name"};
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      throw UsageError{tools::unknown_option(args[i], {"-o", "--output", "--help"})};
    } else if (in.empty()) {
      in = args[i];
    } else {
      throw UsageError{"more than one input ('" + in + "', '" + args[i] + "')"};
    }
  }
  if (in.empty() || out.empty()) throw UsageError{"give an input and -o model.rt4"};
  if (out.size() < 4 || out.compare(out.size() - 4, 4, ".rt4") != 0)
    throw UsageError{"the output '" + out + "' must end in .rt4"};
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(in);
  const Rt4Conversion r = convert_compressed_tensors_to_rt4(c, out, [](int64_t done, int64_t total) {
    if (done == total || done % 50 == 0) std::fprintf(stderr, "converted %lld of %lld layers\n", (long long)done, (long long)total);
  });
  std::printf("wrote %s (%lld INT4 layers, %s) and %s.json\n", out.c_str(), (long long)r.layers,
              human_bytes(r.bytes).c_str(), out.c_str());
  return 0;
}

void rt4_info(const std::string& path, bool all) {
  const Rt4File f = Rt4File::open(path);
  std::printf("%s: RT4-v1, manifest %s, default group %lld, %s\n", path.c_str(), f.manifest_path().c_str(),
              (long long)f.group(), human_bytes(f.file_size()).c_str());
  std::printf("%zu tensors:\n  %-56s %-5s %-16s %5s %12s %12s %10s\n", f.tensors().size(), "name", "kind", "shape",
              "group", "q_off", "s_off", "bytes");
  std::map<std::string, std::pair<int, uint64_t>> kinds;
  size_t shown = 0;
  for (const Rt4Tensor& t : f.tensors()) {
    auto& k = kinds[t.kind];
    ++k.first;
    k.second += t.kind == "i4" ? t.q_bytes() + t.s_bytes() : t.nbytes;
    if (!all && shown >= 20) continue;
    ++shown;
    const std::string shape = "[" + std::to_string(t.n) + ", " + std::to_string(t.k) + "]";
    std::printf("  %-56s %-5s %-16s %5lld %12llu %12llu %10s\n", t.name.c_str(), t.kind.c_str(), shape.c_str(),
                (long long)t.group, (unsigned long long)t.q_off, (unsigned long long)t.s_off,
                human_bytes(t.kind == "i4" ? t.q_bytes() + t.s_bytes() : t.nbytes).c_str());
  }
  if (shown < f.tensors().size()) std::printf("  ... %zu more (--all lists them)\n", f.tensors().size() - shown);
  for (const auto& [kind, v] : kinds) std::printf("kind %s: %d tensors, %s\n", kind.c_str(), v.first, human_bytes(v.second).c_str());
}

void checkpoint_info(const std::string& path, bool all) {
  const SafetensorsCheckpoint c = SafetensorsCheckpoint::open(path);
  std::printf("%s: %zu file%s, %zu tensors, %s\n", c.origin().c_str(), c.files().size(), c.files().size() == 1 ? "" : "s",
              c.tensors().size(), human_bytes(c.total_bytes()).c_str());
  std::map<std::string, std::pair<int, uint64_t>> dtypes;
  for (const auto& e : c.tensors()) {
    auto& d = dtypes[dtype_info(e.tensor->dtype).name];
    ++d.first;
    d.second += e.tensor->size();
  }
  for (const auto& [d, v] : dtypes) std::printf("  %-8s %6d tensors %12s\n", d.c_str(), v.first, human_bytes(v.second).c_str());
  const std::vector<std::string> layers = packed_layer_prefixes(c);
  size_t shown = 0;
  int int4 = 0, fp4 = 0;
  for (const std::string& p : layers) {
    const bool is_fp4 = c.at(p + ".weight_packed").tensor->dtype == SafetensorsDtype::U8;
    int64_t n, k;
    if (is_fp4) {
      const Nvfp4Layer L = find_nvfp4_layer(c, p);
      n = L.n, k = L.k;
      ++fp4;
    } else {
      const Int4Layer L = find_int4_layer(c, p);
      n = L.n, k = L.k;
      ++int4;
    }
    if (!all && shown >= 20) continue;
    ++shown;
    std::printf("  %-6s %-60s [%lld, %lld]\n", is_fp4 ? "nvfp4" : "int4", p.c_str(), (long long)n, (long long)k);
  }
  if (shown < layers.size()) std::printf("  ... %zu more (--all lists them)\n", layers.size() - shown);
  std::printf("quantised layers: %d INT4 (group 128), %d NVFP4\n", int4, fp4);
}

int info_command(const std::vector<std::string>& args) {
  std::string path;
  bool all = false;
  for (const std::string& a : args) {
    if (a == "--all") all = true;
    else if (!a.empty() && a[0] == '-') throw UsageError{tools::unknown_option(a, {"--all", "--help"})};
    else if (path.empty()) path = a;
    else throw UsageError{"more than one file ('" + path + "', '" + a + "')"};
  }
  if (path.empty()) throw UsageError{"give a file or directory"};
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".rt4") == 0) rt4_info(path, all);
  else checkpoint_info(path, all);
  return 0;
}

struct Entry {
  const char* usage;
  int (*run)(const std::vector<std::string>&);
};
const Entry kEntries[] = {{kConvertUsage, convert_command}, {kInfoUsage, info_command}};
constexpr int kHelp = 2;

const tools::CommandTable kCommands(
    "k100-rt4", "converts compressed-tensors INT4 checkpoints to RT4 weight files and inspects both",
    {{"convert", "write the INT4 layers of a checkpoint as model.rt4 + model.rt4.json"},
     {"info", "list an .rt4 file's tensors, or a checkpoint's quantised layers"},
     {"help", "'help COMMAND' shows a command's arguments"}},
    "exit status: 0 success, 1 a file that cannot be read or converted (the message names the file\n"
    "and the tensor), 2 a usage error.\n");

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  int index = kCommands.dispatch(argc, argv, status);
  if (index < 0) return status;
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (index == kHelp) {
    if (rest.empty()) {
      kCommands.print_help();
      return 0;
    }
    char* sub[] = {argv[0], rest[0].data()};
    index = kCommands.dispatch(2, sub, status);
    if (index < 0) return status;
    if (index == kHelp) kCommands.print_help();
    else std::fputs(kEntries[index].usage, stdout);
    return 0;
  }
  const Entry& c = kEntries[index];
  for (const std::string& a : rest)
    if (a == "-h" || a == "--help") {
      std::fputs(c.usage, stdout);
      return 0;
    }
  try {
    return c.run(rest);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "k100-rt4 %s: %s\n%s", argv[1], e.message.c_str(), c.usage);
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "k100-rt4 %s: %s\n", argv[1], e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "k100-rt4 %s: out of memory\n", argv[1]);
    return 1;
  }
}
