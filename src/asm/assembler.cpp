// The assembler driver: statements, labels, instructions, the second pass
// (fixups, deferred data and symbols) and the entry point. Directives are in
// directives.cpp, the macro language in macro_expansion.cpp; the state they
// share is assembler_state.h.
#include "k100/asm/assembler.h"

#include <cstring>

#include "assembler_state.h"

namespace k100::as {

std::string default_section_flags(std::string_view name) {
  auto kind = [&](std::string_view base) { return name == base || name.rfind(std::string(base) + ".", 0) == 0; };
  if (kind(".text")) return "ax";
  if (kind(".rodata")) return "a";
  if (kind(".data") || kind(".bss")) return "aw";
  return "";
}

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

namespace detail {

// Notes naming the expansions (innermost first) the line diag_li_ came from.
void Assembler::expansion_notes() {
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

void Assembler::statement(size_t li) {
  std::string_view text = lines_[li];
  if (in_metadata_) {
    std::string_view t = text;
    size_t a = t.find_first_not_of(" \t\r");
    if (a != std::string::npos && t.substr(a).rfind(".end_amdgpu_metadata", 0) == 0) {
      in_metadata_ = false;
      list_directive("\t.end_amdgpu_metadata");
      return;
    }
    prog_.metadata_yaml += std::string(raw_lines_[li]) + "\n";
    list_directive(std::string(raw_lines_[li]));  // the YAML document as written
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
    list_statement(text, st[0].col);
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
    const std::string d(st[0].text);
    // the listing repeats what the object depends on: everything but the macro language
    // (already expanded) and .amdgcn_target (the listing's header states the target)
    if (!is_macro_directive(d) && !is_cond_directive(d) && d != ".amdgcn_target") list_statement(text, st[0].col);
    directive(li, d, st);
    return;
  }
  if (in_kernel_) {
    error(loc(li, st[0].col), "instructions are not allowed inside .amdhsa_kernel");
    return;
  }
  instruction(li, st);
}

void Assembler::define_label(const std::string& name, const SourceLoc& l) {
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

void Assembler::instruction(size_t li, const std::vector<Token>& st) {
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
  PendingInst p{cur_section_, off, std::move(pi), listing_index, loc(li, st[0].col), li, sec().bytes.size() - off};
  pending_.push_back(std::move(p));
}

void Assembler::pass2() {
  pass2_ = true;
  for (auto& p : pending_) {
    auto& inst = p.parsed.inst;
    std::vector<std::string> override_text(isa::kMaxOperands);
    bool ok = true;
    diag_li_ = p.li;
    for (const auto& f : p.parsed.fixups) {
      SourceLoc l = loc(p.li, f.col);
      size_t pos = 0;
      // sym@rel32@lo / sym@rel32@hi (clang's PC-relative addresses after s_getpc_b64):
      // the halves of S + A - P, P the address of this literal
      std::vector<Token> expr = f.expr;
      std::optional<bool> rel32_high;
      for (Token& t : expr) {
        if (t.kind != Tok::Identifier) continue;
        for (bool high : {false, true}) {
          std::string_view suffix = high ? "@rel32@hi" : "@rel32@lo";
          if (t.text.size() > suffix.size() && t.text.substr(t.text.size() - suffix.size()) == suffix) {
            if (rel32_high) {
              error(l, "only one @rel32 symbol per expression");
              ok = false;
            }
            rel32_high = high;
            t.text = t.text.substr(0, t.text.size() - suffix.size());
          }
        }
      }
      auto r = parse_expression(expr, pos, [this](const std::string& n) { return lookup(n); });
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
      } else if (rel32_high) {
        if (f.kind != InstFixup::Kind::Literal || r.value->absolute()) {
          error(l, "@rel32@lo/@rel32@hi needs a symbol in a literal operand");
          ok = false;
          continue;
        }
        const uint64_t at = p.offset + p.size - 4;  // the literal's offset in its section
        isa::Operand& lit = inst.ops[size_t(f.operand)];
        if (r.value->section == p.section) {
          int64_t delta = r.value->value - int64_t(at);
          lit.value = uint32_t(uint64_t(delta) >> (*rel32_high ? 32 : 0));
        } else if (p.section == ".text") {
          // the distance depends on where the file's layout puts the other section
          prog_.text_references.push_back({at, r.value->section, r.value->value, *rel32_high, l});
          lit.value = 0;
        } else {
          error(l, "@rel32 references are only supported from .text");
          ok = false;
          continue;
        }
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

void Assembler::finish_symbols() {
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

void Assembler::write_int(std::vector<uint8_t>& out, uint64_t off, int size, int64_t v, const SourceLoc& l) {
  if (size < 8) {
    int64_t lo = -(int64_t(1) << (8 * size - 1)), hi = (int64_t(1) << (8 * size)) - 1;
    if (v < lo || v > hi) warning(l, "value " + std::to_string(v) + " truncated to " + std::to_string(size) + " bytes");
  }
  for (int i = 0; i < size; ++i) out[off + size_t(i)] = uint8_t(uint64_t(v) >> (8 * i));
}

void Assembler::resolve_sizes() {
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

Program Assembler::run_all() {
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

}  // namespace detail

Program assemble(std::string_view source, const std::string& filename, const Options& options,
                 DiagnosticSink& diags) {
  detail::Assembler a(source, filename, options, diags);
  return a.run_all();
}

}  // namespace k100::as
