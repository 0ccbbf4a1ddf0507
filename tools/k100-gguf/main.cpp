// k100-gguf: inspect and decode GGUF model files.
//
//   k100-gguf info FILE [--all]                       header, metadata, tensors, totals
//   k100-gguf dequant FILE TENSOR -o OUT.npy [--host] one tensor decoded to float32 (device, or host codecs)
//   k100-gguf check FILE                              every tensor decoded on the device and the host, compared
//   k100-gguf help [COMMAND] | --help
//
// Exit status: 0 success, 1 a file that cannot be read or decoded (the
// message names the file, key or tensor and the byte offset), 2 usage.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "commands.h"
#include "k100/base/error.h"

namespace {

using namespace k100::gguf_tool;

struct Command {
  const char* name;
  const char* summary;
  const char* usage;
  int (*run)(const std::vector<std::string>&);
};

const Command kCommands[] = {
    {"info", "header, metadata, tensor list (type, shape, bytes, offset) and totals", kInfoUsage, info_command},
    {"dequant", "decode one tensor to a float32 .npy file (on the device, or --host)", kDequantUsage, dequant_command},
    {"check", "decode every tensor on the device and on the host and compare them", kCheckUsage, check_command},
};

void usage(std::FILE* out) {
  std::fprintf(out, "usage: k100-gguf COMMAND [ARGS]\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-9s %s\n", c.name, c.summary);
  std::fprintf(out, "\n'k100-gguf help COMMAND' shows a command's arguments.\n");
}

const Command* find(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    usage(stderr);
    return 2;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    if (args.size() > 1) {
      if (const Command* c = find(args[1])) {
        std::fputs(c->usage, stdout);
        return 0;
      }
      std::fprintf(stderr, "k100-gguf: unknown command '%s'\n", args[1].c_str());
      return 2;
    }
    usage(stdout);
    return 0;
  }
  const Command* c = find(args[0]);
  if (!c) {
    std::fprintf(stderr, "k100-gguf: unknown command '%s'\n", args[0].c_str());
    usage(stderr);
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  for (const std::string& a : rest)
    if (a == "-h" || a == "--help") {
      std::fputs(c->usage, stdout);
      return 0;
    }
  try {
    return c->run(rest);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "k100-gguf %s: %s\n%s", c->name, e.message.c_str(), c->usage);
    return 2;
  } catch (const k100::Error& e) {
    std::fprintf(stderr, "k100-gguf %s: %s\n", c->name, e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "k100-gguf %s: out of memory\n", c->name);
    return 1;
  }
}
