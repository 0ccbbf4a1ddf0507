// k100lc codeobj: the bytes of an input file named by a user (a code object,
// an assembly source, a buffer file of k100-run).
//
// Every loader and tool reads its inputs through read_input_file, so that a
// path that is not a readable regular file is one error naming it and saying
// what it is: a directory, a FIFO or socket (reading one would wait for a
// writer that may never come), or a file that cannot be opened, with the
// system's reason. Standard input reached through /dev/stdin (or
// /proc/self/fd/0) is read even when it is a pipe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace k100::codeobj {

// Throws k100::Error "<what> '<path>': <reason>" ("code object '/tmp': is a directory").
std::vector<uint8_t> read_input_file(const std::string& path, const std::string& what = "file");

}  // namespace k100::codeobj
