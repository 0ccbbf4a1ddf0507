// The macro language as the assembler runs it: .include files, .macro
// definitions and calls, .rept / .irp / .irpc, and the .if family of
// conditionals (text handling itself is in preprocess.cpp).
#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "assembler_state.h"
#include "k100/base/closest_match.h"

namespace k100::as::detail {


bool Assembler::is_macro_directive(const std::string& d) {
  return d == ".include" || d == ".macro" || d == ".endm" || d == ".endmacro" || d == ".exitm" ||
         d == ".purgem" || d == ".rept" || d == ".irp" || d == ".irpc" || d == ".endr";
}

bool Assembler::is_cond_directive(std::string_view d) {
  if (d.size() < 3 || d[0] != '.') return false;
  if (d[1] == 'e') return d == ".else" || d == ".elseif" || d == ".endif";
  if (d[1] != 'i' || d[2] != 'f') return false;
  static const char* const kIfs[] = {".if",     ".ifne",     ".ifeq", ".ifge", ".ifgt", ".ifle", ".iflt", ".ifdef",
                                     ".ifndef", ".ifnotdef", ".ifb",  ".ifnb", ".ifc",  ".ifnc"};
  for (const char* n : kIfs)
    if (d == n) return true;
  return false;
}

std::string Assembler::cond_origin(const Cond& c) const {
  SourceLoc l = loc(c.li, c.col);
  return l.file + ":" + std::to_string(l.line);
}

// A line inside a skipped region: only conditional directives are looked at
// (to keep track of the nesting); everything else is dropped unparsed.
void Assembler::skipped_line(const PLine& pl) {
  std::string_view w = first_word(pl.text);
  if (!is_cond_directive(w)) return;
  size_t li = run_line(pl);
  lex_line(lines_[li], toks_);
  cond_directive(li, std::string(w), toks_);
}

void Assembler::cond_directive(size_t li, const std::string& d, const std::vector<Token>& st) {
  size_t p = 1;
  SourceLoc here = loc(li, st[0].col);
  if (d == ".else") {
    if (!expect_end(li, st, p)) return;
    if (conds_.empty()) return error(here, "'.else' without '.if'");
    Cond& c = conds_.back();
    if (c.in_else) return error(here, "second '.else' for the '" + c.what + "' at " + cond_origin(c));
    c.in_else = true;
    c.active = !c.outer_skip && !c.met;
    c.met = true;
    return;
  }
  if (d == ".elseif") {
    if (conds_.empty()) return error(here, "'.elseif' without '.if'");
    if (conds_.back().in_else)
      return error(here, "'.elseif' after '.else' of the '" + conds_.back().what + "' at " + cond_origin(conds_.back()));
    if (conds_.back().outer_skip || conds_.back().met) {
      conds_.back().active = false;  // not evaluated, as llvm-mc
      return;
    }
    conds_.back().met = true;  // on a bad expression no branch runs
    conds_.back().active = false;
    auto v = abs_expr(li, st, p, "'.elseif'");
    if (!v || !expect_end(li, st, p)) return;
    conds_.back().active = conds_.back().met = *v != 0;
    return;
  }
  if (d == ".endif") {
    if (!expect_end(li, st, p)) return;
    if (conds_.empty()) return error(here, "'.endif' without '.if'");
    conds_.pop_back();
    return;
  }
  Cond c;
  c.what = d;
  c.li = li;
  c.col = st[0].col;
  c.frame_depth = frames_.size();
  c.met = true;  // skipped, or a bad condition: no branch runs
  if (skipping()) {
    c.outer_skip = true;
  } else if (auto v = if_condition(li, d, st)) {
    c.active = c.met = *v;
  }
  conds_.push_back(std::move(c));
}

// The condition of an .if-family directive, or nullopt after an error.
std::optional<bool> Assembler::if_condition(size_t li, const std::string& d, const std::vector<Token>& st) {
  size_t p = 1;
  if (d == ".ifdef" || d == ".ifndef" || d == ".ifnotdef") {
    if (st[p].kind != Tok::Identifier) {
      error(loc(li, st[p].col), "expected a symbol name after '" + d + "'");
      return std::nullopt;
    }
    std::string name(st[p].text);
    ++p;
    if (!expect_end(li, st, p)) return std::nullopt;
    bool def = defined(name) || deferred_sets_.count(name);
    return d == ".ifdef" ? def : !def;
  }
  if (d == ".ifb" || d == ".ifnb") return (st[p].kind == Tok::End) == (d == ".ifb");
  if (d == ".ifc" || d == ".ifnc") {
    size_t q = p;
    while (st[q].kind != Tok::Comma && st[q].kind != Tok::End) ++q;
    if (st[q].kind != Tok::Comma) {
      error(loc(li, st[q].col), "expected ',' between the two strings of '" + d + "'");
      return std::nullopt;
    }
    std::string_view line = lines_[li];
    auto trimmed = [&](size_t from, size_t to) {
      from = std::min(from, line.size());
      to = std::min(std::max(to, from), line.size());
      std::string_view v = line.substr(from, to - from);
      while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
      while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r')) v.remove_suffix(1);
      return v;
    };
    std::string_view a = trimmed(st[p].col - 1, st[q].col - 1);
    std::string_view b = trimmed(st[q].col, line.size());
    return (a == b) == (d == ".ifc");
  }
  std::string what = "the condition of '" + d + "'";
  auto v = abs_expr(li, st, p, what.c_str());
  if (!v || !expect_end(li, st, p)) return std::nullopt;
  if (d == ".ifeq") return *v == 0;
  if (d == ".ifge") return *v >= 0;
  if (d == ".ifgt") return *v > 0;
  if (d == ".ifle") return *v <= 0;
  if (d == ".iflt") return *v < 0;
  return *v != 0;  // .if, .ifne
}

// The end of a file or of one pass over an expansion's lines. Conditionals
// opened in an included file may be closed by the file that included it
// (as llvm-mc allows); those opened in an expansion must end in it.
void Assembler::end_of_frame_conds(const Frame& f) {
  size_t depth = frames_.size();
  if (f.kind == Frame::Kind::File) {
    if (depth > 1)
      for (Cond& c : conds_)
        if (c.frame_depth == depth) c.frame_depth = depth - 1;
    return;
  }
  while (!conds_.empty() && conds_.back().frame_depth >= depth) {
    Cond c = std::move(conds_.back());
    conds_.pop_back();
    if (c.frame_depth != depth) continue;
    diag_li_ = c.li;
    error(loc(c.li, c.col), "'" + c.what + "' without '.endif' before the end of the expansion");
  }
}

// The file `path` (loaded once), or nullopt when it cannot be read.
std::optional<uint32_t> Assembler::load_file(const std::string& path) {
  auto it = file_index_.find(path);
  if (it != file_index_.end()) return it->second;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
  if (std::filesystem::file_size(path, ec) > (uint64_t(1) << 30)) return std::nullopt;  // not a source file
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::stringstream ss;
  ss << f.rdbuf();
  uint32_t index = uint32_t(files_.size());
  files_.emplace_back();
  SourceFile& sf = files_.back();
  sf.name = path;
  sf.owned = ss.str();
  sf.text = sf.owned;
  split_source(sf.text, sf.raw, sf.clean, sf.storage);
  file_index_[path] = index;
  return index;
}

void Assembler::push_file(uint32_t index) {
  const SourceFile& sf = files_[index];
  Frame f;
  f.kind = Frame::Kind::File;
  f.lines.reserve(sf.clean.size());
  for (size_t i = 0; i < sf.clean.size(); ++i) f.lines.push_back({sf.clean[i], sf.raw[i], {index, uint32_t(i + 1), 0, 0}});
  frames_.push_back(std::move(f));
}

int Assembler::depth_of(bool files) const {
  int n = 0;
  for (const Frame& f : frames_) n += (f.kind == Frame::Kind::File) == files;
  return n;
}

// `body` with the substitutions made, as lines of expansion `expansion`.
std::vector<Assembler::PLine> Assembler::expand(const std::vector<PLine>& body, const std::vector<std::string_view>& names,
                          const std::vector<std::string_view>& values, bool at_enabled, uint64_t at,
                          uint32_t expansion) {
  std::vector<PLine> out;
  out.reserve(body.size());
  std::string text;
  std::vector<ColumnSegment> segments;
  for (const PLine& b : body) {
    if (!substitute(b.text, names, values, at_enabled, at, text, segments)) {
      out.push_back({b.text, b.raw, {b.origin.file, b.origin.line, expansion, b.origin.colmap}});
      continue;
    }
    expanded_text_.push_back(text);
    std::string_view v = expanded_text_.back();
    colmaps_.push_back(ColumnMap{segments, b.origin.colmap});
    out.push_back({v, v, {b.origin.file, b.origin.line, expansion, uint32_t(colmaps_.size() - 1)}});
  }
  return out;
}

uint32_t Assembler::new_expansion(std::string what, size_t li, uint32_t col) {
  expansions_.push_back(Expansion{std::move(what), li, col});
  return uint32_t(expansions_.size() - 1);
}

// The next line to run (or to record), from the innermost file or expansion.
bool Assembler::next_line(PLine& out) {
  while (!frames_.empty() && !stop_) {
    Frame& f = frames_.back();
    if (f.pos < f.lines.size()) {
      out = f.lines[f.pos++];
      return true;
    }
    if (rec_ && rec_->frame_depth == frames_.size()) unterminated();
    if (!conds_.empty()) end_of_frame_conds(f);
    if (f.kind == Frame::Kind::Rept && ++f.iter < f.reps) {
      f.pos = 0;
      continue;
    }
    if (f.kind == Frame::Kind::Irp && ++f.iter < f.values.size()) {
      fill_irp(f);
      continue;
    }
    frames_.pop_back();
  }
  return false;
}

void Assembler::fill_irp(Frame& f) {
  std::vector<std::string_view> names{f.param}, values{f.values[f.iter]};
  f.lines = expand(f.body, names, values, true, f.at, f.expansion);
  f.pos = 0;
}

void Assembler::unterminated() {
  Recording r = std::move(*rec_);
  rec_.reset();
  diag_li_ = r.li;
  const char* what = r.kind == Recording::Kind::Macro ? "'.macro' without '.endm'" :
                     r.kind == Recording::Kind::Rept ? "'.rept' without '.endr'" : "'.irp' without '.endr'";
  bool in_expansion = !frames_.empty() && frames_.back().kind != Frame::Kind::File;
  error(loc(r.li, r.col), std::string(what) + " before the end of the " + (in_expansion ? "expansion" : "file"));
}

size_t Assembler::run_line(const PLine& pl) {
  size_t li = lines_.size();
  lines_.push_back(pl.text);
  raw_lines_.push_back(pl.raw);
  origins_.push_back(pl.origin);
  diag_li_ = li;
  return li;
}

// A line of a .macro/.rept/.irp body; the matching .endm/.endr ends it.
void Assembler::record(const PLine& pl) {
  Recording& r = *rec_;
  std::string_view w = first_word(pl.text);
  bool end = false;
  if (r.kind == Recording::Kind::Macro) {
    if (w == ".macro") ++r.depth;
    else if (w == ".endm" || w == ".endmacro") end = r.depth-- == 0;
  } else {
    if (w == ".rept" || w == ".irp" || w == ".irpc") ++r.depth;
    else if (w == ".endr") end = r.depth-- == 0;
  }
  if (!end) {
    r.body.push_back(pl);
    return;
  }
  size_t li = run_line(pl);
  lex_line(lines_[li], toks_);
  if (toks_[1].kind != Tok::End)
    error(loc(li, toks_[1].col), "unexpected '" + std::string(toks_[1].text) + "' after " + std::string(w));
  Recording done = std::move(*rec_);
  rec_.reset();
  diag_li_ = done.li;
  if (!done.valid) return;
  if (done.kind == Recording::Kind::Macro) {
    if (macros_.count(done.macro.name))
      return error(loc(done.li, done.col), "macro '" + done.macro.name + "' is already defined");
    done.macro.body = std::move(done.body);
    std::string name = done.macro.name;
    macros_.emplace(name, std::move(done.macro));
    return;
  }
  bool irp = done.kind == Recording::Kind::Irp;
  if (done.body.empty() || (irp ? done.values.empty() : done.reps == 0)) return;
  if (depth_of(false) >= kMaxExpansionDepth) {
    error(loc(done.li, done.col), "expansions cannot be nested more than " + std::to_string(kMaxExpansionDepth) +
                                      " levels deep");
    stop_ = true;
    return;
  }
  uint64_t count = irp ? done.values.size() : done.reps;
  if (!charge_expansion(count, done.body.size(), loc(done.li, done.col))) return;
  Frame f;
  f.expansion = new_expansion(irp ? std::string(first_word(lines_[done.li])) : ".rept", done.li, done.col);
  if (irp) {
    f.kind = Frame::Kind::Irp;
    f.values = std::move(done.values);
    f.param = std::move(done.param);
    f.body = std::move(done.body);
    f.at = macro_count_;
    fill_irp(f);
  } else {
    f.kind = Frame::Kind::Rept;
    f.reps = done.reps;
    f.lines = expand(done.body, {}, {}, false, 0, f.expansion);
  }
  frames_.push_back(std::move(f));
}

// Counts the lines an expansion will produce (all of its repetitions at
// once), against kMaxExpandedLines; past it, assembly stops with an error.
bool Assembler::charge_expansion(uint64_t count, uint64_t lines, const SourceLoc& where) {
  uint64_t left = kMaxExpandedLines - std::min(expanded_lines_, kMaxExpandedLines);
  if (lines && count > left / lines) {
    error(where, "macro expansions would produce more than " + std::to_string(kMaxExpandedLines) +
                     " lines (a .rept count too large, or macros that expand without end?)");
    stop_ = true;  // the enclosing expansions would only repeat the error
    return false;
  }
  expanded_lines_ += count * lines;
  return true;
}

void Assembler::start_recording(Recording::Kind kind, size_t li, const std::vector<Token>& st) {
  rec_ = Recording{};
  rec_->kind = kind;
  rec_->li = li;
  rec_->col = st[0].col;
  rec_->frame_depth = frames_.size();
}

void Assembler::invoke_macro(size_t li, const Macro& m, const std::vector<Token>& st) {
  if (depth_of(false) >= kMaxExpansionDepth) {
    error(loc(li, st[0].col), "macros cannot be nested more than " + std::to_string(kMaxExpansionDepth) +
                                  " levels deep (does '" + m.name + "' expand to itself?)");
    stop_ = true;  // a runaway recursion: every other branch of it would fail the same way
    return;
  }
  size_t vararg = !m.params.empty() && m.params.back().vararg ? m.params.size() - 1 : SIZE_MAX;
  std::vector<MacroArg> args;
  uint32_t err_col = 0;
  std::string err = split_macro_args(lines_[li], st, 1, vararg, true, args, &err_col);
  if (!err.empty()) return error(loc(li, err_col), err);
  std::vector<std::string> values(m.params.size());
  std::vector<bool> given(m.params.size(), false);
  bool named = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const MacroArg& a = args[i];
    size_t pi = i;
    if (!a.name.empty()) {
      named = true;
      for (pi = 0; pi < m.params.size() && m.params[pi].name != a.name; ++pi) {}
      if (pi == m.params.size())
        return error(loc(li, a.col), "macro '" + m.name + "' has no parameter named '" + a.name + "'");
    } else if (named) {
      return error(loc(li, a.col), "positional argument after a named one in the call of macro '" + m.name + "'");
    }
    if (pi >= m.params.size()) {
      if (m.params.empty() && a.value.empty()) continue;
      return error(loc(li, a.col), "too many arguments for macro '" + m.name + "' (it takes " +
                                       std::to_string(m.params.size()) + ")");
    }
    if (given[pi] && !a.value.empty())
      return error(loc(li, a.col), "parameter '" + m.params[pi].name + "' of macro '" + m.name + "' given twice");
    if (!a.value.empty()) {
      values[pi] = a.value;
      given[pi] = true;
    }
  }
  for (size_t i = 0; i < m.params.size(); ++i) {
    if (given[i]) continue;
    if (m.params[i].required)
      return error(loc(li, st[0].col), "missing value for required parameter '" + m.params[i].name +
                                           "' of macro '" + m.name + "'");
    values[i] = m.params[i].default_value;
  }
  std::vector<std::string_view> names, vals;
  for (size_t i = 0; i < m.params.size(); ++i) {
    names.push_back(m.params[i].name);
    vals.push_back(values[i]);
  }
  if (!charge_expansion(1, m.body.size(), loc(li, st[0].col))) return;
  Frame f;
  f.kind = Frame::Kind::Macro;
  f.expansion = new_expansion("macro '" + m.name + "'", li, st[0].col);
  f.lines = expand(m.body, names, vals, true, macro_count_++, f.expansion);
  if (!f.lines.empty()) frames_.push_back(std::move(f));
}

void Assembler::macro_directive(size_t li, const std::string& d, const std::vector<Token>& st) {
  size_t p = 1;
  SourceLoc here = loc(li, st[0].col);
  if (!pp_) {  // a source without .macro/.rept/.irp/.include (only the stray closers can get here)
    if (d == ".endm" || d == ".endmacro") return error(here, "'" + d + "' without '.macro'");
    if (d == ".endr") return error(here, "'.endr' without '.rept' or '.irp'");
    if (d == ".exitm") return error(here, "'.exitm' outside of a macro");
    if (d == ".purgem") return error(here, "'.purgem': no macro is defined");
    return error(here, "internal error: '" + d + "' outside of the macro processor");
  }
  if (d == ".include") {
    if (st[p].kind != Tok::String) return error(loc(li, st[p].col), "expected a quoted file name after .include");
    std::string name = string_value(st[p]);
    ++p;
    if (!expect_end(li, st, p)) return;
    if (depth_of(true) > kMaxIncludeDepth)
      return error(here, "'.include' nested more than " + std::to_string(kMaxIncludeDepth) +
                             " levels deep (does '" + name + "' include itself?)");
    std::string own_dir = dir_of(files_[origins_[li].file].name);
    std::vector<std::string> dirs{own_dir};
    if (!name.empty() && name[0] != '/') dirs.insert(dirs.end(), opts_.include_dirs.begin(), opts_.include_dirs.end());
    for (const std::string& dir : dirs)
      if (auto index = load_file(join_path(dir, name))) return push_file(*index);
    std::string searched;
    for (const std::string& dir : dirs) searched += (searched.empty() ? "" : ", ") + (dir.empty() ? std::string(".") : dir);
    return error(loc(li, st[1].col), "cannot find include file '" + name + "' (searched: " + searched + ")");
  }
  if (d == ".macro") {
    start_recording(Recording::Kind::Macro, li, st);
    Recording& r = *rec_;
    r.valid = false;
    if (st[p].kind != Tok::Identifier) return error(loc(li, st[p].col), "expected a macro name after .macro");
    r.macro.name = std::string(st[p].text);
    ++p;
    if (st[p].kind == Tok::Comma) ++p;
    while (st[p].kind != Tok::End) {
      if (!r.macro.params.empty() && r.macro.params.back().vararg)
        return error(loc(li, st[p].col), "vararg parameter '" + r.macro.params.back().name + "' must be the last one");
      if (st[p].kind != Tok::Identifier) return error(loc(li, st[p].col), "expected a parameter name");
      MacroParam mp;
      mp.name = std::string(st[p].text);
      uint32_t col = st[p].col;
      ++p;
      for (const auto& q : r.macro.params)
        if (q.name == mp.name)
          return error(loc(li, col), "macro '" + r.macro.name + "' has two parameters named '" + mp.name + "'");
      if (st[p].kind == Tok::Colon) {
        ++p;
        std::string_view qual = st[p].kind == Tok::Identifier ? st[p].text : std::string_view();
        if (qual == "req") mp.required = true;
        else if (qual == "vararg") mp.vararg = true;
        else return error(loc(li, st[p].col), "expected 'req' or 'vararg' after '" + mp.name + ":'");
        ++p;
      }
      if (st[p].kind == Tok::Equal) {
        ++p;
        uint32_t err_col = 0;
        std::string err = macro_value(st, p, mp.default_value, &err_col);
        if (!err.empty()) return error(loc(li, err_col), err);
      }
      r.macro.params.push_back(std::move(mp));
      if (st[p].kind == Tok::Comma) ++p;
    }
    r.valid = true;
    return;
  }
  if (d == ".rept") {
    start_recording(Recording::Kind::Rept, li, st);
    auto n = abs_expr(li, st, p, "the repeat count");
    if (!n) return;
    if (!expect_end(li, st, p)) return;
    if (*n < 0) return error(loc(li, st[1].col), "repeat count is negative (" + std::to_string(*n) + ")");
    rec_->reps = uint64_t(*n);
    return;
  }
  if (d == ".irp" || d == ".irpc") {
    start_recording(Recording::Kind::Irp, li, st);
    Recording& r = *rec_;
    if (st[p].kind != Tok::Identifier) return error(loc(li, st[p].col), "expected a symbol name after " + d);
    r.param = std::string(st[p].text);
    ++p;
    if (st[p].kind == Tok::Comma) ++p;
    std::vector<MacroArg> args;
    uint32_t err_col = 0;
    std::string err = split_macro_args(lines_[li], st, p, SIZE_MAX, false, args, &err_col);
    if (!err.empty()) return error(loc(li, err_col), err);
    // like llvm-mc: the list ends with its last non-empty value
    while (!args.empty() && args.back().value.empty()) args.pop_back();
    if (d == ".irp") {
      for (const auto& a : args) r.values.push_back(a.value);
    } else {
      if (args.size() > 1) return error(loc(li, args[1].col), "'.irpc' takes one string of characters");
      if (!args.empty())
        for (char c : args[0].value) r.values.emplace_back(1, c);
    }
    return;
  }
  if (d == ".endm" || d == ".endmacro") return error(here, "'" + d + "' without '.macro'");
  if (d == ".endr") return error(here, "'.endr' without '.rept' or '.irp'");
  if (d == ".exitm") {
    if (frames_.empty() || frames_.back().kind == Frame::Kind::File)
      return error(here, "'.exitm' outside of a macro");
    while (!conds_.empty() && conds_.back().frame_depth >= frames_.size()) conds_.pop_back();  // as llvm-mc
    frames_.pop_back();
    return;
  }
  if (d == ".purgem") {
    if (st[p].kind != Tok::Identifier) return error(loc(li, st[p].col), "expected a macro name after .purgem");
    auto m = macros_.find(st[p].text);
    if (m == macros_.end()) return error(loc(li, st[p].col), "macro '" + std::string(st[p].text) + "' is not defined");
    macros_.erase(m);
    ++p;
    expect_end(li, st, p);
    return;
  }
}

void Assembler::run_preprocessed() {
  pp_ = true;
  files_.emplace_back();
  SourceFile& main = files_.back();
  main.name = file_;
  main.text = src_;
  split_source(main.text, main.raw, main.clean, main.storage);
  file_index_[file_] = 0;
  push_file(0);
  PLine pl;
  while (!diags_.limit_reached() && next_line(pl)) {
    if (rec_) {
      record(pl);
      continue;
    }
    if (skipping()) {
      skipped_line(pl);
      continue;
    }
    statement(run_line(pl));
  }
  if (rec_ && !stop_) unterminated();
  if (!stop_)
    for (const Cond& c : conds_) {
      diag_li_ = c.li;
      error(loc(c.li, c.col), "'" + c.what + "' without '.endif' before the end of the file");
    }
  diag_li_ = SIZE_MAX;
}

}  // namespace k100::as::detail
