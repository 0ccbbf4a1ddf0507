// Shared by the tests of every module: temporary directories and reading and
// writing whole files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace k100::test {

// A fresh directory under the system's temporary directory, removed with
// everything in it on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// The bytes of a file; read_bytes throws std::runtime_error when it cannot be
// read, read_file returns nullopt.
std::vector<uint8_t> read_bytes(const std::string& path);
std::optional<std::vector<uint8_t>> read_file(const std::string& path);
std::string read_text(const std::string& path);  // "" when it cannot be read
// Throw std::runtime_error when the file cannot be written.
void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes);
void write_text(const std::string& path, const std::string& text);

}  // namespace k100::test
