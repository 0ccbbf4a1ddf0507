#include "tools.h"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

namespace k100::test {

std::string find_tool(const std::string& name) {
  std::vector<std::string> dirs;
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    std::string d;
    while (std::getline(ss, d, ':'))
      if (!d.empty()) dirs.push_back(d);
  }
  for (const std::string& d : dirs) {
    std::string p = d + "/" + name;
    if (access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

bool oracle_required() {
  const char* ci = std::getenv("CI");
  return ci && std::string(ci) == "true";
}

int run_shell(const std::string& cmd, std::string* output) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return -1;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) output->append(buf.data(), n);
  int rc = pclose(p);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

}  // namespace k100::test
