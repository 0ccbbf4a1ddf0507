#include "k100/runtime/error.h"

namespace k100::runtime {

const char* error_code_name(ErrorCode c) {
  switch (c) {
    case ErrorCode::UnknownKernel:
      return "unknown kernel";
    case ErrorCode::WrongArgCount:
      return "wrong argument count";
    case ErrorCode::KernargTooBig:
      return "kernarg too big";
    case ErrorCode::InvalidLaunch:
      return "invalid launch";
    case ErrorCode::BadPointer:
      return "bad pointer";
    case ErrorCode::DeviceFault:
      return "device fault";
    case ErrorCode::OutOfMemory:
      return "out of memory";
    case ErrorCode::Backend:
      return "backend error";
    case ErrorCode::Package:
      return "package error";
    case ErrorCode::InvalidArgument:
      return "invalid argument";
    case ErrorCode::Cancelled:
      return "cancelled";
  }
  return "error";
}

}  // namespace k100::runtime
