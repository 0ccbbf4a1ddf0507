#include "k100/codegen/signature.h"

#include <cmath>
#include <cstring>
#include <limits>

#include "k100/base/error.h"

namespace k100::codegen {

Param in(std::string name, std::string element) { return {std::move(name), "const " + element + "*", "read_only"}; }
Param out(std::string name, std::string element) { return {std::move(name), element + "*", "write_only"}; }
Param inout(std::string name, std::string element) { return {std::move(name), element + "*", "read_write"}; }
Param value(std::string name, std::string type) { return {std::move(name), std::move(type), ""}; }

namespace {

// The scalar type a parameter names (the pointee for buffers, "const" dropped).
std::string base_type(const Param& p) {
  std::string t = p.type;
  if (t.rfind("const ", 0) == 0) t = t.substr(6);
  if (!t.empty() && t.back() == '*') t.pop_back();
  return t;
}

uint32_t value_size(const std::string& t) {
  if (t == "i8" || t == "u8") return 1;
  if (t == "i16" || t == "u16" || t == "f16" || t == "bf16") return 2;
  if (t == "i32" || t == "u32" || t == "f32") return 4;
  if (t == "i64" || t == "u64" || t == "f64") return 8;
  return 0;
}

const char* c_type(const std::string& t) {
  static const std::pair<const char*, const char*> names[] = {
      {"i8", "int8_t"},   {"u8", "uint8_t"},   {"i16", "int16_t"}, {"u16", "uint16_t"},  {"f16", "uint16_t"},
      {"bf16", "uint16_t"}, {"i32", "int32_t"}, {"u32", "uint32_t"}, {"f32", "float"},   {"i64", "int64_t"},
      {"u64", "uint64_t"}, {"f64", "double"}};
  for (auto& [k, c] : names)
    if (t == k) return c;
  return "void";
}

}  // namespace

Signature::Signature(std::string kernel, std::vector<Param> params, codeobj::HiddenArgLayout hidden)
    : kernel_(std::move(kernel)), params_(std::move(params)), hidden_(hidden) {
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    const std::string where = "kernel '" + kernel_ + "' argument " + std::to_string(i) + " '" + p.name + "'";
    if (value_size(base_type(p)) == 0) throw Error(where + ": unknown type '" + p.type + "'");
    if (!p.is_buffer() && !p.access.empty()) throw Error(where + ": a by-value argument has no access");
    for (size_t j = 0; j < i; ++j)
      if (params_[j].name == p.name) throw Error(where + ": the name is used twice");
  }
  codeobj::ArgLayoutOptions o;
  o.hidden = hidden_;
  o.round_none_to_8 = true;
  auto args = explicit_args();
  layout_ = codeobj::layout_kernel_args(args, codeobj::CodeObjectVersion::V5, o);
}

int Signature::index(std::string_view name) const {
  for (size_t i = 0; i < params_.size(); ++i)
    if (params_[i].name == name) return int(i);
  throw Error("kernel '" + kernel_ + "' has no argument '" + std::string(name) + "'");
}

std::vector<codeobj::ExplicitArg> Signature::explicit_args() const {
  std::vector<codeobj::ExplicitArg> out;
  for (const Param& p : params_) {
    codeobj::ExplicitArg a;
    a.name = p.name;
    a.type_name = p.type;
    if (p.is_buffer()) {
      a.kind = codeobj::ValueKind::GlobalBuffer;
      a.size = 8;
      a.address_space = codeobj::AddressSpace::Global;
      if (p.type.rfind("const", 0) == 0) a.is_const = true;
    } else {
      a.kind = codeobj::ValueKind::ByValue;
      a.size = value_size(base_type(p));
    }
    if (!p.access.empty()) {
      auto acc = codeobj::parse_access(p.access);
      if (!acc) throw Error("kernel '" + kernel_ + "' argument '" + p.name + "': access '" + p.access + "'");
      a.access = acc;
    }
    out.push_back(std::move(a));
  }
  return out;
}

uint32_t Signature::offset(std::string_view name) const { return layout_.args[size_t(index(name))].offset; }
uint32_t Signature::size(std::string_view name) const { return layout_.args[size_t(index(name))].size; }

std::vector<uint64_t> Signature::pack(std::initializer_list<ArgInit> values) const {
  std::vector<ArgValue> v;
  for (const ArgInit& a : values) v.push_back(a.v);
  return pack(v);
}

std::vector<uint64_t> Signature::pack(const std::vector<ArgValue>& values) const {
  if (values.size() != params_.size())
    throw Error("kernel '" + kernel_ + "' takes " + std::to_string(params_.size()) + " arguments, " +
                std::to_string(values.size()) + " given");
  std::vector<uint64_t> argv;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    const std::string t = p.is_buffer() ? "u64" : base_type(p);
    const std::string where = "kernel '" + kernel_ + "' argument " + std::to_string(i) + " '" + p.name + "' (" +
                              p.type + ")";
    const ArgValue& v = values[i];
    if (t == "f32" || t == "f64") {
      double d = std::holds_alternative<double>(v)     ? std::get<double>(v)
                 : std::holds_alternative<int64_t>(v) ? double(std::get<int64_t>(v))
                                                       : double(std::get<uint64_t>(v));
      if (t == "f64") {
        uint64_t b;
        std::memcpy(&b, &d, 8);
        argv.push_back(b);
      } else {
        float f = float(d);
        uint32_t b;
        std::memcpy(&b, &f, 4);
        argv.push_back(b);
      }
      continue;
    }
    if (std::holds_alternative<double>(v)) throw Error(where + ": a floating-point value for an integer argument");
    const uint32_t bytes = value_size(t);
    const bool is_signed = t[0] == 'i';
    if (std::holds_alternative<uint64_t>(v)) {
      uint64_t u = std::get<uint64_t>(v);
      uint64_t max = bytes == 8 ? (is_signed ? uint64_t(INT64_MAX) : UINT64_MAX)
                                : (is_signed ? (uint64_t(1) << (8 * bytes - 1)) - 1 : (uint64_t(1) << (8 * bytes)) - 1);
      if (u > max) throw Error(where + ": " + std::to_string(u) + " does not fit");
      argv.push_back(u);
      continue;
    }
    int64_t s = std::get<int64_t>(v);
    int64_t lo = is_signed ? (bytes == 8 ? INT64_MIN : -(int64_t(1) << (8 * bytes - 1))) : 0;
    int64_t hi = bytes == 8 ? INT64_MAX : is_signed ? (int64_t(1) << (8 * bytes - 1)) - 1 : (int64_t(1) << (8 * bytes)) - 1;
    if (s < lo || s > hi) throw Error(where + ": " + std::to_string(s) + " does not fit");
    // narrower signed values travel as their two's complement bits of the argument's size
    argv.push_back(bytes == 8 ? uint64_t(s) : uint64_t(s) & ((uint64_t(1) << (8 * bytes)) - 1));
  }
  return argv;
}

std::string Signature::c_prototype() const {
  std::string o = "void " + kernel_ + "(";
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    if (i) o += ", ";
    if (p.is_buffer()) o += std::string(p.type.rfind("const", 0) == 0 ? "const " : "") + c_type(base_type(p)) + "* ";
    else o += std::string(c_type(base_type(p))) + " ";
    o += p.name;
  }
  return o + ");";
}

std::string markdown_cell(const std::string& s) {
  std::string c;
  for (char ch : s) {
    if (ch == '|') c += "\\|";
    else if (ch == '\n') c += ' ';
    else c += ch;
  }
  return c;
}

std::string docs_arg_row(int index, const std::string& name, const std::string& type, uint32_t offset,
                         uint32_t size) {
  auto cell = markdown_cell;
  return "| " + std::to_string(index) + " | `" + cell(name) + "` | " + cell(type) + " | " + std::to_string(offset) +
         " | " + std::to_string(size) + " |";
}

std::vector<std::string> Signature::docs_rows() const {
  std::vector<std::string> rows;
  for (size_t i = 0; i < params_.size(); ++i)
    rows.push_back(docs_arg_row(int(i), params_[i].name, params_[i].type, layout_.args[i].offset, layout_.args[i].size));
  return rows;
}

}  // namespace k100::codegen
