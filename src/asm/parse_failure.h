// How the instruction parser and matcher report a problem: a Failure (column
// and message) thrown from deep inside and caught where the statement's
// error is filled in; a Validation is one no other encoding may retry.
#pragma once

#include <cstdint>
#include <string>

namespace k100::as::detail {

class Failure {
 public:
  uint32_t col;
  std::string message;
};

struct Validation {
  Failure failure;
};

[[noreturn]] inline void fail(uint32_t col, std::string msg) { throw Failure{col, std::move(msg)}; }

}  // namespace k100::as::detail
