// The parser: Python's grammar for the DSL's subset (see parser.h).
#include "k100/dsl/parser.h"

#include <initializer_list>
#include <map>
#include <string_view>

#include "k100/base/closest_match.h"

namespace k100::dsl {
namespace {

// Thrown inside the parser only: unwinds to the statement being parsed,
// which skips to the next one. Never leaves parse().
struct SyntaxError {};

// Keywords that begin a construct the DSL refuses, with what to do instead.
const std::map<std::string_view, std::string_view>& refused_keywords() {
  static const std::map<std::string_view, std::string_view> table = {
      {"with", "'with' is not supported; kernels have no context managers"},
      {"try", "'try' is not supported; kernels have no exceptions: test with 'if' and leave with 'return'"},
      {"except", "'except' is not supported; kernels have no exceptions"},
      {"finally", "'finally' is not supported; kernels have no exceptions"},
      {"class", "'class' is not supported; write kernels and helpers as top-level functions"},
      {"global", "'global' is not supported; use a top-level constant (NAME = value) or a parameter"},
      {"nonlocal", "'nonlocal' is not supported; helpers return their result with 'return'"},
      {"del", "'del' is not supported; a variable lives until the kernel ends"},
      {"assert", "'assert' is not supported; test with 'if' and leave with 'return'"},
      {"raise", "'raise' is not supported; kernels have no exceptions: leave with 'return'"},
      {"lambda", "'lambda' is not supported; write a helper function with 'def' at the top level"},
      {"yield", "'yield' is not supported; kernels store their results through pointer parameters"},
      {"async", "'async' is not supported; every kernel runs to completion on the device"},
      {"await", "'await' is not supported; every kernel runs to completion on the device"},
      {"True", "'True' is not supported; write 1 (as in 'while 1:') or a comparison"},
      {"False", "'False' is not supported; write 0 or a comparison"},
      {"None", "'None' is not supported; kernels have no None value"},
      {"is", "'is' is not supported; compare numbers with == or !="},
      {"in", "'in' is not supported outside 'for NAME in range(...)'; compare with == or !="},
  };
  return table;
}

bool is_keyword(std::string_view w) {
  static const char* const kws[] = {"def", "if", "elif", "else", "while", "for", "in", "break", "continue",
                                    "return", "pass", "and", "or", "not", "import", "from", "as", "is",
                                    "with", "try", "except", "finally", "class", "global", "nonlocal", "del",
                                    "assert", "raise", "lambda", "yield", "async", "await", "True", "False",
                                    "None"};
  for (auto k : kws)
    if (w == k) return true;
  return false;
}

const std::vector<std::string>& type_names() {
  static const std::vector<std::string> names = {"f32", "f16", "bf16", "u32", "s32", "u16", "s16", "u8", "s8"};
  return names;
}

std::optional<Scalar> scalar_of(std::string_view n) {
  if (n == "f32") return Scalar::F32;
  if (n == "f16") return Scalar::F16;
  if (n == "bf16") return Scalar::BF16;
  if (n == "u32") return Scalar::U32;
  if (n == "s32") return Scalar::S32;
  if (n == "u16") return Scalar::U16;
  if (n == "s16") return Scalar::S16;
  if (n == "u8") return Scalar::U8;
  if (n == "s8") return Scalar::S8;
  return std::nullopt;
}

class Parser {
 public:
  Parser(const SourceText& src, const std::vector<Token>& tokens, DiagnosticSink& sink)
      : src_(src), toks_(tokens), sink_(sink) {}

  Module run() {
    Module m;
    while (!at(TokenKind::End)) {
      if (sink_.limit_reached()) break;
      try {
        top_level(m);
      } catch (const SyntaxError&) {
        recover();
      }
    }
    return m;
  }

 private:
  // ---- token access -------------------------------------------------------
  const Token& peek(size_t ahead = 0) const {
    size_t i = pos_ + ahead;
    return i < toks_.size() ? toks_[i] : toks_.back();
  }
  bool at(TokenKind k) const { return peek().kind == k; }
  bool at_op(std::string_view op) const { return peek().kind == TokenKind::Op && peek().text == op; }
  bool at_kw(std::string_view kw) const { return peek().kind == TokenKind::Name && peek().text == kw; }
  const Token& next() {
    const Token& t = peek();
    if (pos_ < toks_.size() - 1) ++pos_;
    return t;
  }
  bool accept_op(std::string_view op) {
    if (!at_op(op)) return false;
    next();
    return true;
  }

  [[noreturn]] void fail(const SourceLoc& loc, std::string message) {
    report_error(sink_, src_, loc, std::move(message));
    throw SyntaxError{};
  }
  [[noreturn]] void fail_here(std::string message) { fail(peek().loc, std::move(message)); }

  void expect_op(std::string_view op, std::string_view context) {
    if (accept_op(op)) return;
    fail_here("expected '" + std::string(op) + "' " + std::string(context) + ", found " + describe(peek()));
  }
  void expect_newline() {
    if (at(TokenKind::Newline)) {
      next();
      return;
    }
    if (at_op(",")) fail_here("tuples are not supported; write one value per statement");
    if (at_op("=")) fail_here("chained assignment is not supported; assign each name on its own line");
    fail_here("expected the end of the statement, found " + describe(peek()));
  }

  // Skips the rest of a broken statement and any block it opened.
  void recover() {
    size_t start = pos_;
    while (!at(TokenKind::Newline) && !at(TokenKind::End)) {
      if (at(TokenKind::Indent) || at(TokenKind::Dedent)) break;
      next();
    }
    if (at(TokenKind::Newline)) next();
    if (at(TokenKind::Indent)) skip_block();
    if (pos_ == start && !at(TokenKind::End)) next();  // always make progress
  }
  void skip_block() {
    int depth = 0;
    do {
      if (at(TokenKind::Indent)) ++depth;
      if (at(TokenKind::Dedent)) --depth;
      if (at(TokenKind::End)) return;
      next();
    } while (depth > 0);
  }

  std::string name_token(std::string_view what) {
    if (!at(TokenKind::Name)) fail_here("expected " + std::string(what) + ", found " + describe(peek()));
    if (is_keyword(peek().text))
      fail_here("'" + peek().text + "' is a keyword and cannot be used as " + std::string(what));
    return next().text;
  }

  // ---- top level ----------------------------------------------------------
  void top_level(Module& m) {
    operators_ = 0;
    if (at(TokenKind::Indent)) fail_here("unexpected indentation; top-level statements start in column 1");
    if (at(TokenKind::Newline)) {
      next();
      return;
    }
    if (at_op("@") || at_kw("def")) {
      function(m);
      return;
    }
    if (at_kw("import") || at_kw("from")) {
      // Imports make a file importable by Python tooling; the compiler ignores them.
      while (!at(TokenKind::Newline) && !at(TokenKind::End)) next();
      expect_newline();
      return;
    }
    if (at(TokenKind::Name) && !is_keyword(peek().text) && peek(1).kind == TokenKind::Op && peek(1).text == "=") {
      Constant c;
      c.loc = peek().loc;
      c.name = next().text;
      next();
      c.value = expr();
      expect_newline();
      m.constants.push_back(std::move(c));
      return;
    }
    refuse_keyword();
    fail_here("only 'def' (kernels and helpers), constants (NAME = value) and imports may appear at the top "
              "level; found " + describe(peek()));
  }

  void function(Module& m) {
    Function f;
    while (accept_op("@")) {
      SourceLoc dloc = peek().loc;
      std::string d = name_token("a decorator name");
      if (d != "inline")
        fail(dloc, "unknown decorator '" + d + "'; the only decorator is @inline (marks a helper function)");
      if (at_op("(")) fail_here("@inline takes no arguments");
      f.inline_decorator = true;
      expect_newline();
    }
    if (!at_kw("def")) fail_here("a decorator must be followed by 'def'");
    next();
    f.loc = peek().loc;
    f.name = name_token("a function name");
    expect_op("(", "after the function name");
    while (!at_op(")")) {
      if (at_op("*") || at_op("**") || at_op("/"))
        fail_here("'" + peek().text + "' in a parameter list is not supported; list each parameter by name");
      Param p;
      p.loc = peek().loc;
      p.name = name_token("a parameter name");
      if (accept_op(":")) p.ann = annotation(true);
      if (at_op("="))
        fail_here("default parameter values are not supported; every argument is passed at the call");
      for (const auto& q : f.params)
        if (q.name == p.name) fail(p.loc, "parameter '" + p.name + "' is listed twice");
      f.params.push_back(std::move(p));
      if (!accept_op(",")) break;
    }
    expect_op(")", "to close the parameter list");
    if (accept_op("->")) {
      if (at_kw("None")) {
        next();
      } else {
        f.returns = annotation(false);
      }
    }
    expect_op(":", "after the function's signature");
    f.body = block();
    for (const auto& g : m.functions)
      if (g.name == f.name)
        fail(f.loc, "function '" + f.name + "' is defined twice (first at line " + std::to_string(g.loc.line) +
                        "); give each kernel and helper its own name");
    m.functions.push_back(std::move(f));
  }

  // `f32`, `ptr[u8]`, ... For parameters scalars are u32, s32, f32; locals
  // may not be pointers.
  TypeAnn annotation(bool parameter) {
    TypeAnn a;
    a.loc = peek().loc;
    if (!at(TokenKind::Name)) fail_here("expected a type (f32, u32, s32, ptr[f32], ...), found " + describe(peek()));
    std::string n = next().text;
    if (n == "ptr") {
      if (!parameter) fail(a.loc, "local pointers are not supported; index the pointer parameter directly");
      expect_op("[", "after 'ptr' (write ptr[f32], ptr[u8], ...)");
      SourceLoc eloc = peek().loc;
      std::string e = at(TokenKind::Name) ? next().text : "";
      auto s = scalar_of(e);
      if (!s) {
        std::string near = closest_match(e, type_names());
        fail(eloc, "unknown element type '" + e + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                       "; pointers are ptr[f32|f16|bf16|u32|s32|u16|s16|u8|s8]");
      }
      expect_op("]", "after the element type");
      a.type = Type::ptr(*s);
      return a;
    }
    auto s = scalar_of(n);
    if (!s) {
      std::vector<std::string> cands = type_names();
      cands.push_back("ptr");
      std::string near = closest_match(n, cands);
      fail(a.loc, "unknown type '" + n + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                      (parameter ? "; parameters are ptr[T], u32, s32 or f32"
                                 : "; values are f32, f16, bf16, u32 or s32"));
    }
    if (parameter && *s != Scalar::U32 && *s != Scalar::S32 && *s != Scalar::F32)
      fail(a.loc, "a '" + n + "' parameter is not supported; scalar parameters are u32, s32 or f32 (pass " + n +
                      " data through a ptr[" + n + "])");
    if (!parameter && *s != Scalar::U32 && *s != Scalar::S32 && *s != Scalar::F32 && *s != Scalar::F16 &&
        *s != Scalar::BF16)
      fail(a.loc, "a '" + n + "' variable is not supported; values are f32, f16, bf16, u32 or s32 (8- and 16-bit "
                      "integers are element types of pointers only)");
    a.type = Type::value(*s);
    return a;
  }

  // ---- statements ---------------------------------------------------------
  // After ':': an indented block, or simple statements on the same line.
  std::vector<StmtPtr> block() {
    DepthGuard guard(*this);
    std::vector<StmtPtr> body;
    if (!at(TokenKind::Newline)) {
      simple_line(body);
      return body;
    }
    next();
    if (!at(TokenKind::Indent)) fail_here("expected an indented block after ':'");
    next();
    while (!at(TokenKind::Dedent) && !at(TokenKind::End)) {
      if (sink_.limit_reached()) break;
      try {
        statement(body);
      } catch (const SyntaxError&) {
        recover();
      }
    }
    if (at(TokenKind::Dedent)) next();
    return body;
  }

  void refuse_keyword() {
    if (!at(TokenKind::Name)) return;
    auto it = refused_keywords().find(peek().text);
    if (it != refused_keywords().end()) fail_here(std::string(it->second));
  }

  void statement(std::vector<StmtPtr>& body) {
    operators_ = 0;
    if (at(TokenKind::Indent)) fail_here("unexpected indentation; this line is not inside a block");
    if (at_kw("if")) return body.push_back(if_stmt());
    if (at_kw("while")) return body.push_back(while_stmt());
    if (at_kw("for")) return body.push_back(for_stmt());
    if (at_kw("def") || at_op("@"))
      fail_here("a 'def' inside a function is not supported; define helpers at the top level of the file");
    if (at_kw("elif") || at_kw("else")) fail_here("'" + peek().text + "' without a matching 'if'");
    if (at_kw("import") || at_kw("from")) fail_here("imports are allowed only at the top level of the file");
    simple_line(body);
  }

  // simple statements separated by ';' up to the end of the line.
  void simple_line(std::vector<StmtPtr>& body) {
    body.push_back(simple());
    while (accept_op(";")) {
      if (at(TokenKind::Newline)) break;
      body.push_back(simple());
    }
    expect_newline();
  }

  StmtPtr make(StmtKind k, const SourceLoc& loc) {
    auto s = std::make_unique<Stmt>();
    s->kind = k;
    s->loc = loc;
    return s;
  }

  StmtPtr simple() {
    SourceLoc loc = peek().loc;
    refuse_keyword();
    if (at_kw("pass")) return next(), make(StmtKind::Pass, loc);
    if (at_kw("break")) return next(), make(StmtKind::Break, loc);
    if (at_kw("continue")) return next(), make(StmtKind::Continue, loc);
    if (at_kw("return")) {
      next();
      auto s = make(StmtKind::Return, loc);
      if (!at(TokenKind::Newline) && !at_op(";")) s->value = expr();
      if (at_op(",")) fail_here("returning several values is not supported; a helper returns one value");
      return s;
    }
    if (at(TokenKind::Name) && (at_kw("if") || at_kw("while") || at_kw("for") || at_kw("def")))
      fail_here("'" + peek().text + "' must start its own line");
    ExprPtr first = expr();
    if (at_op(",")) fail_here("tuple assignment is not supported; assign each name on its own line");
    if (at_op(":")) {
      next();
      auto s = make(StmtKind::AnnAssign, loc);
      check_target(*first, true);
      s->ann = annotation(false);
      if (!at_op("="))
        fail_here("an annotated variable needs an initial value: write " + first->name + ": " +
                  type_name(s->ann->type) + " = <value>");
      next();
      s->target = std::move(first);
      s->value = expr();
      if (at_op("=")) fail_here("chained assignment is not supported; assign each name on its own line");
      return s;
    }
    if (at_op("=")) {
      next();
      check_target(*first, false);
      auto s = make(StmtKind::Assign, loc);
      s->target = std::move(first);
      s->value = expr();
      if (at_op("=")) fail_here("chained assignment is not supported; assign each name on its own line");
      if (at_op(",")) fail_here("tuples are not supported; assign one value per statement");
      return s;
    }
    static const std::pair<std::string_view, Op> aug[] = {
        {"+=", Op::Add},     {"-=", Op::Sub},     {"*=", Op::Mul},    {"/=", Op::Div},
        {"//=", Op::FloorDiv}, {"%=", Op::Mod},   {"&=", Op::BitAnd}, {"|=", Op::BitOr},
        {"^=", Op::BitXor},  {"<<=", Op::Shl},    {">>=", Op::Shr}};
    for (const auto& [spelling, op] : aug) {
      if (at_op(spelling)) {
        SourceLoc oloc = peek().loc;
        next();
        if (first->kind != ExprKind::Name)
          fail(first->loc, "'" + std::string(spelling) + "' needs a variable name on the left; write p[i] = p[i] " +
                               std::string(op_spelling(op)) + " v for memory");
        auto s = make(StmtKind::AugAssign, oloc);
        s->op = op;
        s->target = std::move(first);
        s->value = expr();
        return s;
      }
    }
    if (at_op("**=") || at_op("@="))
      fail_here("'" + peek().text + "' is not supported; augmented assignment takes + - * / // % & | ^ << >>");
    auto s = make(StmtKind::ExprStmt, loc);
    s->value = std::move(first);
    return s;
  }

  void check_target(const Expr& e, bool annotated) {
    if (e.kind == ExprKind::Name) return;
    if (e.kind == ExprKind::Subscript && !annotated) return;
    if (annotated) fail(e.loc, "only a variable name can be annotated");
    fail(e.loc, "cannot assign to this expression; the left side is a variable name or an element p[i]");
  }

  StmtPtr if_stmt() {
    DepthGuard guard(*this);  // elif chains recurse here
    auto s = make(StmtKind::If, peek().loc);
    next();  // if / elif
    s->value = expr();
    expect_op(":", "after the condition");
    s->body = block();
    if (at_kw("elif")) {
      s->orelse.push_back(if_stmt());
    } else if (at_kw("else")) {
      next();
      expect_op(":", "after 'else'");
      s->orelse = block();
    }
    return s;
  }

  void refuse_loop_else() {
    if (at_kw("else"))
      fail_here("'else' after a loop is not supported; set a variable before 'break' and test it after the loop");
  }

  StmtPtr while_stmt() {
    auto s = make(StmtKind::While, peek().loc);
    next();
    s->value = expr();
    expect_op(":", "after the condition");
    s->body = block();
    refuse_loop_else();
    return s;
  }

  StmtPtr for_stmt() {
    auto s = make(StmtKind::For, peek().loc);
    next();
    SourceLoc tloc = peek().loc;
    s->name = name_token("a loop variable name");
    if (at_op(",")) fail(tloc, "tuple loop targets are not supported; loop over one range(...) counter");
    if (!at_kw("in")) fail_here("expected 'in' after the loop variable, found " + describe(peek()));
    next();
    SourceLoc iloc = peek().loc;
    bool is_range = at_kw("range"), is_static = at_kw("static_range");
    if (!(is_range || is_static) || peek(1).text != "(")
      fail(iloc, "a for loop runs over range(...) or static_range(...); other iterables are not supported");
    next();
    s->static_range = is_static;
    s->range_args = call_args();
    if (s->range_args.empty() || s->range_args.size() > 3)
      fail(iloc, std::string(is_static ? "static_range" : "range") + " takes 1 to 3 arguments (stop; start, stop; "
                 "start, stop, step), got " + std::to_string(s->range_args.size()));
    expect_op(":", "after the range");
    s->body = block();
    refuse_loop_else();
    return s;
  }

  // ---- expressions --------------------------------------------------------
  ExprPtr node(ExprKind k, const SourceLoc& loc) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->loc = loc;
    return e;
  }
  ExprPtr binary(ExprKind k, Op op, const SourceLoc& loc, ExprPtr a, ExprPtr b) {
    // A chain a + b + c ... is a tree as deep as it is long; later steps
    // walk it recursively, so one statement's operators are bounded.
    if (++operators_ > kMaxOperators)
      fail(loc, "a statement with more than " + std::to_string(kMaxOperators) +
                    " operators is not supported; split the expression over several statements");
    auto e = node(k, loc);
    e->op = op;
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return e;
  }

  // Guards the recursion of nested expressions and blocks: a hostile file
  // must end in an error, not in a stack overflow.
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& parser) : p(parser) {
      if (++p.depth_ > kMaxDepth) {
        --p.depth_;
        p.fail_here("nesting is too deep (more than " + std::to_string(kMaxDepth) +
                    " levels of parentheses, unary operators and blocks); split the expression or the function");
      }
    }
    ~DepthGuard() { --p.depth_; }
  };
  static constexpr int kMaxDepth = 200;

  ExprPtr expr() {
    DepthGuard guard(*this);
    if (at_kw("lambda")) refuse_keyword();
    ExprPtr a = or_test();
    if (at_kw("if")) {
      SourceLoc loc = peek().loc;
      next();
      ExprPtr c = or_test();
      if (!at_kw("else")) fail_here("a conditional expression needs 'else': a if c else b");
      next();
      ExprPtr b = expr();
      auto e = node(ExprKind::IfExp, loc);
      e->args.push_back(std::move(c));
      e->args.push_back(std::move(a));
      e->args.push_back(std::move(b));
      return e;
    }
    if (at_op(":=")) fail_here("assignment expressions (:=) are not supported; assign on a line of its own");
    return a;
  }

  ExprPtr or_test() {
    ExprPtr a = and_test();
    while (at_kw("or")) {
      SourceLoc loc = next().loc;
      a = binary(ExprKind::Binary, Op::Or, loc, std::move(a), and_test());
    }
    return a;
  }
  ExprPtr and_test() {
    ExprPtr a = not_test();
    while (at_kw("and")) {
      SourceLoc loc = next().loc;
      a = binary(ExprKind::Binary, Op::And, loc, std::move(a), not_test());
    }
    return a;
  }
  ExprPtr not_test() {
    if (at_kw("not")) {
      DepthGuard guard(*this);
      SourceLoc loc = next().loc;
      auto e = node(ExprKind::Unary, loc);
      e->op = Op::Not;
      e->args.push_back(not_test());
      return e;
    }
    return comparison();
  }

  std::optional<Op> compare_op() {
    if (at(TokenKind::Op)) {
      const std::string& t = peek().text;
      if (t == "==") return Op::Eq;
      if (t == "!=") return Op::Ne;
      if (t == "<") return Op::Lt;
      if (t == "<=") return Op::Le;
      if (t == ">") return Op::Gt;
      if (t == ">=") return Op::Ge;
    }
    if (at_kw("in") || at_kw("is") || (at_kw("not") && peek(1).text == "in")) {
      if (at_kw("not")) fail_here("'not in' is not supported; compare with == or !=");
      refuse_keyword();
    }
    return std::nullopt;
  }

  ExprPtr comparison() {
    ExprPtr a = bit_or();
    if (auto op = compare_op()) {
      SourceLoc loc = next().loc;
      a = binary(ExprKind::Compare, *op, loc, std::move(a), bit_or());
      if (compare_op())
        fail_here("chained comparisons (a < b < c) are not supported; write (a < b) and (b < c)");
    }
    return a;
  }

  // One left-associative level of binary operators: operands from `next`.
  ExprPtr left_assoc(ExprPtr (Parser::*next)(), std::initializer_list<std::pair<std::string_view, Op>> ops) {
    ExprPtr a = (this->*next)();
    while (true) {
      const std::pair<std::string_view, Op>* hit = nullptr;
      for (const auto& o : ops)
        if (at_op(o.first)) hit = &o;
      if (!hit) return a;
      SourceLoc loc = next_token_loc();
      a = binary(ExprKind::Binary, hit->second, loc, std::move(a), (this->*next)());
    }
  }
  SourceLoc next_token_loc() { return next().loc; }

  ExprPtr bit_or() { return left_assoc(&Parser::bit_xor, {{"|", Op::BitOr}}); }
  ExprPtr bit_xor() { return left_assoc(&Parser::bit_and, {{"^", Op::BitXor}}); }
  ExprPtr bit_and() { return left_assoc(&Parser::shift, {{"&", Op::BitAnd}}); }
  ExprPtr shift() { return left_assoc(&Parser::arith, {{"<<", Op::Shl}, {">>", Op::Shr}}); }
  ExprPtr arith() { return left_assoc(&Parser::term, {{"+", Op::Add}, {"-", Op::Sub}}); }
  ExprPtr term() {
    ExprPtr a = factor();
    while (true) {
      Op op;
      if (at_op("*")) op = Op::Mul;
      else if (at_op("/")) op = Op::Div;
      else if (at_op("//")) op = Op::FloorDiv;
      else if (at_op("%")) op = Op::Mod;
      else if (at_op("@")) fail_here("'@' (matrix multiplication) is not supported; write the loops");
      else break;
      SourceLoc loc = next().loc;
      a = binary(ExprKind::Binary, op, loc, std::move(a), factor());
    }
    return a;
  }
  ExprPtr factor() {
    if (at_op("-") || at_op("~")) {
      DepthGuard guard(*this);
      Op op = peek().text == "-" ? Op::Neg : Op::Invert;
      SourceLoc loc = next().loc;
      auto e = node(ExprKind::Unary, loc);
      e->op = op;
      e->args.push_back(factor());
      return e;
    }
    if (at_op("+")) fail_here("unary '+' is not supported; write the operand alone");
    ExprPtr a = primary();
    if (at_op("**")) fail_here("'**' is not supported; multiply (x * x) or use exp()");
    return a;
  }

  std::vector<ExprPtr> call_args() {
    expect_op("(", "to start the arguments");
    std::vector<ExprPtr> args;
    while (!at_op(")")) {
      if (at_op("*") || at_op("**")) fail_here("'" + peek().text + "' arguments are not supported; pass each argument");
      if (at(TokenKind::Name) && peek(1).kind == TokenKind::Op && peek(1).text == "=")
        fail_here("keyword arguments are not supported; pass arguments by position");
      args.push_back(expr());
      if (!accept_op(",")) break;
    }
    expect_op(")", "to close the arguments");
    return args;
  }

  ExprPtr primary() {
    ExprPtr a = atom();
    while (true) {
      if (at_op("(")) {
        if (a->kind != ExprKind::Name)
          fail(a->loc, "only a function name can be called (a built-in or a helper defined at the top level)");
        auto c = node(ExprKind::Call, a->loc);
        c->name = a->name;
        c->args = call_args();
        a = std::move(c);
      } else if (at_op("[")) {
        SourceLoc loc = next().loc;
        if (a->kind != ExprKind::Name)
          fail(a->loc, "only a pointer parameter or an LDS array name can be indexed: write p[i]");
        auto s = node(ExprKind::Subscript, a->loc);
        if (at_op(":")) fail_here("slices are not supported; index one element: p[i]");
        ExprPtr idx = expr();
        if (at_op(":")) fail_here("slices are not supported; index one element: p[i]");
        if (at_op(",")) fail_here("multi-dimensional indexing is not supported; compute a flat index: p[r * cols + c]");
        expect_op("]", "to close the index");
        (void)loc;
        s->args.push_back(std::move(a));
        s->args.push_back(std::move(idx));
        a = std::move(s);
      } else if (at_op(".")) {
        fail_here("attribute access (a.b) is not supported; built-ins are called by their bare name, e.g. sqrt(x)");
      } else {
        return a;
      }
    }
  }

  ExprPtr atom() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Int: {
        if (t.int_value > 0xFFFFFFFFull)
          fail_here("integer literal " + t.text + " does not fit in 32 bits; integers are u32 or s32");
        auto e = node(ExprKind::Int, t.loc);
        e->int_value = t.int_value;
        next();
        return e;
      }
      case TokenKind::Float: {
        auto e = node(ExprKind::Float, t.loc);
        e->float_value = t.float_value;
        next();
        return e;
      }
      case TokenKind::Name: {
        refuse_keyword();
        if (is_keyword(t.text)) fail_here("expected a value, found the keyword '" + t.text + "'");
        auto e = node(ExprKind::Name, t.loc);
        e->name = t.text;
        next();
        return e;
      }
      case TokenKind::Op:
        if (t.text == "(") {
          next();
          if (at_op(")")) fail_here("empty tuples are not supported");
          ExprPtr e = expr();
          if (at_op(",")) fail_here("tuples are not supported; write one value per statement");
          expect_op(")", "to close the parenthesis");
          return e;
        }
        if (t.text == "[")
          fail_here("list displays are not supported; use a pointer parameter or an LDS array (lds(n))");
        if (t.text == "{") fail_here("dict and set displays are not supported; use an LDS array (lds(n))");
        if (t.text == "...") fail_here("'...' is not supported; write 'pass' for an empty block");
        break;
      default: break;
    }
    fail_here("expected a value, found " + describe(t));
  }

  const SourceText& src_;
  const std::vector<Token>& toks_;
  DiagnosticSink& sink_;
  size_t pos_ = 0;
  int depth_ = 0;
  int operators_ = 0;  // in the current statement
  static constexpr int kMaxOperators = 5000;
};

}  // namespace

Module parse(const SourceText& src, const std::vector<Token>& tokens, DiagnosticSink& sink) {
  if (tokens.empty()) return {};
  return Parser(src, tokens, sink).run();
}

Module parse_source(const SourceText& src, DiagnosticSink& sink) {
  auto tokens = lex(src, sink);
  if (sink.has_errors()) return {};
  return parse(src, tokens, sink);
}

}  // namespace k100::dsl
