// k100lc runtime: the errors the runtime raises.
//
// Every failure of a Runtime call is a RuntimeError (a k100::Error) whose
// message names what it is about: the kernel and argument index for launches,
// the buffer and byte range for transfers, the code object for loads. The
// code tells front ends how to report it: the C ABI returns it (negated, see
// fm_engine.h), the Python binding picks the exception type from it.
#pragma once

#include <string>

#include "k100/base/error.h"

namespace k100::runtime {

enum class ErrorCode : int {
  UnknownKernel = 1,  // lookup or symbol not loaded (message suggests the closest name)
  WrongArgCount = 2,  // argv length != number of explicit arguments
  KernargTooBig = 3,  // kernarg segment larger than kMaxKernarg
  InvalidLaunch = 4,  // grid/workgroup sizes, LDS, scratch refused, argument values
  BadPointer = 5,     // not a buffer, past the end, use after free, double free
  DeviceFault = 6,    // a launched kernel faulted (report attached)
  OutOfMemory = 7,
  Backend = 8,           // the device or HSA runtime failed or is unavailable
  Package = 9,           // code object missing, unreadable or conflicting (duplicate names)
  InvalidArgument = 10,  // other bad input to a runtime call
  Cancelled = 11,        // the launch was stopped or dropped by Runtime::cancel()
};

const char* error_code_name(ErrorCode c);

class RuntimeError : public k100::Error {
 public:
  RuntimeError(ErrorCode code, const std::string& message) : k100::Error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

}  // namespace k100::runtime
