// k100lc base: the error type every module throws.
//
// A k100::Error always names the input it is about (file:line:col, kernel
// name, argument index, byte offset) in its message. Library code never
// aborts on user input; front ends catch Error and report it.
#pragma once

#include <stdexcept>
#include <string>

namespace k100 {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace k100
