#include "k100/codeobj/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "k100/base/error.h"

namespace k100::codeobj {
namespace {

// Is `st` the file standard input is (a pipe given as /dev/stdin)?
bool is_standard_input(const struct stat& st) {
  struct stat in {};
  return fstat(0, &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino;
}

}  // namespace

std::vector<uint8_t> read_input_file(const std::string& path, const std::string& what) {
  auto fail = [&](const std::string& why) { throw Error(what + " '" + path + "': " + why); };
  if (path.empty()) fail("the path is empty");
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) fail("is a directory");
  if ((S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) && !is_standard_input(st))
    fail(std::string("is a ") + (S_ISFIFO(st.st_mode) ? "FIFO (named pipe)" : "socket") +
         ", not a regular file ('-' reads standard input)");
  if (S_ISBLK(st.st_mode)) fail("is a block device, not a regular file");
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) fail(std::strerror(errno));
  std::vector<uint8_t> bytes;
  if (S_ISREG(st.st_mode)) bytes.reserve(size_t(st.st_size));
  uint8_t buf[65536];
  for (;;) {
    size_t n = std::fread(buf, 1, sizeof buf, f.get());
    bytes.insert(bytes.end(), buf, buf + n);
    if (n < sizeof buf) break;
  }
  if (std::ferror(f.get())) fail(std::string("read error: ") + std::strerror(errno));
  return bytes;
}

}  // namespace k100::codeobj
