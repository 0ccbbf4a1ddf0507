// The launch contract's reader and evaluator (k100/kernels/launch_contract.h).
#include "k100/kernels/launch_contract.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <sstream>

#include "k100/base/error.h"
#include "k100/quant/gemv_tile_shares.h"

namespace k100::kernels {

struct ContractExpr {
  enum class Op { Num, Name, Neg, Add, Sub, Mul, Div, Mod, Lt, Le, Gt, Ge, Eq, Ne, Call };
  Op op = Op::Num;
  int64_t num = 0;
  std::string name;  // Name, Call
  std::vector<std::shared_ptr<const ContractExpr>> kids;
};

namespace {

using Expr = std::shared_ptr<const ContractExpr>;
using Op = ContractExpr::Op;

// The functions and how many arguments each takes (-1: one or more).
const std::map<std::string, int>& functions() {
  static const std::map<std::string, int> f = {{"ceil_div", 2},   {"min", -1},
                                               {"max", -1},       {"select", 3},
                                               {"pow2_floor", 1}, {"log2_ceil", 1}, {"shl", 2}, {"tile_share_parts", 1},
                                               {"tile_share_tiles", 1}};
  return f;
}

// Recursive descent over one expression; `known` are the names it may use.
class ExprParser {
 public:
  ExprParser(std::string_view s, const std::set<std::string>& known, std::function<Error(const std::string&)> fail)
      : s_(s), known_(known), fail_(std::move(fail)) {}
  Expr parse() {
    Expr e = compare();
    skip();
    if (i_ < s_.size()) throw fail_("unexpected '" + std::string(s_.substr(i_)) + "'");
    return e;
  }

 private:
  void skip() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool eat(std::string_view t) {
    skip();
    if (s_.substr(i_, t.size()) != t) return false;
    i_ += t.size();
    return true;
  }
  static Expr node(Op op, std::vector<Expr> kids, int64_t num = 0, std::string name = {}) {
    auto e = std::make_shared<ContractExpr>();
    e->op = op;
    e->kids = std::move(kids);
    e->num = num;
    e->name = std::move(name);
    return e;
  }
  Expr compare() {
    Expr l = additive();
    for (;;) {
      Op op;
      if (eat("<=")) op = Op::Le;
      else if (eat(">=")) op = Op::Ge;
      else if (eat("==")) op = Op::Eq;
      else if (eat("!=")) op = Op::Ne;
      else if (eat("<")) op = Op::Lt;
      else if (eat(">")) op = Op::Gt;
      else return l;
      l = node(op, {l, additive()});
    }
  }
  Expr additive() {
    Expr l = term();
    for (;;) {
      if (eat("+")) l = node(Op::Add, {l, term()});
      else if (eat("-")) l = node(Op::Sub, {l, term()});
      else return l;
    }
  }
  Expr term() {
    Expr l = unary();
    for (;;) {
      if (eat("*")) l = node(Op::Mul, {l, unary()});
      else if (eat("/")) l = node(Op::Div, {l, unary()});
      else if (eat("%")) l = node(Op::Mod, {l, unary()});
      else return l;
    }
  }
  Expr unary() {
    if (eat("-")) return node(Op::Neg, {unary()});
    return primary();
  }
  Expr primary() {
    skip();
    if (eat("(")) {
      Expr e = compare();
      if (!eat(")")) throw fail_("')' missing");
      return e;
    }
    if (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      int64_t v = 0;
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
        if (v > (INT64_MAX - 9) / 10) throw fail_("number too large");
        v = v * 10 + (s_[i_++] - '0');
      }
      return node(Op::Num, {}, v);
    }
    if (i_ < s_.size() && (std::isalpha(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) {
      const size_t b = i_;
      while (i_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_')) ++i_;
      const std::string id(s_.substr(b, i_ - b));
      if (eat("(")) {
        auto f = functions().find(id);
        if (f == functions().end()) throw fail_("unknown function '" + id + "'");
        std::vector<Expr> args;
        if (!eat(")")) {
          do args.push_back(compare());
          while (eat(","));
          if (!eat(")")) throw fail_("')' missing after the arguments of " + id);
        }
        if (f->second >= 0 ? int(args.size()) != f->second : args.empty())
          throw fail_(id + " takes " + (f->second >= 0 ? std::to_string(f->second) : std::string("one or more")) +
                      " arguments, not " + std::to_string(args.size()));
        return node(Op::Call, std::move(args), 0, id);
      }
      if (!known_.count(id)) throw fail_("unknown name '" + id + "'");
      return node(Op::Name, {}, 0, id);
    }
    throw fail_(i_ < s_.size() ? "unexpected '" + std::string(1, s_[i_]) + "'" : std::string("expression ends early"));
  }
  std::string_view s_;
  size_t i_ = 0;
  const std::set<std::string>& known_;
  std::function<Error(const std::string&)> fail_;
};

int64_t eval(const ContractExpr& e, const std::map<std::string, int64_t>& env,
             const std::function<Error(const std::string&)>& fail) {
  auto kid = [&](size_t i) { return eval(*e.kids[i], env, fail); };
  switch (e.op) {
    case Op::Num: return e.num;
    case Op::Name: return env.at(e.name);
    case Op::Neg: return -kid(0);
    case Op::Add: return kid(0) + kid(1);
    case Op::Sub: return kid(0) - kid(1);
    case Op::Mul: return kid(0) * kid(1);
    case Op::Div:
    case Op::Mod: {
      const int64_t a = kid(0), b = kid(1);
      if (b == 0) throw fail("division by zero");
      return e.op == Op::Div ? a / b : a % b;
    }
    case Op::Lt: return kid(0) < kid(1);
    case Op::Le: return kid(0) <= kid(1);
    case Op::Gt: return kid(0) > kid(1);
    case Op::Ge: return kid(0) >= kid(1);
    case Op::Eq: return kid(0) == kid(1);
    case Op::Ne: return kid(0) != kid(1);
    case Op::Call: break;
  }
  if (e.name == "ceil_div") {
    const int64_t a = kid(0), b = kid(1);
    if (b <= 0) throw fail("ceil_div by " + std::to_string(b));
    return a >= 0 ? (a + b - 1) / b : a / b;
  }
  if (e.name == "min" || e.name == "max") {
    int64_t v = kid(0);
    for (size_t i = 1; i < e.kids.size(); ++i) v = e.name == "min" ? std::min(v, kid(i)) : std::max(v, kid(i));
    return v;
  }
  if (e.name == "select") return kid(0) != 0 ? kid(1) : kid(2);
  if (e.name == "pow2_floor") {
    int64_t v = kid(0), p = 1;
    while (p * 2 <= v) p *= 2;
    return p;
  }
  if (e.name == "log2_ceil") {
    const int64_t v = kid(0);
    if (v <= 0) throw fail("log2_ceil of " + std::to_string(v));
    int64_t s = 0;
    while ((int64_t(1) << s) < v) ++s;
    return s;
  }
  if (e.name == "shl") {
    const int64_t a = kid(0), b = kid(1);
    if (b < 0 || b > 62) throw fail("shl by " + std::to_string(b) + " (0 to 62)");
    if (a < 0 || a > (INT64_MAX >> b))
      throw fail("shl(" + std::to_string(a) + ", " + std::to_string(b) + ") overflows");
    return a << b;
  }
  const int64_t tiles = kid(0);
  const quant::GemvTileShares s = quant::gemv_tile_shares(tiles, quant::kGemvComputeUnits);
  if (e.name == "tile_share_parts") return s.none() ? 1 : s.parts;
  return s.none() ? 0 : s.tiles;  // tile_share_tiles
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> words(std::string_view s) {
  std::istringstream in{std::string(s)};
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Splits "a, b, c" at the commas outside parentheses.
std::vector<std::string> split_top(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  size_t b = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')') --depth;
    else if (s[i] == ',' && depth == 0) {
      out.push_back(trim(s.substr(b, i - b)));
      b = i + 1;
    }
  }
  out.push_back(trim(s.substr(b)));
  return out;
}

bool is_name(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

const char* kind_word(LaunchContract::Kind k) {
  switch (k) {
    case LaunchContract::Kind::Sizes: return "sizes";
    case LaunchContract::Kind::Choose: return "choose";
    case LaunchContract::Kind::Let: return "let";
    case LaunchContract::Kind::Workgroup: return "workgroup";
    case LaunchContract::Kind::Grid: return "grid";
    case LaunchContract::Kind::Arg: return "arg";
    case LaunchContract::Kind::Workspace: return "workspace";
  }
  return "";
}

}  // namespace

uint64_t Launch::workspace(const std::string& name) const {
  auto it = workspaces.find(name);
  return it == workspaces.end() ? 0 : it->second;
}

LaunchContract LaunchContract::parse(std::string_view text, std::string kernel, std::vector<std::string> args) {
  LaunchContract c;
  c.kernel_ = std::move(kernel);
  c.args_ = std::move(args);
  const std::string head = "launch contract of kernel '" + c.kernel_ + "'";
  std::set<std::string> known, defined_args;
  bool have_workgroup = false, have_grid = false;
  std::string raw(text);
  std::replace(raw.begin(), raw.end(), ';', '\n');
  std::istringstream in(raw);
  for (std::string line_text; std::getline(in, line_text);) {
    line_text = trim(line_text);
    if (line_text.empty() || line_text[0] == '#') continue;
    auto fail_line = [&](const std::string& why) { return Error(head + ", line '" + line_text + "': " + why); };
    const std::vector<std::string> w = words(line_text);
    Line l{};
    std::string rhs;
    auto name_eq = [&](size_t first_word) {
      // "<word> NAME = EXPR": the name and the text after '='
      const size_t eq = line_text.find('=');
      if (eq == std::string::npos) throw fail_line("'=' missing");
      const std::vector<std::string> lhs = words(std::string_view(line_text).substr(0, eq));
      if (lhs.size() != first_word + 1 || !is_name(lhs[first_word])) throw fail_line("expected '" + w[0] + " NAME = EXPRESSION'");
      rhs = trim(std::string_view(line_text).substr(eq + 1));
      return lhs[first_word];
    };
    if (w[0] == "args") {
      if (w.size() - 1 != c.args_.size() || !std::equal(w.begin() + 1, w.end(), c.args_.begin()))
        throw fail_line("the kernel's arguments are " + std::to_string(c.args_.size()) + " others");
      continue;
    }
    if (w[0] == "sizes") {
      if (!c.lines_.empty() || !c.sizes_.empty()) throw fail_line("sizes come first, once");
      l.kind = Kind::Sizes;
      for (size_t i = 1; i < w.size(); ++i) {
        if (!is_name(w[i]) || !known.insert(w[i]).second) throw fail_line("bad or repeated size '" + w[i] + "'");
        c.sizes_.push_back(w[i]);
      }
      l.names = c.sizes_;
      c.lines_.push_back(std::move(l));
      continue;
    }
    std::vector<std::string> exprs;
    if (w[0] == "choose" || w[0] == "let" || w[0] == "arg" || w[0] == "workspace") {
      l.kind = w[0] == "choose" ? Kind::Choose : w[0] == "let" ? Kind::Let : w[0] == "arg" ? Kind::Arg : Kind::Workspace;
      l.name = name_eq(1);
      exprs = {rhs};
    } else if (w[0].rfind("workgroup", 0) == 0 || w[0].rfind("grid", 0) == 0) {
      const bool wg = w[0].rfind("workgroup", 0) == 0;
      l.kind = wg ? Kind::Workgroup : Kind::Grid;
      if (name_eq(0) != (wg ? "workgroup" : "grid")) throw fail_line("expected '" + std::string(wg ? "workgroup" : "grid") + " = ...'");
      if ((wg && have_workgroup) || (!wg && have_grid)) throw fail_line("declared twice");
      (wg ? have_workgroup : have_grid) = true;
      exprs = wg ? std::vector<std::string>{rhs} : split_top(rhs);
      if (exprs.size() > 3) throw fail_line("a grid has at most 3 dimensions");
    } else {
      throw fail_line("unknown declaration '" + w[0] + "' (sizes, choose, let, workgroup, grid, arg, workspace)");
    }
    for (const std::string& e : exprs) {
      auto fail = [&](const std::string& why) { return Error(head + ", line '" + line_text + "', expression '" + e + "': " + why); };
      l.exprs.push_back(ExprParser(e, known, fail).parse());
      l.expr_texts.push_back(e);
    }
    if (l.kind == Kind::Choose || l.kind == Kind::Let) {
      if (!known.insert(l.name).second) throw fail_line("'" + l.name + "' is declared twice");
    } else if (l.kind == Kind::Arg || l.kind == Kind::Workspace) {
      if (std::find(c.args_.begin(), c.args_.end(), l.name) == c.args_.end())
        throw fail_line("the kernel has no argument '" + l.name + "'");
      if (!defined_args.insert(l.name).second) throw fail_line("argument '" + l.name + "' is declared twice");
    } else if (l.kind == Kind::Workgroup) {
      known.insert("workgroup");
    } else {
      for (const char* g : {"grid_x", "grid_y", "grid_z"}) known.insert(g);
    }
    c.lines_.push_back(std::move(l));
  }
  if (!have_workgroup || !have_grid) throw Error(head + ": no " + std::string(have_workgroup ? "grid" : "workgroup") + " declared");
  return c;
}

LaunchContract LaunchContract::from_lines(const std::vector<std::string>& lines, std::string kernel) {
  std::vector<std::string> args;
  std::string text;
  for (const std::string& l : lines) {
    const std::vector<std::string> w = words(l);
    if (!w.empty() && w[0] == "args") args.assign(w.begin() + 1, w.end());
    text += l + "\n";
  }
  return parse(text, std::move(kernel), std::move(args));
}

std::vector<std::string> LaunchContract::text_lines() const {
  std::string args = "args";
  for (const std::string& a : args_) args += " " + a;
  std::vector<std::string> out = {args};
  for (const Line& l : lines_) {
    std::string s = kind_word(l.kind);
    switch (l.kind) {
      case Kind::Sizes:
        for (const std::string& n : l.names) s += " " + n;
        break;
      case Kind::Workgroup:
      case Kind::Grid:
        s += " =";
        for (size_t i = 0; i < l.expr_texts.size(); ++i) s += (i ? ", " : " ") + l.expr_texts[i];
        break;
      default: s += " " + l.name + " = " + l.expr_texts[0];
    }
    out.push_back(s);
  }
  return out;
}

std::string LaunchContract::where(const Line& l, size_t expr) const {
  return "launch contract of kernel '" + kernel_ + "', " + kind_word(l.kind) + (l.name.empty() ? "" : " " + l.name) +
         ", expression '" + l.expr_texts[expr] + "'";
}

bool LaunchContract::has_choice(const std::string& name) const {
  return std::any_of(lines_.begin(), lines_.end(), [&](const Line& l) { return l.kind == Kind::Choose && l.name == name; });
}

bool LaunchContract::has_workspace(const std::string& name) const {
  return std::any_of(lines_.begin(), lines_.end(), [&](const Line& l) { return l.kind == Kind::Workspace && l.name == name; });
}

int64_t LaunchContract::default_choice(const std::string& name, const std::map<std::string, int64_t>& sizes) const {
  if (!has_choice(name)) throw Error("launch contract of kernel '" + kernel_ + "' has no choice '" + name + "'");
  return evaluate(sizes).values.at(name);
}

Launch LaunchContract::evaluate(const std::map<std::string, int64_t>& sizes,
                                const std::map<std::string, int64_t>& choices) const {
  const std::string head = "launch contract of kernel '" + kernel_ + "'";
  Launch out;
  for (const std::string& s : sizes_) {
    auto it = sizes.find(s);
    if (it == sizes.end()) throw Error(head + ": size '" + s + "' not given");
    out.values[s] = it->second;
  }
  for (const auto& [name, v] : sizes)
    if (!out.values.count(name)) throw Error(head + ": it has no size '" + name + "'");
  for (const auto& [name, v] : choices)
    if (!has_choice(name)) throw Error(head + ": it has no choice '" + name + "'");
  auto u32 = [&](const Line& l, size_t i, int64_t v) {
    if (v < 1 || v > int64_t(UINT32_MAX))
      throw Error(where(l, i) + ": " + std::to_string(v) + " is not a count of 1 or more");
    return uint32_t(v);
  };
  for (const Line& l : lines_) {
    std::vector<int64_t> v;
    for (size_t i = 0; i < l.exprs.size(); ++i) {
      auto fail = [&](const std::string& why) { return Error(where(l, i) + ": " + why); };
      v.push_back(eval(*l.exprs[i], out.values, fail));
    }
    switch (l.kind) {
      case Kind::Sizes: break;
      case Kind::Choose: {
        auto it = choices.find(l.name);
        out.values[l.name] = it != choices.end() ? it->second : v[0];
        break;
      }
      case Kind::Let: out.values[l.name] = v[0]; break;
      case Kind::Workgroup:
        out.workgroup = u32(l, 0, v[0]);
        out.values["workgroup"] = v[0];
        break;
      case Kind::Grid:
        for (size_t i = 0; i < 3; ++i) {
          out.grid[i] = i < v.size() ? u32(l, i, v[i]) : 1;
          out.values[std::string("grid_") + char('x' + i)] = out.grid[i];
        }
        break;
      case Kind::Arg:
      case Kind::Workspace:
        if (v[0] < 0) throw Error(where(l, 0) + ": " + std::to_string(v[0]) + " is negative");
        (l.kind == Kind::Arg ? out.args : out.workspaces)[l.name] = uint64_t(v[0]);
        break;
    }
  }
  return out;
}

std::vector<uint64_t> LaunchContract::argv(const Launch& launch, const std::map<std::string, uint64_t>& given) const {
  const std::string head = "launch of kernel '" + kernel_ + "'";
  for (const auto& [name, v] : given)
    if (std::find(args_.begin(), args_.end(), name) == args_.end())
      throw Error(head + ": it has no argument '" + name + "'");
  std::vector<uint64_t> out;
  for (const std::string& a : args_) {
    auto d = launch.args.find(a);
    auto g = given.find(a);
    if (d != launch.args.end() && g != given.end())
      throw Error(head + ": argument '" + a + "' is derived by the launch contract and given too");
    if (d != launch.args.end()) out.push_back(d->second);
    else if (g != given.end()) out.push_back(g->second);
    else throw Error(head + ": argument '" + a + "' not given" + (has_workspace(a) ? " (a workspace)" : ""));
  }
  return out;
}

}  // namespace k100::kernels
