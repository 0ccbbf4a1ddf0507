// Typed tree (typing.h) → IR (ir.h). Loops become Loop regions whose first
// nodes test the exit condition; a `for` counter starts one step before its
// start and is advanced at the top of each trip, so `continue` (which goes to
// the next trip) needs no separate latch.
#include "k100/dsl/ir.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <sstream>

#include "half_literal.h"
#include "k100/dsl/source.h"

namespace k100::dsl::ir {

namespace {

class Builder {
 public:
  Builder(const TypedKernel& k, const SourceText& src, DiagnosticSink& sink, Function& f)
      : k_(k), src_(src), sink_(sink), f_(f) {}

  void statements(const std::vector<StmtPtr>& in, Region& out, int inlined_depth);
  bool ok() const { return ok_; }

 private:
  int add(Value v, Region& out, const Expr* origin) {
    v.front_end = origin ? int8_t(origin->varying) : int8_t(-1);
    f_.values.push_back(std::move(v));
    int id = int(f_.values.size()) - 1;
    Node n;
    n.kind = NodeKind::Compute;
    n.value = id;
    n.loc = f_.values.back().loc;
    out.push_back(std::move(n));
    return id;
  }
  int constant(Scalar t, uint64_t bits, const SourceLoc& loc, Region& out) {
    Value v;
    v.op = Opcode::Const;
    v.type = t;
    v.bits = bits;
    v.loc = loc;
    return add(std::move(v), out, nullptr);
  }
  void refuse(const SourceLoc& loc, const std::string& what) {
    report_error(sink_, src_, loc, what + " is not yet supported by the code generator");
    ok_ = false;
  }
  int expr(const Expr& e, Region& out);
  // `if cond: break`, the exit test at the top of a loop.
  static void exit_when(int cond, const SourceLoc& loc, Region& out) {
    Node test;
    test.kind = NodeKind::If;
    test.value = cond;
    test.loc = loc;
    Node brk;
    brk.kind = NodeKind::Break;
    brk.loc = loc;
    test.then.push_back(std::move(brk));
    out.push_back(std::move(test));
  }
  void loop_for(const Stmt& s, Region& out, int inlined_depth);
  int sum(int a, int b, Scalar t, const SourceLoc& loc, Region& out) {
    Value v;
    v.op = Opcode::Binary;
    v.aop = Op::Add;
    v.type = t;
    v.args = {a, b};
    v.loc = loc;
    return add(std::move(v), out, nullptr);
  }
  // The counter of a varying loop is varying (typing.h), whatever it is computed from.
  static void write_counter(const Stmt& s, int value, Region& out) {
    Node w;
    w.kind = NodeKind::WriteVar;
    w.var = s.var;
    w.value = value;
    w.varying = s.varying;
    w.loc = s.loc;
    out.push_back(std::move(w));
  }

  const TypedKernel& k_;
  const SourceText& src_;
  DiagnosticSink& sink_;
  Function& f_;
  bool ok_ = true;
  int loop_depth_in_inlined_ = 0;
};

int Builder::expr(const Expr& e, Region& out) {
  Value v;
  v.type = e.type.scalar;
  v.loc = e.loc;
  switch (e.kind) {
    case ExprKind::Name:
      v.op = Opcode::ReadVar;
      v.var = e.var;
      break;
    case ExprKind::Int:
      v.op = Opcode::Const;
      v.bits = e.type.is(Scalar::U64) ? e.int_value : e.int_value & 0xffffffffu;
      break;
    case ExprKind::Float: {
      v.op = Opcode::Const;
      v.bits = e.type.is(Scalar::F16)    ? f16_bits(e.float_value)
               : e.type.is(Scalar::BF16) ? bf16_bits(e.float_value)
                                         : std::bit_cast<uint32_t>(float(e.float_value));
      break;
    }
    case ExprKind::Unary:
      v.op = Opcode::Unary;
      v.aop = e.op;
      v.args = {expr(*e.args[0], out)};
      break;
    case ExprKind::Binary:
      v.op = Opcode::Binary;
      v.aop = e.op;
      v.args = {expr(*e.args[0], out), expr(*e.args[1], out)};
      break;
    case ExprKind::Compare:
      v.op = Opcode::Compare;
      v.aop = e.op;
      v.operand = e.args[0]->type.scalar;
      v.args = {expr(*e.args[0], out), expr(*e.args[1], out)};
      break;
    case ExprKind::Convert:
      v.op = Opcode::Convert;
      v.operand = e.args[0]->type.scalar;
      v.args = {expr(*e.args[0], out)};
      break;
    case ExprKind::IfExp:
      v.op = Opcode::Select;
      v.args = {expr(*e.args[0], out), expr(*e.args[1], out), expr(*e.args[2], out)};
      break;
    case ExprKind::Subscript:
      v.op = Opcode::Load;
      v.var = e.args[0]->var;
      v.args = {expr(*e.args[1], out)};
      break;
    case ExprKind::Call: {
      const Builtin* b = e.builtin;
      if (b->rule == BuiltinRule::Atomic) {
        v.op = Opcode::Atomic;
        v.builtin = b->id;
        v.var = e.args[0]->var;
        for (size_t i = 1; i < e.args.size(); ++i) v.args.push_back(expr(*e.args[i], out));
        break;
      }
      if (b->id == BuiltinId::Load16) {
        v.op = Opcode::Load16;
        v.var = e.args[0]->var;
        v.args = {expr(*e.args[1], out)};
        break;
      }
      v.op = Opcode::Call;
      v.builtin = b->id;
      if (b->rule == BuiltinRule::Id) {
        v.bits = e.args.empty() ? 0 : e.args[0]->int_value;
      } else {
        for (const auto& a : e.args) v.args.push_back(expr(*a, out));
      }
      // Conversions name their source type.
      if (!e.args.empty() && b->rule != BuiltinRule::Id) v.operand = e.args[0]->type.scalar;
      break;
    }
  }
  return add(std::move(v), out, &e);
}

void Builder::loop_for(const Stmt& s, Region& out, int inlined_depth) {
  const Expr& start = *s.range_args[0];
  const Expr& stop = *s.range_args[1];
  const Scalar t = k_.vars[size_t(s.var)].type.scalar;
  const bool up = s.step > 0;
  // range() evaluates its bounds once, before the first trip.
  const int first = expr(start, out);
  const int lim = expr(stop, out);
  // counter = start - step (wraps and comes back at the first trip)
  write_counter(s, sum(first, constant(t, uint32_t(-s.step), s.loc, out), t, s.loc, out), out);

  Node loop;
  loop.kind = NodeKind::Loop;
  loop.varying = s.varying;
  loop.loc = s.loc;
  Region& body = loop.then;
  Value rd;
  rd.op = Opcode::ReadVar;
  rd.var = s.var;
  rd.type = t;
  rd.loc = s.loc;
  int cur = add(std::move(rd), body, nullptr);
  int next = sum(cur, constant(t, uint32_t(s.step), s.loc, body), t, s.loc, body);
  write_counter(s, next, body);
  // leave when !(counter < stop) (step > 0) or !(counter > stop)
  Value done;
  done.op = Opcode::Compare;
  done.aop = up ? Op::Ge : Op::Le;
  done.operand = t;
  done.type = Scalar::Bool;
  done.args = {next, lim};
  done.loc = s.loc;
  exit_when(add(std::move(done), body, nullptr), s.loc, body);
  ++loop_depth_in_inlined_;
  statements(s.body, body, inlined_depth);
  --loop_depth_in_inlined_;
  out.push_back(std::move(loop));
}

void Builder::statements(const std::vector<StmtPtr>& in, Region& out, int inlined_depth) {
  for (const auto& sp : in) {
    const Stmt& s = *sp;
    Node n;
    n.loc = s.loc;
    switch (s.kind) {
      case StmtKind::Assign:
        if (s.target->kind == ExprKind::Name) {
          n.kind = NodeKind::WriteVar;
          n.var = s.target->var;
          n.value = expr(*s.value, out);
        } else {
          n.kind = NodeKind::Store;
          n.var = s.target->args[0]->var;
          n.index = expr(*s.target->args[1], out);
          n.value = expr(*s.value, out);
        }
        out.push_back(std::move(n));
        break;
      case StmtKind::If:
        n.kind = NodeKind::If;
        n.varying = s.varying;
        n.value = expr(*s.value, out);
        statements(s.body, n.then, inlined_depth);
        statements(s.orelse, n.orelse, inlined_depth);
        out.push_back(std::move(n));
        break;
      case StmtKind::While: {
        n.kind = NodeKind::Loop;
        n.varying = s.varying;
        if (s.value->kind != ExprKind::Int) {
          int c = expr(*s.value, n.then);
          Value inv;
          inv.op = Opcode::Unary;
          inv.aop = Op::Not;
          inv.type = Scalar::Bool;
          inv.args = {c};
          inv.loc = s.value->loc;
          exit_when(add(std::move(inv), n.then, s.value.get()), s.loc, n.then);
        }
        ++loop_depth_in_inlined_;
        statements(s.body, n.then, inlined_depth);
        --loop_depth_in_inlined_;
        out.push_back(std::move(n));
        break;
      }
      case StmtKind::For:
        loop_for(s, out, inlined_depth);
        break;
      case StmtKind::Break:
      case StmtKind::Continue:
        n.kind = s.kind == StmtKind::Break ? NodeKind::Break : NodeKind::Continue;
        out.push_back(std::move(n));
        break;
      case StmtKind::Return:
        if (inlined_depth > 0) {
          // Leaves the helper's block: a Break out of the Loop wrapping it.
          if (loop_depth_in_inlined_ > 0) {
            refuse(s.loc, "'return' from a helper inside one of its loops");
            break;
          }
          n.kind = NodeKind::Break;
        } else {
          n.kind = NodeKind::Return;
          f_.has_return = true;
        }
        out.push_back(std::move(n));
        break;
      case StmtKind::ExprStmt:
        if (s.value->kind == ExprKind::Call && s.value->builtin && s.value->builtin->id == BuiltinId::Barrier) {
          n.kind = NodeKind::Barrier;
          out.push_back(std::move(n));
        } else {
          expr(*s.value, out);
        }
        break;
      case StmtKind::Inlined: {
        // The helper's block as a loop left at its end or by its returns.
        n.kind = NodeKind::Loop;
        int saved = loop_depth_in_inlined_;
        loop_depth_in_inlined_ = 0;
        statements(s.body, n.then, inlined_depth + 1);
        loop_depth_in_inlined_ = saved;
        Node brk;
        brk.kind = NodeKind::Break;
        brk.loc = s.loc;
        n.then.push_back(std::move(brk));
        out.push_back(std::move(n));
        break;
      }
      default:
        refuse(s.loc, "this statement");
        break;
    }
  }
}

}  // namespace

bool build(const TypedKernel& k, const SourceText& src, DiagnosticSink& sink, Function& out) {
  out = Function{};
  out.kernel = &k;
  Builder b(k, src, sink, out);
  b.statements(k.body, out.body, 0);
  if (!b.ok()) return false;
  classify(out);
  return true;
}

namespace {

void print_region(const Function& f, const Region& r, int depth, std::ostringstream& os) {
  std::string pad(size_t(depth) * 2, ' ');
  auto vname = [&](int v) { return "%" + std::to_string(v) + (f.values[size_t(v)].varying ? "'" : ""); };
  for (const Node& n : r) {
    switch (n.kind) {
      case NodeKind::Compute: {
        const Value& v = f.values[size_t(n.value)];
        static const char* kOps[] = {"const", "read", "unary", "binary", "cmp", "cvt", "select", "call", "load", "load16", "atomic"};
        os << pad << vname(n.value) << ":" << scalar_name(v.type) << " = " << kOps[int(v.op)];
        if (v.op == Opcode::Unary || v.op == Opcode::Binary || v.op == Opcode::Compare) os << " " << op_spelling(v.aop);
        if (v.op == Opcode::Const) os << " 0x" << std::hex << v.bits << std::dec;
        if (v.var >= 0) os << " " << f.kernel->vars[size_t(v.var)].name;
        for (int a : v.args) os << " " << vname(a);
        os << "\n";
        break;
      }
      case NodeKind::WriteVar: os << pad << f.kernel->vars[size_t(n.var)].name << " := " << vname(n.value) << "\n"; break;
      case NodeKind::Store:
        os << pad << f.kernel->vars[size_t(n.var)].name << "[" << vname(n.index) << "] := " << vname(n.value) << "\n";
        break;
      case NodeKind::Barrier: os << pad << "barrier\n"; break;
      case NodeKind::If:
        os << pad << "if " << vname(n.value) << "\n";
        print_region(f, n.then, depth + 1, os);
        if (!n.orelse.empty()) {
          os << pad << "else\n";
          print_region(f, n.orelse, depth + 1, os);
        }
        os << pad << "end\n";
        break;
      case NodeKind::Loop:
        os << pad << "loop" << (n.varying ? "'" : "") << "\n";
        print_region(f, n.then, depth + 1, os);
        os << pad << "end\n";
        break;
      case NodeKind::Break: os << pad << "break\n"; break;
      case NodeKind::Continue: os << pad << "continue\n"; break;
      case NodeKind::Return: os << pad << "return\n"; break;
    }
  }
}

}  // namespace

std::string print(const Function& f) {
  std::ostringstream os;
  print_region(f, f.body, 0, os);
  return os.str();
}

}  // namespace k100::dsl::ir
