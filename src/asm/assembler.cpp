// The assembler driver: statements, labels, symbols, directives, two passes.
#include "k100/asm/assembler.h"

#include <array>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "expression.h"
#include "instruction_parser.h"
#include "k100/base/closest_match.h"
#include "lexer.h"
#include "preprocess.h"

namespace k100::as {

const Section* Program::section(std::string_view name) const {
  for (const auto& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}
Section* Program::section(std::string_view name) {
  for (auto& s : sections)
    if (s.name == name) return &s;
  return nullptr;
}
const Symbol* Program::symbol(std::string_view name) const {
  for (const auto& s : symbols)
    if (s.name == name) return &s;
  return nullptr;
}

namespace {

constexpr uint32_t kSNop = 0xbf800000u;

const char* const kDirectives[] = {
    ".text", ".data", ".rodata", ".section", ".globl", ".global", ".p2align", ".align", ".balign",
    ".byte", ".short", ".hword", ".2byte", ".value", ".long", ".int", ".4byte", ".quad", ".8byte",
    ".size", ".type", ".amdgcn_target", ".set", ".equ", ".ident", ".file", ".weak", ".local",
    ".hidden", ".protected", ".end", ".zero", ".skip", ".space", ".ascii", ".asciz", ".string",
    ".amdhsa_kernel", ".end_amdhsa_kernel", ".amdgpu_metadata", ".end_amdgpu_metadata",
    ".amdhsa_code_object_version", ".addrsig", ".addrsig_sym", ".k100_arg", ".k100_hidden_args",
    ".amd_amdgpu_isa", ".amdgpu_hsa_kernel", ".loc", ".cfi_sections", ".cfi_startproc",
    ".cfi_endproc", ".previous", ".include", ".macro", ".endm", ".endmacro", ".exitm", ".purgem", ".rept",
    ".irp", ".irpc", ".endr", ".if", ".ifne", ".ifeq", ".ifge", ".ifgt", ".ifle", ".iflt", ".ifdef",
    ".ifndef", ".ifnotdef", ".ifb", ".ifnb", ".ifc", ".ifnc", ".else", ".elseif", ".endif"};

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
  void expansion_notes() {
    if (!pp_ || diag_li_ >= origins_.size()) return;
    constexpr int kMaxNotes = 6;
    uint32_t e = origins_[diag_li_].expansion;
    int n = 0;
    for (; e && n < kMaxNotes; ++n) {
      const Expansion& x = expansions_[e];
      SourceLoc l = loc(x.li, x.col);
      diags_.report(Diagnostic{Severity::Note, l, "in expansion of " + x.what, line_text(l)});
      e = origins_[x.li].expansion;
    }
    int more = 0;
    for (; e; e = origins_[expansions_[e].li].expansion) ++more;
    if (more) diags_.report(Diagnostic{Severity::Note, {}, "... and " + std::to_string(more) + " outer expansions", {}});
  }

  void error(const SourceLoc& l, const std::string& msg) {
    diags_.error(l, msg, line_text(l));
    expansion_notes();
  }
  void warning(const SourceLoc& l, const std::string& msg) {
    diags_.warning(l, msg, line_text(l));
    expansion_notes();
  }

  Section& sec() { return prog_.sections[cur_section_index_]; }

  void switch_section(const std::string& name) {
    if (!prog_.section(name)) prog_.sections.push_back(Section{name, {}, 1});
    cur_section_ = name;
    cur_section_index_ = size_t(prog_.section(name) - prog_.sections.data());
  }

  Symbol& symbol(const std::string& name) {
    auto it = sym_index_.find(name);
    if (it != sym_index_.end()) return prog_.symbols[it->second];
    sym_index_[name] = prog_.symbols.size();
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

  // ---------------------------------------------------------- lines

  // ---------------------------------------------------------- statements

  void statement(size_t li) {
    std::string_view text = lines_[li];
    if (in_metadata_) {
      std::string_view t = text;
      size_t a = t.find_first_not_of(" \t\r");
      if (a != std::string::npos && t.substr(a).rfind(".end_amdgpu_metadata", 0) == 0) {
        in_metadata_ = false;
        return;
      }
      prog_.metadata_yaml += std::string(raw_lines_[li]) + "\n";
      return;
    }
    std::vector<Token>& toks = toks_;
    lex_line(text, toks);
    for (const auto& t : toks)
      if (t.kind == Tok::Error) {
        error(loc(li, t.col), "invalid token '" + std::string(t.text) + "'");
        return;
      }
    size_t p = 0;
    // labels (possibly several) at the start
    while (toks[p].kind == Tok::Identifier && toks[p + 1].kind == Tok::Colon) {
      define_label(std::string(toks[p].text), loc(li, toks[p].col));
      p += 2;
    }
    if (toks[p].kind == Tok::End) return;
    if (p) toks.erase(toks.begin(), toks.begin() + long(p));  // a label came first
    const std::vector<Token>& st = toks;
    if (st[0].kind != Tok::Identifier) {
      error(loc(li, st[0].col), "unexpected token at start of statement");
      return;
    }
    if (st[1].kind == Tok::Equal) {
      assignment(li, std::string(st[0].text), st, 2);
      return;
    }
    if (!macros_.empty()) {
      auto m = macros_.find(st[0].text);
      if (m != macros_.end()) {
        invoke_macro(li, m->second, st);
        return;
      }
    }
    if (st[0].text[0] == '.') {
      directive(li, std::string(st[0].text), st);
      return;
    }
    if (in_kernel_) {
      error(loc(li, st[0].col), "instructions are not allowed inside .amdhsa_kernel");
      return;
    }
    instruction(li, st);
  }

  void define_label(const std::string& name, const SourceLoc& l) {
    if (in_kernel_) {
      error(l, "labels are not allowed inside .amdhsa_kernel");
      return;
    }
    Symbol& s = symbol(name);
    if (s.is_label || s.loc.line) {
      std::string where = s.loc.file == l.file ? "line " + std::to_string(s.loc.line)
                                               : s.loc.file + ":" + std::to_string(s.loc.line);
      error(l, "invalid symbol redefinition: '" + name + "' (first defined at " + where + ")");
      return;
    }
    s.is_label = true;
    s.section = cur_section_;
    s.value = int64_t(sec().bytes.size());
    s.loc = l;
    ListingLine ll;
    ll.kind = ListingLine::Kind::Label;
    ll.text = name;
    ll.section = cur_section_;
    ll.offset = uint64_t(s.value);
    prog_.listing.push_back(ll);
  }

  void instruction(size_t li, const std::vector<Token>& st) {
    ParsedInstruction pi;
    ParseError err;
    if (!parser_.parse(st, pi, err)) {
      error(loc(li, err.col), err.message);
      return;
    }
    uint64_t off = sec().bytes.size();
    if (off % 4) warning(loc(li, st[0].col), "instruction is not 4-byte aligned");
    isa::encode_checked(pi.inst, sec().bytes, opts_.target);  // the parser ran isa::check()
    if (!opts_.listing && pi.fixups.empty()) return;
    size_t listing_index = SIZE_MAX;
    if (opts_.listing) {
      ListingLine ll;
      ll.kind = ListingLine::Kind::Instruction;
      ll.bytes.assign(sec().bytes.begin() + long(off), sec().bytes.end());
      ll.section = cur_section_;
      ll.offset = off;
      prog_.listing.push_back(std::move(ll));
      listing_index = prog_.listing.size() - 1;
    }
    PendingInst p{cur_section_, off, std::move(pi), listing_index, loc(li, st[0].col), li};
    pending_.push_back(std::move(p));
  }

  // ---------------------------------------------------------- pass 2

  void pass2() {
    pass2_ = true;
    for (auto& p : pending_) {
      auto& inst = p.parsed.inst;
      std::vector<std::string> override_text(isa::kMaxOperands);
      bool ok = true;
      diag_li_ = p.li;
      for (const auto& f : p.parsed.fixups) {
        SourceLoc l = loc(p.li, f.col);
        size_t pos = 0;
        auto r = parse_expression(f.expr, pos, [this](const std::string& n) { return lookup(n); });
        override_text[size_t(f.operand)] = f.text;
        if (!r.error.empty()) {
          error(l, r.error);
          ok = false;
          continue;
        }
        if (!r.value) {
          error(l, "undefined symbol '" + (r.undefined.empty() ? f.text : r.undefined[0]) + "'");
          ok = false;
          continue;
        }
        isa::Operand& o = inst.ops[size_t(f.operand)];
        if (f.kind == InstFixup::Kind::Branch) {
          if (r.value->absolute() || r.value->section != p.section) {
            error(l, "branch target must be a label in the same section");
            ok = false;
            continue;
          }
          int64_t delta = r.value->value - int64_t(p.offset + 4);
          if (delta % 4) {
            error(l, "branch target is not 4-byte aligned");
            ok = false;
            continue;
          }
          delta /= 4;
          if (delta < -32768 || delta > 32767) {
            error(l, "branch offset out of range (" + std::to_string(delta) + " dwords)");
            ok = false;
            continue;
          }
          o.value = uint32_t(int32_t(delta));
        } else {
          if (!r.value->absolute()) {
            error(l, "expected an absolute expression (no relocations in this assembler)");
            ok = false;
            continue;
          }
          int64_t v = r.value->value;
          if (v < -2147483648LL || v > 4294967295LL) {
            error(l, "value does not fit in 32 bits");
            ok = false;
            continue;
          }
          o.value = uint32_t(v);
          if (f.kind == InstFixup::Kind::Immediate && inst.specs()[size_t(f.operand)].type == isa::OpType::Uimm16) {
            if (v < -32768 || v > 65535) {
              error(l, "invalid immediate: only 16-bit values are legal");
              ok = false;
              continue;
            }
            o.value = uint32_t(v) & 0xffff;
          }
        }
      }
      ListingLine* ll = p.listing_index == SIZE_MAX ? nullptr : &prog_.listing[p.listing_index];
      if (ll) {
        isa::PrintOptions po;
        po.operand_text = override_text.data();
        ll->text = isa::print(inst, po);
      }
      if (!ok || p.parsed.fixups.empty()) continue;
      std::vector<uint8_t> bytes;
      try {
        isa::encode(inst, bytes, opts_.target);
      } catch (const std::exception& e) {
        error(p.loc, e.what());
        continue;
      }
      Section* s = prog_.section(p.section);
      std::memcpy(s->bytes.data() + p.offset, bytes.data(), bytes.size());
      if (!ll) continue;
      ll->bytes = bytes;
      ll->fixup_byte.assign(bytes.size(), false);
      for (const auto& f : p.parsed.fixups) {
        if (f.kind == InstFixup::Kind::Branch) {
          ll->fixup_byte[0] = ll->fixup_byte[1] = true;
          ll->fixup_note = "fixup A - offset: 0, value: " + f.text + ", kind: fixup_si_sopp_br";
        } else {
          size_t lit = bytes.size() - 4;
          for (size_t k = lit; k < bytes.size(); ++k) ll->fixup_byte[k] = true;
          ll->fixup_note = "fixup A - offset: " + std::to_string(lit) + ", value: " + f.text + ", kind: FK_Data_4";
        }
      }
    }
    for (auto& d : pending_data_) {
      diag_li_ = d.li;
      size_t pos = 0;
      auto r = parse_expression(d.expr, pos, [this](const std::string& n) { return lookup(n); });
      if (!r.error.empty() || !r.value) {
        error(d.loc, r.error.empty() ? "undefined symbol '" + (r.undefined.empty() ? std::string("?") : r.undefined[0]) + "'" : r.error);
        continue;
      }
      if (!r.value->absolute()) {
        error(d.loc, "expected an absolute expression (no relocations in this assembler)");
        continue;
      }
      Section* s = prog_.section(d.section);
      write_int(s->bytes, d.offset, d.size, r.value->value, d.loc);
    }
  }

  void finish_symbols() {
    // .set symbols defined late get their final value
    for (auto& [name, set] : deferred_sets_) {
      diag_li_ = set.li;
      size_t pos = 0;
      auto r = parse_expression(set.expr, pos, [this](const std::string& n) { return lookup(n); });
      if (!r.value) {
        error(set.loc, "cannot evaluate '" + name + "': " + (r.error.empty() ? "undefined symbol '" + (r.undefined.empty() ? std::string("?") : r.undefined[0]) + "'" : r.error));
        continue;
      }
      Symbol& s = symbol(name);
      s.value = r.value->value;
      s.section = r.value->section;
      s.loc = set.loc;
    }
    diag_li_ = SIZE_MAX;
    for (auto& s : prog_.symbols) {
      if (!s.is_label && s.loc.line == 0 && s.global)
        error(s.loc.line ? s.loc : SourceLoc{file_, 0, 0}, "undefined global symbol '" + s.name + "'");
    }
  }

  void write_int(std::vector<uint8_t>& out, uint64_t off, int size, int64_t v, const SourceLoc& l) {
    if (size < 8) {
      int64_t lo = -(int64_t(1) << (8 * size - 1)), hi = (int64_t(1) << (8 * size)) - 1;
      if (v < lo || v > hi) warning(l, "value " + std::to_string(v) + " truncated to " + std::to_string(size) + " bytes");
    }
    for (int i = 0; i < size; ++i) out[off + size_t(i)] = uint8_t(uint64_t(v) >> (8 * i));
  }

  // ---------------------------------------------------------- directives

  std::optional<int64_t> abs_expr(size_t li, const std::vector<Token>& st, size_t& p, const char* what) {
    uint32_t col = st[p].col;
    auto r = parse_expression(st, p, [this](const std::string& n) { return lookup(n); });
    if (!r.error.empty()) {
      error(loc(li, r.error_col), r.error);
      return std::nullopt;
    }
    if (!r.value) {
      error(loc(li, col), std::string("expected an absolute expression for ") + what + " (undefined symbol '" +
                              (r.undefined.empty() ? std::string("?") : r.undefined[0]) + "')");
      return std::nullopt;
    }
    if (!r.value->absolute()) {
      error(loc(li, col), std::string("expected an absolute expression for ") + what);
      return std::nullopt;
    }
    return r.value->value;
  }

  bool expect_end(size_t li, const std::vector<Token>& st, size_t p) {
    if (st[p].kind != Tok::End) {
      error(loc(li, st[p].col), "unexpected '" + std::string(st[p].text) + "' at end of directive");
      return false;
    }
    return true;
  }

  std::string name_arg(size_t li, const std::vector<Token>& st, size_t& p, const char* what) {
    if (st[p].kind == Tok::Identifier) return std::string(st[p++].text);
    if (st[p].kind == Tok::String) return string_value(st[p++]);
    error(loc(li, st[p].col), std::string("expected ") + what);
    return {};
  }

  void assignment(size_t li, const std::string& name, const std::vector<Token>& st, size_t p) {
    size_t start = p;
    auto r = parse_expression(st, p, [this](const std::string& n) { return lookup(n); });
    if (!r.error.empty()) {
      error(loc(li, r.error_col), r.error);
      return;
    }
    if (!expect_end(li, st, p)) return;
    Symbol& s = symbol(name);
    if (s.is_label) {
      error(loc(li, st[0].col), "invalid symbol redefinition: '" + name + "' is a label");
      return;
    }
    if (r.value) {
      s.value = r.value->value;
      s.section = r.value->section;
      s.loc = loc(li, st[0].col);
      deferred_sets_.erase(name);
      return;
    }
    // refers to something not yet defined: evaluate when used / at the end
    SetSymbol d;
    d.expr.assign(st.begin() + long(start), st.begin() + long(p));
    Token end;
    end.kind = Tok::End;
    d.expr.push_back(end);
    d.loc = loc(li, st[0].col);
    d.li = li;
    deferred_sets_[name] = d;
  }

  void align_to(uint64_t align, std::optional<int64_t> fill, uint64_t max_skip) {
    auto& b = sec().bytes;
    sec().alignment = std::max<uint32_t>(sec().alignment, uint32_t(align));
    uint64_t pad = (align - b.size() % align) % align;
    if (max_skip && pad > max_skip) return;
    bool code = cur_section_ == ".text" && !fill;
    while (pad) {
      if (code && pad % 4 == 0 && b.size() % 4 == 0) {
        for (int i = 0; i < 4; ++i) b.push_back(uint8_t(kSNop >> (8 * i)));
        pad -= 4;
      } else {
        b.push_back(uint8_t(fill.value_or(0)));
        --pad;
      }
    }
  }

  void data(size_t li, const std::vector<Token>& st, size_t p, int size) {
    while (st[p].kind != Tok::End) {
      uint32_t col = st[p].col;
      size_t start = p;
      auto r = parse_expression(st, p, [this](const std::string& n) { return lookup(n); });
      if (!r.error.empty()) {
        error(loc(li, r.error_col), r.error);
        return;
      }
      uint64_t off = sec().bytes.size();
      sec().bytes.resize(off + size_t(size));
      if (r.value && r.value->absolute()) {
        write_int(sec().bytes, off, size, r.value->value, loc(li, col));
      } else {
        PendingData d{cur_section_, off, size, {}, loc(li, col), li};
        d.expr.assign(st.begin() + long(start), st.begin() + long(p));
        Token end;
        end.kind = Tok::End;
        d.expr.push_back(end);
        pending_data_.push_back(std::move(d));
      }
      if (st[p].kind == Tok::Comma) ++p;
      else if (st[p].kind != Tok::End) {
        error(loc(li, st[p].col), "expected ',' between values");
        return;
      }
    }
  }

  void directive(size_t li, const std::string& d, const std::vector<Token>& st) {
    size_t p = 1;
    SourceLoc here = loc(li, st[0].col);
    if (in_kernel_ && d != ".end_amdhsa_kernel") {
      if (is_macro_directive(d)) macro_directive(li, d, st);
      else if (is_cond_directive(d)) cond_directive(li, d, st);
      else kernel_directive(li, d, st);
      return;
    }
    if (d == ".text" || d == ".data" || d == ".rodata") {
      switch_section(d);
      expect_end(li, st, p);
    } else if (d == ".section") {
      std::string name = name_arg(li, st, p, "a section name");
      if (name.empty()) return;
      while (st[p].kind != Tok::End) ++p;  // flags and types are accepted and ignored
      switch_section(name);
    } else if (d == ".previous") {
      switch_section(".text");
    } else if (d == ".globl" || d == ".global" || d == ".weak" || d == ".local" || d == ".hidden" ||
               d == ".protected") {
      while (st[p].kind != Tok::End) {
        std::string name = name_arg(li, st, p, "a symbol name");
        if (name.empty()) return;
        Symbol& s = symbol(name);
        if (d == ".globl" || d == ".global" || d == ".weak") s.global = true;
        if (d == ".local") s.global = false;
        if (d == ".hidden") s.visibility = "hidden";
        if (d == ".protected") s.visibility = "protected";
        if (!s.loc.line && !s.is_label) s.loc = SourceLoc{};
        if (st[p].kind == Tok::Comma) ++p;
      }
    } else if (d == ".p2align" || d == ".align" || d == ".balign") {
      auto v = abs_expr(li, st, p, "the alignment");
      if (!v) return;
      std::optional<int64_t> fill;
      int64_t max_skip = 0;
      if (st[p].kind == Tok::Comma) {
        ++p;
        if (st[p].kind != Tok::Comma) {
          auto f = abs_expr(li, st, p, "the fill value");
          if (!f) return;
          fill = *f;
        }
        if (st[p].kind == Tok::Comma) {
          ++p;
          auto m = abs_expr(li, st, p, "the maximum skip");
          if (!m) return;
          max_skip = *m;
        }
      }
      if (!expect_end(li, st, p)) return;
      uint64_t align;
      if (d == ".p2align") {
        if (*v < 0 || *v > 16) return error(here, "invalid alignment value");
        align = uint64_t(1) << *v;
      } else {
        if (*v <= 0 || (*v & (*v - 1))) return error(here, "alignment must be a power of 2");
        align = uint64_t(*v);
      }
      align_to(align, fill, uint64_t(max_skip));
    } else if (d == ".byte") {
      data(li, st, p, 1);
    } else if (d == ".short" || d == ".hword" || d == ".2byte" || d == ".value") {
      data(li, st, p, 2);
    } else if (d == ".long" || d == ".int" || d == ".4byte") {
      data(li, st, p, 4);
    } else if (d == ".quad" || d == ".8byte") {
      data(li, st, p, 8);
    } else if (d == ".zero" || d == ".skip" || d == ".space") {
      auto n = abs_expr(li, st, p, "the size");
      if (!n) return;
      int64_t fill = 0;
      if (st[p].kind == Tok::Comma) {
        ++p;
        auto f = abs_expr(li, st, p, "the fill value");
        if (!f) return;
        fill = *f;
      }
      if (!expect_end(li, st, p)) return;
      if (*n < 0 || *n > (int64_t(1) << 30)) return error(here, "invalid size");
      sec().bytes.insert(sec().bytes.end(), size_t(*n), uint8_t(fill));
    } else if (d == ".ascii" || d == ".asciz" || d == ".string") {
      while (st[p].kind == Tok::String) {
        std::string str = string_value(st[p]);
        sec().bytes.insert(sec().bytes.end(), str.begin(), str.end());
        if (d != ".ascii") sec().bytes.push_back(0);
        ++p;
        if (st[p].kind == Tok::Comma) ++p;
      }
      expect_end(li, st, p);
    } else if (d == ".set" || d == ".equ") {
      if (st[p].kind != Tok::Identifier) return error(loc(li, st[p].col), "expected a symbol name");
      std::string name(st[p].text);
      ++p;
      if (st[p].kind != Tok::Comma) return error(loc(li, st[p].col), "expected ','");
      ++p;
      std::vector<Token> copy(st);
      assignment(li, name, copy, p);
    } else if (d == ".size") {
      std::string name = name_arg(li, st, p, "a symbol name");
      if (name.empty()) return;
      if (st[p].kind != Tok::Comma) return error(loc(li, st[p].col), "expected ','");
      ++p;
      auto r = parse_expression(st, p, [this](const std::string& n) { return lookup(n); });
      if (!r.error.empty()) return error(loc(li, r.error_col), r.error);
      if (!expect_end(li, st, p)) return;
      Symbol& s = symbol(name);
      if (r.value && r.value->absolute()) s.size = r.value->value;
      else if (r.value) return error(here, ".size expression must be absolute");
      else {
        // forward reference (e.g. .Lfunc_end0 - foo written before .Lfunc_end0): defer
        PendingSize ps{name, std::vector<Token>(st.begin() + 3, st.begin() + long(p)), here, li};
        Token end;
        end.kind = Tok::End;
        ps.expr.push_back(end);
        pending_sizes_.push_back(ps);
      }
    } else if (d == ".type") {
      std::string name = name_arg(li, st, p, "a symbol name");
      if (name.empty()) return;
      if (st[p].kind == Tok::Comma) ++p;
      std::string type;
      if (st[p].kind == Tok::Identifier) type = std::string(st[p].text);
      else if (st[p].kind == Tok::String) type = string_value(st[p]);
      else if (st[p].kind == Tok::Percent || st[p].kind == Tok::Error) type = std::string(st[p + 1].text);
      if (!type.empty() && type[0] == '@') type = type.substr(1);
      if (type != "function" && type != "object" && type != "notype" && type != "STT_FUNC" &&
          type != "STT_OBJECT" && type != "gnu_indirect_function")
        return error(loc(li, st[p].col), "unsupported symbol type '" + type + "' (expected @function or @object)");
      symbol(name).type = (type == "STT_FUNC") ? "function" : (type == "STT_OBJECT") ? "object" : type;
    } else if (d == ".amdgcn_target") {
      if (st[p].kind != Tok::String) return error(loc(li, st[p].col), "expected a quoted target id");
      prog_.amdgcn_target = string_value(st[p]);
      ++p;
      expect_end(li, st, p);
    } else if (d == ".amdhsa_code_object_version") {
      auto v = abs_expr(li, st, p, "the version");
      if (!v) return;
      if (*v < 2 || *v > 5) return error(here, "unsupported code object version " + std::to_string(*v));
      prog_.code_object_version = int(*v);
    } else if (d == ".amdhsa_kernel") {
      std::string name = name_arg(li, st, p, "a kernel name");
      if (name.empty()) return;
      expect_end(li, st, p);
      KernelDirectives k;
      k.name = name;
      k.loc = here;
      prog_.kernels.push_back(k);
      in_kernel_ = true;
      kernel_start_ = here;
    } else if (d == ".end_amdhsa_kernel") {
      if (!in_kernel_) return error(here, ".end_amdhsa_kernel without .amdhsa_kernel");
      in_kernel_ = false;
    } else if (d == ".amdgpu_metadata") {
      if (!prog_.metadata_yaml.empty()) return error(here, "only one .amdgpu_metadata block is allowed");
      in_metadata_ = true;
      metadata_start_ = here;
      prog_.metadata_loc = here;
    } else if (d == ".end_amdgpu_metadata") {
      error(here, ".end_amdgpu_metadata without .amdgpu_metadata");
    } else if (d == ".ident" || d == ".file" || d == ".end" || d == ".addrsig" || d == ".addrsig_sym" ||
               d == ".loc" || d == ".cfi_sections" || d == ".cfi_startproc" || d == ".cfi_endproc" ||
               d == ".amd_amdgpu_isa" || d == ".amdgpu_hsa_kernel") {
      // accepted for compatibility with compiler output; no effect here
    } else if (d == ".k100_arg" || d == ".k100_hidden_args") {
      error(here, std::string(d) + " is only allowed inside .amdhsa_kernel");
    } else if (is_macro_directive(d)) {
      macro_directive(li, d, st);
    } else if (is_cond_directive(d)) {
      cond_directive(li, d, st);
    } else {
      std::vector<std::string> names(std::begin(kDirectives), std::end(kDirectives));
      std::string near = closest_match(d, names);
      error(here, "unknown directive '" + d + "'" + (near.empty() ? "" : ", did you mean '" + near + "'?"));
    }
  }

  void kernel_directive(size_t li, const std::string& d, const std::vector<Token>& st) {
    KernelDirectives& k = prog_.kernels.back();
    size_t p = 1;
    SourceLoc here = loc(li, st[0].col);
    if (d == ".k100_arg") {
      // .k100_arg NAME, KIND, TYPE[, ACCESS]
      KernelDirectives::Arg a;
      a.loc = here;
      std::vector<std::string> parts;
      while (st[p].kind != Tok::End) {
        std::string part;
        while (st[p].kind != Tok::Comma && st[p].kind != Tok::End) {
          if (!part.empty() && st[p].space_before) part += ' ';  // "const f32*"
          part += std::string(st[p].text);
          ++p;
        }
        parts.push_back(part);
        if (st[p].kind == Tok::Comma) ++p;
      }
      if (parts.size() < 3 || parts.size() > 4)
        return error(here, ".k100_arg expects NAME, KIND, TYPE[, ACCESS] (e.g. .k100_arg x, global_buffer, f32*, read_only)");
      a.name = parts[0];
      a.value_kind = parts[1];
      a.type_name = parts[2];
      if (parts.size() == 4) a.access = parts[3];
      k.args.push_back(a);
      return;
    }
    if (d == ".k100_hidden_args") {
      if (st[p].kind != Tok::Identifier) return error(loc(li, st[p].col), "expected none, full or compact");
      k.hidden_layout = std::string(st[p].text);
      if (k.hidden_layout != "none" && k.hidden_layout != "full" && k.hidden_layout != "compact")
        return error(loc(li, st[p].col), "expected none, full or compact");
      return;
    }
    if (d.rfind(".amdhsa_", 0) != 0)
      return error(here, "unexpected directive '" + d + "' inside .amdhsa_kernel (expected .amdhsa_* settings)");
    auto v = abs_expr(li, st, p, d.c_str());
    if (!v) return;
    if (!expect_end(li, st, p)) return;
    k.settings.emplace_back(d, *v);
    k.setting_locs.push_back(here);
  }

  // ---------------------------------------------------------- macros and includes

  static bool is_macro_directive(const std::string& d) {
    return d == ".include" || d == ".macro" || d == ".endm" || d == ".endmacro" || d == ".exitm" ||
           d == ".purgem" || d == ".rept" || d == ".irp" || d == ".irpc" || d == ".endr";
  }

  // ---------------------------------------------------------- conditionals

  static bool is_cond_directive(std::string_view d) {
    if (d.size() < 3 || d[0] != '.') return false;
    if (d[1] == 'e') return d == ".else" || d == ".elseif" || d == ".endif";
    if (d[1] != 'i' || d[2] != 'f') return false;
    static const char* const kIfs[] = {".if",     ".ifne",     ".ifeq", ".ifge", ".ifgt", ".ifle", ".iflt", ".ifdef",
                                       ".ifndef", ".ifnotdef", ".ifb",  ".ifnb", ".ifc",  ".ifnc"};
    for (const char* n : kIfs)
      if (d == n) return true;
    return false;
  }

  bool skipping() const { return !conds_.empty() && !conds_.back().active; }

  std::string cond_origin(const Cond& c) const {
    SourceLoc l = loc(c.li, c.col);
    return l.file + ":" + std::to_string(l.line);
  }

  // A line inside a skipped region: only conditional directives are looked at
  // (to keep track of the nesting); everything else is dropped unparsed.
  void skipped_line(const PLine& pl) {
    std::string_view w = first_word(pl.text);
    if (!is_cond_directive(w)) return;
    size_t li = run_line(pl);
    lex_line(lines_[li], toks_);
    cond_directive(li, std::string(w), toks_);
  }

  void cond_directive(size_t li, const std::string& d, const std::vector<Token>& st) {
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
  std::optional<bool> if_condition(size_t li, const std::string& d, const std::vector<Token>& st) {
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
  void end_of_frame_conds(const Frame& f) {
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
  std::optional<uint32_t> load_file(const std::string& path) {
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

  void push_file(uint32_t index) {
    const SourceFile& sf = files_[index];
    Frame f;
    f.kind = Frame::Kind::File;
    f.lines.reserve(sf.clean.size());
    for (size_t i = 0; i < sf.clean.size(); ++i) f.lines.push_back({sf.clean[i], sf.raw[i], {index, uint32_t(i + 1), 0, 0}});
    frames_.push_back(std::move(f));
  }

  int depth_of(bool files) const {
    int n = 0;
    for (const Frame& f : frames_) n += (f.kind == Frame::Kind::File) == files;
    return n;
  }

  // `body` with the substitutions made, as lines of expansion `expansion`.
  std::vector<PLine> expand(const std::vector<PLine>& body, const std::vector<std::string_view>& names,
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

  uint32_t new_expansion(std::string what, size_t li, uint32_t col) {
    expansions_.push_back(Expansion{std::move(what), li, col});
    return uint32_t(expansions_.size() - 1);
  }

  // The next line to run (or to record), from the innermost file or expansion.
  bool next_line(PLine& out) {
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

  void fill_irp(Frame& f) {
    std::vector<std::string_view> names{f.param}, values{f.values[f.iter]};
    f.lines = expand(f.body, names, values, true, f.at, f.expansion);
    f.pos = 0;
  }

  void unterminated() {
    Recording r = std::move(*rec_);
    rec_.reset();
    diag_li_ = r.li;
    const char* what = r.kind == Recording::Kind::Macro ? "'.macro' without '.endm'" :
                       r.kind == Recording::Kind::Rept ? "'.rept' without '.endr'" : "'.irp' without '.endr'";
    bool in_expansion = !frames_.empty() && frames_.back().kind != Frame::Kind::File;
    error(loc(r.li, r.col), std::string(what) + " before the end of the " + (in_expansion ? "expansion" : "file"));
  }

  size_t run_line(const PLine& pl) {
    size_t li = lines_.size();
    lines_.push_back(pl.text);
    raw_lines_.push_back(pl.raw);
    origins_.push_back(pl.origin);
    diag_li_ = li;
    return li;
  }

  // A line of a .macro/.rept/.irp body; the matching .endm/.endr ends it.
  void record(const PLine& pl) {
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
  bool charge_expansion(uint64_t count, uint64_t lines, const SourceLoc& where) {
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

  void start_recording(Recording::Kind kind, size_t li, const std::vector<Token>& st) {
    rec_ = Recording{};
    rec_->kind = kind;
    rec_->li = li;
    rec_->col = st[0].col;
    rec_->frame_depth = frames_.size();
  }

  void invoke_macro(size_t li, const Macro& m, const std::vector<Token>& st) {
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

  void macro_directive(size_t li, const std::string& d, const std::vector<Token>& st) {
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

  void run_preprocessed() {
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

  struct PendingSize {
    std::string name;
    std::vector<Token> expr;
    SourceLoc loc;
    size_t li;
  };
  std::vector<PendingSize> pending_sizes_;

 public:
  void resolve_sizes() {
    for (auto& ps : pending_sizes_) {
      diag_li_ = ps.li;
      size_t pos = 0;
      auto r = parse_expression(ps.expr, pos, [this](const std::string& n) { return lookup(n); });
      if (!r.value || !r.value->absolute()) {
        error(ps.loc, ".size expression cannot be evaluated");
        continue;
      }
      symbol(ps.name).size = r.value->value;
    }
  }
  Program take() { return std::move(prog_); }
  Program run_all() {
    switch_section(".text");
    for (const auto& [name, value] : opts_.predefined_symbols) {
      Symbol& sym = symbol(name);
      sym.value = value;
      sym.loc = SourceLoc{"<command line>", 1, 1};
    }
    if (needs_preprocessing(src_)) {
      run_preprocessed();
    } else {
      split_source(src_, raw_lines_, lines_, cleaned_);
      for (size_t i = 0; i < lines_.size() && !diags_.limit_reached(); ++i) statement(i);
    }
    if (in_kernel_) error(kernel_start_, "missing .end_amdhsa_kernel");
    if (in_metadata_) error(metadata_start_, "missing .end_amdgpu_metadata");
    pass2();
    finish_symbols();
    resolve_sizes();
    return std::move(prog_);
  }
};

}  // namespace

Program assemble(std::string_view source, const std::string& filename, const Options& options,
                 DiagnosticSink& diags) {
  Assembler a(source, filename, options, diags);
  return a.run_all();
}

}  // namespace k100::as
