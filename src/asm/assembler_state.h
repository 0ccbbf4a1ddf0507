// The assembler's state while it runs (private to src/asm): the statements
// and labels of the driver (assembler.cpp), the directives (directives.cpp)
// and the macro language - includes, macros, repetitions, conditionals
// (macro_expansion.cpp) - work on one Assembler.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "expression.h"
#include "instruction_parser.h"
#include "k100/asm/assembler.h"
#include "lexer.h"
#include "preprocess.h"

namespace k100::as::detail {

constexpr uint32_t kSNop = 0xbf800000u;

// Limits of the macro language: nested .include files, nested expansions
// (macros, .rept, .irp; llvm-mc's default), and lines produced by expansions.
constexpr int kMaxIncludeDepth = 32;
constexpr int kMaxExpansionDepth = 20;
constexpr uint64_t kMaxExpandedLines = uint64_t(1) << 22;

struct PendingInst {
  std::string section;
  uint64_t offset;
  ParsedInstruction parsed;
  size_t listing_index;
  SourceLoc loc;
  size_t li;  // the statement's line (index of the executed lines)
  size_t size = 0;  // encoded bytes (a literal fixup's literal is the last 4)
};

struct PendingData {
  std::string section;
  uint64_t offset;
  int size;
  std::vector<Token> expr;
  SourceLoc loc;
  size_t li;
};

struct SetSymbol {
  std::vector<Token> expr;
  std::string section;  // where '.' referred to
  uint64_t dot = 0;
  SourceLoc loc;
  std::string line;
  size_t li = SIZE_MAX;
};

class Assembler {
 public:
  Assembler(std::string_view source, const std::string& filename, const Options& opts, DiagnosticSink& diags)
      : src_(source), file_(filename), opts_(opts), diags_(diags),
        parser_(opts.target, [this](const std::string& n) { return lookup(n); }) {}

 private:
  std::string_view src_;
  std::string file_;
  Options opts_;
  DiagnosticSink& diags_;
  InstructionParser parser_;
  Program prog_;
  std::vector<std::string_view> lines_;      // comments blanked out (views into src_ or cleaned_)
  std::vector<std::string_view> raw_lines_;  // views into src_
  std::deque<std::string> cleaned_;          // storage of the lines that had comments
  std::vector<Token> toks_;                  // the current statement's tokens (reused)
  std::string cur_section_;
  size_t cur_section_index_ = 0;  // index of cur_section_ in prog_.sections
  std::unordered_map<std::string, size_t> sym_index_;
  std::unordered_map<std::string, SetSymbol> deferred_sets_;
  std::vector<PendingInst> pending_;
  std::vector<PendingData> pending_data_;
  bool in_kernel_ = false, in_metadata_ = false;
  SourceLoc kernel_start_, metadata_start_;
  bool pass2_ = false;
  int set_depth_ = 0;

  // ---- the macro language (only used when the source has .macro, .rept,
  // .irp, .irpc, .include or .if-family conditionals: `pp_`). Then
  // lines_/raw_lines_ hold the executed lines in order, and origins_ where
  // each one was written.
  struct Origin {
    uint32_t file = 0;       // index into files_
    uint32_t line = 0;       // 1-based line in that file
    uint32_t expansion = 0;  // index into expansions_, 0 = not expanded
    uint32_t colmap = 0;     // index into colmaps_, 0 = columns as written
  };
  struct PLine {
    std::string_view text, raw;  // comments blanked / as written
    Origin origin;
  };
  struct SourceFile {
    std::string name;
    std::string owned;
    std::string_view text;
    std::vector<std::string_view> raw, clean;
    std::deque<std::string> storage;
  };
  struct Expansion {
    std::string what;  // "macro 'name'", ".rept", ...
    size_t li;         // the executed line that started it
    uint32_t col;
  };
  struct ColumnMap {
    std::vector<ColumnSegment> segments;
    uint32_t parent = 0;  // the map of the line the substituted line was made from
  };
  struct Macro {
    std::string name;
    std::vector<MacroParam> params;
    std::vector<PLine> body;
  };
  struct Frame {
    enum class Kind { File, Macro, Rept, Irp } kind = Kind::File;
    std::vector<PLine> lines;
    size_t pos = 0;
    uint64_t reps = 1, iter = 0;      // Rept: count; Irp: values.size()
    std::vector<std::string> values;  // Irp: one per iteration
    std::string param;                // Irp
    std::vector<PLine> body;          // Irp: the body before substitution
    uint32_t expansion = 0;
    uint64_t at = 0;                  // Irp: the value of \@
  };
  struct Recording {
    enum class Kind { Macro, Rept, Irp } kind = Kind::Macro;
    size_t li = 0;  // the .macro/.rept/.irp line
    uint32_t col = 1;
    size_t frame_depth = 0;
    int depth = 0;  // nested definitions of the same kind
    bool valid = true;
    Macro macro;
    uint64_t reps = 0;
    std::string param;
    std::vector<std::string> values;
    std::vector<PLine> body;
  };
  bool pp_ = false;
  std::deque<SourceFile> files_;
  std::unordered_map<std::string, uint32_t> file_index_;
  std::vector<Origin> origins_;
  std::vector<Expansion> expansions_{Expansion{}};
  std::vector<ColumnMap> colmaps_{ColumnMap{}};
  std::map<std::string, Macro, std::less<>> macros_;
  std::vector<Frame> frames_;
  std::optional<Recording> rec_;
  std::deque<std::string> expanded_text_;
  uint64_t macro_count_ = 0;  // \@: macro expansions so far
  uint64_t expanded_lines_ = 0;
  bool stop_ = false;
  // Open conditionals (.if ... .endif), innermost last.
  struct Cond {
    size_t li = 0;  // the .if line
    uint32_t col = 1;
    std::string what;          // the directive that opened it
    size_t frame_depth = 0;    // frames_.size() when it was opened
    bool outer_skip = false;   // inside a skipped region: no branch runs
    bool met = false;          // a branch has run (or been chosen)
    bool in_else = false;      // after .else
    bool active = false;       // the lines of the current branch run
  };
  std::vector<Cond> conds_;
  size_t diag_li_ = SIZE_MAX;  // the executed line whose expansions the next diagnostics note

  // ---------------------------------------------------------- helpers

  SourceLoc loc(size_t line, uint32_t col) const {
    if (!pp_) return {file_, uint32_t(line + 1), col ? col : 1};
    const Origin& o = origins_[line];
    uint32_t c = col ? col : 1;
    for (uint32_t m = o.colmap; m; m = colmaps_[m].parent) c = map_column(colmaps_[m].segments, c);
    return {files_[o.file].name, o.line, c};
  }

  std::string line_text(const SourceLoc& l) const {
    if (!l.line) return {};
    if (!pp_) return l.line <= raw_lines_.size() ? std::string(raw_lines_[l.line - 1]) : std::string();
    auto it = file_index_.find(l.file);
    if (it == file_index_.end()) return {};
    const SourceFile& f = files_[it->second];
    return l.line <= f.raw.size() ? std::string(f.raw[l.line - 1]) : std::string();
  }

  // Notes naming the expansions (innermost first) the line diag_li_ came from.
  void expansion_notes();

  void error(const SourceLoc& l, const std::string& msg) {
    diags_.error(l, msg, line_text(l));
    expansion_notes();
  }
  void warning(const SourceLoc& l, const std::string& msg) {
    diags_.warning(l, msg, line_text(l));
    expansion_notes();
  }

  Section& sec() { return prog_.sections[cur_section_index_]; }

  // A directive line of the listing (Options::listing), printed as it is.
  void list_directive(std::string text) {
    if (!opts_.listing) return;
    ListingLine ll;
    ll.kind = ListingLine::Kind::Directive;
    ll.text = std::move(text);
    ll.section = cur_section_;
    ll.offset = sec().bytes.size();
    prog_.listing.push_back(std::move(ll));
  }
  // The statement of `line` from column `col` (1-based) on, tab-indented.
  void list_statement(std::string_view line, uint32_t col) {
    if (!opts_.listing) return;
    std::string_view s = line.substr(std::min<size_t>(col ? col - 1 : 0, line.size()));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
    list_directive("\t" + std::string(s));
  }

  void switch_section(const std::string& name) {
    if (!prog_.section(name)) prog_.sections.push_back(Section{name, {}, 1, default_section_flags(name)});
    cur_section_ = name;
    cur_section_index_ = size_t(prog_.section(name) - prog_.sections.data());
  }

  Symbol& symbol(const std::string& name) {
    auto it = sym_index_.find(name);
    if (it != sym_index_.end()) return prog_.symbols[it->second];
    sym_index_[name] = prog_.symbols.size();
    prog_.symbol_order.push_back(name);
    Symbol sym;
    sym.name = name;
    prog_.symbols.push_back(std::move(sym));
    return prog_.symbols.back();
  }
  bool defined(const std::string& name) const {
    auto it = sym_index_.find(name);
    if (it == sym_index_.end()) return false;
    const Symbol& s = prog_.symbols[it->second];
    return s.is_label || s.loc.line != 0;
  }

  std::optional<ExprValue> lookup(const std::string& name) {
    if (name == ".") return ExprValue{int64_t(sec().bytes.size()), cur_section_};
    auto it = sym_index_.find(name);
    if (it != sym_index_.end()) {
      const Symbol& s = prog_.symbols[it->second];
      if (s.is_label) return ExprValue{s.value, s.section};
      if (s.loc.line != 0) return ExprValue{s.value, s.section};
    }
    // a .set whose expression could not be evaluated when it was seen
    auto d = deferred_sets_.find(name);
    if (d != deferred_sets_.end() && set_depth_ < 64) {
      ++set_depth_;
      size_t pos = 0;
      auto r = parse_expression(d->second.expr, pos, [this](const std::string& n) { return lookup(n); });
      --set_depth_;
      if (r.value) return r.value;
    }
    return std::nullopt;
  }

  // ---------------------------------------------------------- statements

  void statement(size_t li);
  void define_label(const std::string& name, const SourceLoc& l);
  void instruction(size_t li, const std::vector<Token>& st);

  // ---------------------------------------------------------- pass 2

  void pass2();
  void finish_symbols();
  void write_int(std::vector<uint8_t>& out, uint64_t off, int size, int64_t v, const SourceLoc& l);

  // ---------------------------------------------------------- directives

  std::optional<int64_t> abs_expr(size_t li, const std::vector<Token>& st, size_t& p, const char* what);
  bool expect_end(size_t li, const std::vector<Token>& st, size_t p);
  std::string name_arg(size_t li, const std::vector<Token>& st, size_t& p, const char* what);
  void assignment(size_t li, const std::string& name, const std::vector<Token>& st, size_t p);
  void align_to(uint64_t align, std::optional<int64_t> fill, uint64_t max_skip);
  void data(size_t li, const std::vector<Token>& st, size_t p, int size);
  void directive(size_t li, const std::string& d, const std::vector<Token>& st);
  void kernel_directive(size_t li, const std::string& d, const std::vector<Token>& st);

  // ---------------------------------------------------------- macros and includes

  static bool is_macro_directive(const std::string& d);

  // ---------------------------------------------------------- conditionals

  static bool is_cond_directive(std::string_view d);

  bool skipping() const { return !conds_.empty() && !conds_.back().active; }

  std::string cond_origin(const Cond& c) const;

  // A line inside a skipped region: only conditional directives are looked at
  // (to keep track of the nesting); everything else is dropped unparsed.
  void skipped_line(const PLine& pl);
  void cond_directive(size_t li, const std::string& d, const std::vector<Token>& st);

  // The condition of an .if-family directive, or nullopt after an error.
  std::optional<bool> if_condition(size_t li, const std::string& d, const std::vector<Token>& st);

  // The end of a file or of one pass over an expansion's lines. Conditionals
  // opened in an included file may be closed by the file that included it
  // (as llvm-mc allows); those opened in an expansion must end in it.
  void end_of_frame_conds(const Frame& f);

  // The file `path` (loaded once), or nullopt when it cannot be read.
  std::optional<uint32_t> load_file(const std::string& path);
  void push_file(uint32_t index);

  int depth_of(bool files) const;

  // `body` with the substitutions made, as lines of expansion `expansion`.
  std::vector<PLine> expand(const std::vector<PLine>& body, const std::vector<std::string_view>& names,
                            const std::vector<std::string_view>& values, bool at_enabled, uint64_t at,
                            uint32_t expansion);
  uint32_t new_expansion(std::string what, size_t li, uint32_t col);

  // The next line to run (or to record), from the innermost file or expansion.
  bool next_line(PLine& out);
  void fill_irp(Frame& f);
  void unterminated();
  size_t run_line(const PLine& pl);

  // A line of a .macro/.rept/.irp body; the matching .endm/.endr ends it.
  void record(const PLine& pl);

  // Counts the lines an expansion will produce (all of its repetitions at
  // once), against kMaxExpandedLines; past it, assembly stops with an error.
  bool charge_expansion(uint64_t count, uint64_t lines, const SourceLoc& where);
  void start_recording(Recording::Kind kind, size_t li, const std::vector<Token>& st);
  void invoke_macro(size_t li, const Macro& m, const std::vector<Token>& st);
  void macro_directive(size_t li, const std::string& d, const std::vector<Token>& st);
  void run_preprocessed();

  struct PendingSize {
    std::string name;
    std::vector<Token> expr;
    SourceLoc loc;
    size_t li;
  };
  std::vector<PendingSize> pending_sizes_;

 public:
  void resolve_sizes();
  Program take() { return std::move(prog_); }
  Program run_all();
};

}  // namespace k100::as::detail
