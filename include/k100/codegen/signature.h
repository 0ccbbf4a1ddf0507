// k100lc codegen: a kernel's signature, declared once.
//
//   const Signature sig("gemv_f32_warp_k", {in("w", "f32"), in("x", "f32"), out("y", "f32"),
//                                           value("nrows", "u32"), value("k", "u32")});
//
// Everything that depends on the argument list comes from this one value: the
// kernarg layout (offsets, hidden arguments, the kernarg size the catalog
// declares), the code object's argument metadata, the batched s_load_dwordx*
// of the arguments at kernel entry (codegen::Kernel::arg), the C prototype,
// the docs rows and the argv a caller passes (pack(), which checks count and
// ranges and names the argument that does not fit).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "k100/codeobj/arg_layout.h"

namespace k100::codegen {

struct Param {
  std::string name;
  std::string type;    // "const f32*", "f32*", "u32", "i32", "i64", "f32", "f16", ...
  std::string access;  // buffers: "read_only", "write_only" or "read_write"; "" = not declared
  bool is_buffer() const { return !type.empty() && type.back() == '*'; }
};
// Buffers of `element` values read, written, or both; a value argument.
Param in(std::string name, std::string element);
Param out(std::string name, std::string element);
Param inout(std::string name, std::string element);
Param value(std::string name, std::string type);

// One argv value: an address or integer, or a float (packed as its f32 bits
// for an f32 argument).
using ArgValue = std::variant<int64_t, uint64_t, double>;
struct ArgInit {
  ArgValue v;
  ArgInit(int x) : v(int64_t(x)) {}
  ArgInit(long x) : v(int64_t(x)) {}
  ArgInit(long long x) : v(int64_t(x)) {}
  ArgInit(unsigned x) : v(uint64_t(x)) {}
  ArgInit(unsigned long x) : v(uint64_t(x)) {}
  ArgInit(unsigned long long x) : v(uint64_t(x)) {}
  ArgInit(float x) : v(double(x)) {}
  ArgInit(double x) : v(x) {}
};

class Signature {
 public:
  Signature() = default;
  Signature(std::string kernel, std::vector<Param> params,
            codeobj::HiddenArgLayout hidden = codeobj::HiddenArgLayout::None);

  const std::string& kernel() const { return kernel_; }
  const std::vector<Param>& params() const { return params_; }
  codeobj::HiddenArgLayout hidden() const { return hidden_; }

  // Index of a parameter; throws k100::Error naming the kernel and the name.
  int index(std::string_view name) const;
  // The code object's explicit arguments and the whole layout (explicit
  // arguments naturally aligned, hidden ones after H = end rounded up to 8;
  // without hidden arguments the size is rounded up to 8).
  std::vector<codeobj::ExplicitArg> explicit_args() const;
  const codeobj::ArgLayout& layout() const { return layout_; }
  uint32_t offset(std::string_view name) const;
  uint32_t size(std::string_view name) const;
  uint32_t kernarg_size() const { return layout_.kernarg_segment_size; }

  // argv for TestDevice::launch / Runtime::launch: one slot per parameter,
  // integers as they are (checked against the type's range), f32 as its bit
  // pattern in the low 32 bits. Throws naming the argument on a wrong count,
  // an out-of-range value or a float for an integer parameter.
  std::vector<uint64_t> pack(std::initializer_list<ArgInit> values) const;
  std::vector<uint64_t> pack(const std::vector<ArgValue>& values) const;

  // `void name(const float* w, ..., uint32_t k);` with C types.
  std::string c_prototype() const;
  // The argument rows of the kernel's docs table: "| i | `name` | type | offset | size |".
  std::vector<std::string> docs_rows() const;

 private:
  std::string kernel_;
  std::vector<Param> params_;
  codeobj::HiddenArgLayout hidden_ = codeobj::HiddenArgLayout::None;
  codeobj::ArgLayout layout_;
};

// Text made safe for a markdown table cell ('|' escaped, line breaks as spaces).
std::string markdown_cell(const std::string& text);
// The docs row of one explicit argument; docs and the signature both use it so
// the generated reference and the declaration print alike.
std::string docs_arg_row(int index, const std::string& name, const std::string& type, uint32_t offset,
                         uint32_t size);

}  // namespace k100::codegen
