// The subcommands of k100-gguf. Each takes its own arguments (after the
// subcommand name), prints to stdout, and returns the exit status; a
// k100::Error it throws is reported by main. Adding a subcommand is one
// entry in main.cpp's table.
#pragma once

#include <string>
#include <vector>

namespace k100::gguf_tool {

// Thrown for bad command lines: main prints the message and the usage, exit 2.
struct UsageError {
  std::string message;
};

int info_command(const std::vector<std::string>& args);
int dequant_command(const std::vector<std::string>& args);
int check_command(const std::vector<std::string>& args);

extern const char* const kInfoUsage;
extern const char* const kDequantUsage;
extern const char* const kCheckUsage;

}  // namespace k100::gguf_tool
