// Names of types and operators, and the S-expression dump of a tree.
#include "k100/dsl/ast.h"

#include <cstdio>

namespace k100::dsl {

const char* scalar_name(Scalar s) {
  switch (s) {
    case Scalar::Void: return "void";
    case Scalar::Bool: return "bool";
    case Scalar::U32: return "u32";
    case Scalar::S32: return "s32";
    case Scalar::F32: return "f32";
    case Scalar::F16: return "f16";
    case Scalar::BF16: return "bf16";
    case Scalar::U64: return "u64";
    case Scalar::U8: return "u8";
    case Scalar::S8: return "s8";
    case Scalar::U16: return "u16";
    case Scalar::S16: return "s16";
  }
  return "?";
}

std::string type_name(const Type& t) {
  switch (t.kind) {
    case Type::Kind::Value: return scalar_name(t.scalar);
    case Type::Kind::Ptr: return std::string("ptr[") + scalar_name(t.scalar) + "]";
    case Type::Kind::Lds: return std::string("lds[") + scalar_name(t.scalar) + "]";
  }
  return "?";
}

bool is_int(Scalar s) {
  return s == Scalar::U32 || s == Scalar::S32 || s == Scalar::U64 || s == Scalar::U8 || s == Scalar::S8 ||
         s == Scalar::U16 || s == Scalar::S16;
}
bool is_float(Scalar s) { return s == Scalar::F32 || s == Scalar::F16 || s == Scalar::BF16; }
bool is_signed(Scalar s) { return s == Scalar::S32 || s == Scalar::S8 || s == Scalar::S16; }

uint32_t element_bytes(Scalar s) {
  switch (s) {
    case Scalar::U8: case Scalar::S8: return 1;
    case Scalar::U16: case Scalar::S16: case Scalar::F16: case Scalar::BF16: return 2;
    case Scalar::U64: return 8;
    default: return 4;
  }
}

const char* op_spelling(Op op) {
  switch (op) {
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::FloorDiv: return "//";
    case Op::Mod: return "%";
    case Op::BitAnd: return "&";
    case Op::BitOr: return "|";
    case Op::BitXor: return "^";
    case Op::Shl: return "<<";
    case Op::Shr: return ">>";
    case Op::Neg: return "-";
    case Op::Invert: return "~";
    case Op::Not: return "not";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Eq: return "==";
    case Op::Ne: return "!=";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
  }
  return "?";
}

namespace {

std::string suffix(const Expr& e, bool typed) {
  if (!typed) return {};
  return std::string(":") + type_name(e.type) + (e.varying ? "'" : "");
}

std::string list(const std::vector<ExprPtr>& args, bool typed) {
  std::string s;
  for (const auto& a : args) s += " " + dump(*a, typed);
  return s;
}

}  // namespace

std::string dump(const Expr& e, bool typed) {
  switch (e.kind) {
    case ExprKind::Name: return e.name + suffix(e, typed);
    case ExprKind::Int: return std::to_string(e.int_value) + suffix(e, typed);
    case ExprKind::Float: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "%g", e.float_value);
      std::string s = buf;
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s + suffix(e, typed);
    }
    case ExprKind::Unary:
    case ExprKind::Binary:
    case ExprKind::Compare:
      return std::string("(") + op_spelling(e.op) + list(e.args, typed) + ")" + suffix(e, typed);
    case ExprKind::Call: return "(" + e.name + list(e.args, typed) + ")" + suffix(e, typed);
    case ExprKind::Subscript: return "(sub" + list(e.args, typed) + ")" + suffix(e, typed);
    case ExprKind::IfExp: return "(ifexp" + list(e.args, typed) + ")" + suffix(e, typed);
    case ExprKind::Convert: return "(cvt" + list(e.args, typed) + ")" + suffix(e, typed);
  }
  return "?";
}

std::string dump(const std::vector<StmtPtr>& body, bool typed) {
  std::string s;
  for (const auto& st : body) s += " " + dump(*st, typed);
  return s;
}

std::string dump(const Stmt& s, bool typed) {
  auto opt = [&](const ExprPtr& e) { return e ? " " + dump(*e, typed) : std::string(); };
  std::string v = typed && s.varying ? "'" : "";
  switch (s.kind) {
    case StmtKind::Assign: return "(=" + opt(s.target) + opt(s.value) + ")";
    case StmtKind::AnnAssign: return "(=" + opt(s.target) + " :" + type_name(s.ann->type) + opt(s.value) + ")";
    case StmtKind::AugAssign: return std::string("(") + op_spelling(s.op) + "=" + opt(s.target) + opt(s.value) + ")";
    case StmtKind::If:
      return "(if" + v + opt(s.value) + dump(s.body, typed) + (s.orelse.empty() ? "" : " else" + dump(s.orelse, typed)) +
             ")";
    case StmtKind::While: return "(while" + v + opt(s.value) + dump(s.body, typed) + ")";
    case StmtKind::For: {
      std::string r = s.static_range ? "static_range" : "range";
      std::string args;
      for (const auto& a : s.range_args) args += " " + dump(*a, typed);
      std::string step = typed ? " step " + std::to_string(s.step) : "";
      return "(for" + v + " " + s.name + " (" + r + args + ")" + step + dump(s.body, typed) + ")";
    }
    case StmtKind::Break: return "(break)";
    case StmtKind::Continue: return "(continue)";
    case StmtKind::Return: return "(return" + opt(s.value) + ")";
    case StmtKind::Pass: return "(pass)";
    case StmtKind::ExprStmt: return "(do" + opt(s.value) + ")";
    case StmtKind::Inlined: return "(inlined " + s.name + dump(s.body, typed) + ")";
  }
  return "?";
}

}  // namespace k100::dsl
