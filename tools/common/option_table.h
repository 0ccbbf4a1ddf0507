// The command-line option table every k100 tool reads its arguments with.
//
// One table per tool: each option is declared once with its spellings, its
// value's name and its help line, and the same table drives parsing, --help
// and the suggestion for a mistyped option. The spellings follow llvm's
// tools: `--name=V`, `-name=V`, `--name V` and `-name V` are one option, and
// a one-letter option also takes its value attached (`-oFILE`, `-Idir`).
// --help (standard output, exit 0) and --version are added to every table.
#pragma once

#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "k100/base/closest_match.h"

#ifndef K100_VERSION
#define K100_VERSION "unknown"
#endif

namespace k100::tools {

class OptionTable {
 public:
  // purpose: the one line saying what the tool is for; usage: its synopsis lines.
  OptionTable(std::string tool, std::string purpose, std::vector<std::string> usage)
      : tool_(std::move(tool)), purpose_(std::move(purpose)), usage_(std::move(usage)) {}

  // An option that takes a value (value_name shown in the help, e.g. "FILE").
  OptionTable& value(std::vector<std::string> names, std::string value_name, std::string help,
                     std::function<void(const std::string&)> set) {
    options_.push_back({std::move(names), std::move(value_name), std::move(help), std::move(set), {}, false});
    return *this;
  }
  // An option whose value is optional (`--trace` or `--trace=SPEC`; never the next argument).
  OptionTable& optional_value(std::vector<std::string> names, std::string value_name, std::string help,
                              std::function<void(const std::string&)> set) {
    options_.push_back({std::move(names), std::move(value_name), std::move(help), std::move(set), {}, true});
    return *this;
  }
  // An option without a value.
  OptionTable& flag(std::vector<std::string> names, std::string help, std::function<void()> set) {
    options_.push_back({std::move(names), "", std::move(help), {}, std::move(set), false});
    return *this;
  }
  // Text after the option list: argument forms, examples, exit codes.
  OptionTable& epilog(std::string text) {
    epilog_ += text;
    return *this;
  }

  // Parses argv; arguments that are not options go to `positional` ("-"
  // alone is positional, and so is everything after "--"). Returns -1 to go
  // on, or the exit status to leave with (0 after --help/--version, 2 after a
  // usage error, which it has reported on standard error).
  int parse(int argc, char** argv, const std::function<void(const std::string&)>& positional) const {
    bool only_positional = false;
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      if (only_positional || a == "-" || a.empty() || a[0] != '-') {
        positional(a);
        continue;
      }
      if (a == "--") {
        only_positional = true;
        continue;
      }
      if (a == "--help" || a == "-help") {
        print_help();
        return 0;
      }
      if (a == "--version" || a == "-version") {
        std::printf("%s (k100lc) %s\n", tool_.c_str(), K100_VERSION);
        return 0;
      }
      std::string name = a, val;
      bool has_val = false;
      if (size_t eq = a.find('='); eq != std::string::npos) {
        name = a.substr(0, eq);
        val = a.substr(eq + 1);
        has_val = true;
      }
      const Option* o = find(name);
      if (!o && !has_val && a.size() > 2 && a[1] != '-') {
        // -oFILE, -Idir: a one-letter option with its value attached
        if (const Option* s = find(a.substr(0, 2)); s && !s->value_name.empty() && !s->optional) {
          o = s;
          val = a.substr(2);
          has_val = true;
        }
      }
      if (!o) return unknown(a, name);
      try {
        if (o->value_name.empty()) {
          if (has_val) return usage_error("option '" + name + "' takes no value");
          o->set_flag();
        } else {
          if (!has_val && !o->optional) {
            if (i + 1 >= argc) return usage_error("option '" + name + "' needs a value (" + o->value_name + ")");
            val = argv[++i];
          }
          o->set(val);
        }
      } catch (const UsageProblem& p) {
        return usage_error(p.message);
      }
    }
    return -1;
  }

  // Thrown by a setter for a bad value: reported as a usage error.
  struct UsageProblem {
    std::string message;
  };

  int usage_error(const std::string& message) const {
    std::fprintf(stderr, "%s: %s\n%s: see '%s --help'\n", tool_.c_str(), message.c_str(), tool_.c_str(),
                 tool_.c_str());
    return 2;
  }

  void print_help() const {
    std::string out = tool_ + ": " + purpose_ + "\n\nusage:";
    for (const auto& u : usage_) out += (usage_.size() > 1 ? "\n  " : " ") + u;
    out += "\n\noptions:\n";
    auto line = [&](const std::string& left, const std::string& help) {
      std::string l = "  " + left;
      if (l.size() < 30) l += std::string(30 - l.size(), ' ');
      else l += "\n" + std::string(30, ' ');
      out += l + help + "\n";
    };
    for (const auto& o : options_) {
      std::string left;
      for (size_t k = 0; k < o.names.size(); ++k) {
        if (k) left += ", ";
        left += o.names[k];
      }
      if (!o.value_name.empty()) left += o.optional ? "[=" + o.value_name + "]" : " " + o.value_name;
      line(left, o.help);
    }
    line("--help", "print this help and exit");
    line("--version", "print the version and exit");
    if (!epilog_.empty()) out += "\n" + epilog_;
    std::fputs(out.c_str(), stdout);
  }

 private:
  struct Option {
    std::vector<std::string> names;
    std::string value_name, help;
    std::function<void(const std::string&)> set;
    std::function<void()> set_flag;
    bool optional;
  };

  // "--mcpu" also matches "-mcpu", and "-o" stays one-dash only.
  const Option* find(const std::string& name) const {
    for (const auto& o : options_)
      for (const auto& n : o.names) {
        if (n == name) return &o;
        if (n.size() > 3 && n.rfind("--", 0) == 0 && name == n.substr(1)) return &o;
      }
    return nullptr;
  }

  int unknown(const std::string& arg, const std::string& name) const {
    std::vector<std::string> all = {"--help", "--version"};
    for (const auto& o : options_) all.insert(all.end(), o.names.begin(), o.names.end());
    std::string near = closest_match(name, all);
    std::string msg = "unknown option '" + arg + "'";
    if (!near.empty()) msg += "; did you mean '" + near + "'?";
    return usage_error(msg);
  }

  std::string tool_, purpose_;
  std::vector<std::string> usage_;
  std::vector<Option> options_;
  std::string epilog_;
};

}  // namespace k100::tools
