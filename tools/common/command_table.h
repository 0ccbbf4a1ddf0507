// The command table of a k100 tool made of subcommands (k100-bench,
// k100-gguf): `TOOL COMMAND [ARGS]`.
//
// The first argument is a command name, --help (standard output, exit 0:
// the one line saying what the tool is for, the commands and their
// summaries), or --version. A mistyped command is a usage error (exit 2)
// with the closest command name as a suggestion. Each command reads its own
// arguments; unknown_option() words its unknown-option errors the same way.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "k100/base/closest_match.h"

#ifndef K100_VERSION
#define K100_VERSION "unknown"
#endif

namespace k100::tools {

struct Command {
  std::string name, summary;
};

class CommandTable {
 public:
  // purpose: the one line saying what the tool is for; epilog: text after the
  // command list (how to get a command's options, exit codes).
  CommandTable(std::string tool, std::string purpose, std::vector<Command> commands, std::string epilog)
      : tool_(std::move(tool)), purpose_(std::move(purpose)), commands_(std::move(commands)),
        epilog_(std::move(epilog)) {}

  // Resolves argv[1]. Returns the index of the command to run, or -1 with
  // `status` set to the exit status to leave with (0 after --help/--version,
  // 2 after a usage error, which it has reported on standard error).
  int dispatch(int argc, char** argv, int& status) const {
    if (argc < 2) {
      std::fprintf(stderr, "%s: no command given\n%s: see '%s --help'\n", tool_.c_str(), tool_.c_str(),
                   tool_.c_str());
      status = 2;
      return -1;
    }
    std::string a = argv[1];
    if (a == "--help" || a == "-help" || a == "-h") {
      print_help();
      status = 0;
      return -1;
    }
    if (a == "--version" || a == "-version") {
      std::printf("%s (k100lc) %s\n", tool_.c_str(), K100_VERSION);
      status = 0;
      return -1;
    }
    std::vector<std::string> names = {"--help", "--version"};
    for (size_t i = 0; i < commands_.size(); ++i) {
      if (commands_[i].name == a) return int(i);
      names.push_back(commands_[i].name);
    }
    std::string near = closest_match(a, names);
    std::string what = a.rfind("-", 0) == 0 ? "unknown option '" : "unknown command '";
    std::fprintf(stderr, "%s: %s%s'%s\n%s: see '%s --help'\n", tool_.c_str(), what.c_str(), a.c_str(),
                 near.empty() ? "" : ("; did you mean '" + near + "'?").c_str(), tool_.c_str(), tool_.c_str());
    status = 2;
    return -1;
  }

  void print_help() const {
    std::string out = tool_ + ": " + purpose_ + "\n\nusage: " + tool_ + " COMMAND [ARGS]\n\ncommands:\n";
    for (const Command& c : commands_) {
      std::string l = "  " + c.name;
      l += l.size() < 14 ? std::string(14 - l.size(), ' ') : "  ";
      out += l + c.summary + "\n";
    }
    out += "\noptions:\n  --help        print this help and exit\n  --version     print the version and exit\n";
    if (!epilog_.empty()) out += "\n" + epilog_;
    std::fputs(out.c_str(), stdout);
  }

 private:
  std::string tool_, purpose_;
  std::vector<Command> commands_;
  std::string epilog_;
};

// "unknown option 'ARG'", with the closest of `known` as a suggestion.
inline std::string unknown_option(const std::string& arg, const std::vector<std::string>& known) {
  std::string name = arg.substr(0, arg.find('='));
  std::string near = closest_match(name, known);
  return "unknown option '" + arg + "'" + (near.empty() ? "" : "; did you mean '" + near + "'?");
}

}  // namespace k100::tools
