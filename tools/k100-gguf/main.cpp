// k100-gguf: inspect and decode GGUF model files.
//
//   k100-gguf info FILE [--all]                       header, metadata, tensors, totals
//   k100-gguf dequant FILE TENSOR -o OUT.npy [--host] one tensor decoded to float32 (device, or host codecs)
//   k100-gguf check FILE                              every tensor decoded on the device and the host, compared
//   k100-gguf help [COMMAND] | --help | --version
//
// Exit status: 0 success, 1 a file that cannot be read or decoded (the
// message names the file, key or tensor and the byte offset), 2 usage.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "command_table.h"
#include "commands.h"
#include "k100/base/error.h"

namespace {

using namespace k100::gguf_tool;

struct Entry {
  const char* usage;
  int (*run)(const std::vector<std::string>&);
};

const Entry kEntries[] = {{kInfoUsage, info_command}, {kDequantUsage, dequant_command}, {kCheckUsage, check_command}};
constexpr int kHelp = 3;  // the index of "help" in kCommands

const k100::tools::CommandTable kCommands(
    "k100-gguf", "inspects GGUF model files and decodes their tensors",
    {{"info", "header, metadata, tensor list (type, shape, bytes, offset) and totals"},
     {"dequant", "decode one tensor to a float32 .npy file (on the device, or --host)"},
     {"check", "decode every tensor on the device and on the host and compare them"},
     {"help", "'help COMMAND' shows a command's arguments"}},
    "'k100-gguf COMMAND --help' or 'k100-gguf help COMMAND' shows a command's arguments.\n"
    "exit status: 0 success, 1 a file that cannot be read or decoded (the message names the file,\n"
    "key or tensor and the byte offset) or a check that failed, 2 a usage error.\n");

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  int index = kCommands.dispatch(argc, argv, status);
  if (index < 0) return status;
  std::vector<std::string> rest(argv + 2, argv + argc);
  if (index == kHelp) {  // help [COMMAND]
    if (rest.empty()) {
      kCommands.print_help();
      return 0;
    }
    char* sub[] = {argv[0], rest[0].data()};
    index = kCommands.dispatch(2, sub, status);
    if (index < 0 || index == kHelp) {
      if (index == kHelp) kCommands.print_help();
      return index == kHelp ? 0 : status;
    }
    std::fputs(kEntries[index].usage, stdout);
    return 0;
  }
  const Entry& c = kEntries[index];
  const char* name = argv[1];
  for (const std::string& a : rest)
    if (a == "-h" || a == "--help") {
      std::fputs(c.usage, stdout);
      return 0;
    }
  try {
    return c.run(rest);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "k100-gguf %s: %s\n%s", name, e.message.c_str(), c.usage);
    return 2;
  } catch (const k100::Error& e) {
    std::fprintf(stderr, "k100-gguf %s: %s\n", name, e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "k100-gguf %s: out of memory\n", name);
    return 1;
  }
}
