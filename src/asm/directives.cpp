// Directives: sections, symbols, alignment, data, .set, and the
// .amdhsa_kernel block.
#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "assembler_state.h"
#include "k100/base/closest_match.h"

namespace k100::as::detail {

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


std::optional<int64_t> Assembler::abs_expr(size_t li, const std::vector<Token>& st, size_t& p, const char* what) {
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

bool Assembler::expect_end(size_t li, const std::vector<Token>& st, size_t p) {
  if (st[p].kind != Tok::End) {
    error(loc(li, st[p].col), "unexpected '" + std::string(st[p].text) + "' at end of directive");
    return false;
  }
  return true;
}

std::string Assembler::name_arg(size_t li, const std::vector<Token>& st, size_t& p, const char* what) {
  if (st[p].kind == Tok::Identifier) return std::string(st[p++].text);
  if (st[p].kind == Tok::String) return string_value(st[p++]);
  error(loc(li, st[p].col), std::string("expected ") + what);
  return {};
}

void Assembler::assignment(size_t li, const std::string& name, const std::vector<Token>& st, size_t p) {
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

void Assembler::align_to(uint64_t align, std::optional<int64_t> fill, uint64_t max_skip) {
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

void Assembler::data(size_t li, const std::vector<Token>& st, size_t p, int size) {
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

void Assembler::directive(size_t li, const std::string& d, const std::vector<Token>& st) {
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
    // flags: "awx" or the Solaris spelling #alloc,#write,#execinstr (clang writes it); then
    // an optional ,@progbits / ,@nobits type, which the file's layout does not depend on
    std::optional<std::string> flags;
    if (st[p].kind == Tok::Comma) {
      ++p;
      flags = "";
      if (st[p].kind == Tok::String) {
        for (char c : string_value(st[p++])) {
          if (c != 'a' && c != 'w' && c != 'x' && c != 'M' && c != 'S' && c != 'G' && c != 'T' && c != 'R')
            return error(loc(li, st[p - 1].col), std::string("unknown section flag '") + c + "'");
          if (c == 'a' || c == 'w' || c == 'x') *flags += c;
        }
      } else {
        while (st[p].kind == Tok::Identifier && st[p].text[0] == '#') {
          std::string_view f = st[p].text;
          if (f == "#alloc") *flags += 'a';
          else if (f == "#write") *flags += 'w';
          else if (f == "#execinstr") *flags += 'x';
          else return error(loc(li, st[p].col), "unknown section flag '" + std::string(f) +
                                                    "' (#alloc, #write, #execinstr)");
          ++p;
          if (st[p].kind == Tok::Comma && st[p + 1].kind == Tok::Identifier && st[p + 1].text[0] == '#') ++p;
        }
      }
      if (st[p].kind == Tok::Comma) {
        ++p;
        if (st[p].kind != Tok::Identifier && st[p].kind != Tok::Percent)
          return error(loc(li, st[p].col), "expected a section type such as @progbits");
        while (st[p].kind != Tok::End) ++p;  // the type (and any entry size) does not change the layout
      }
    }
    if (!expect_end(li, st, p)) return;
    switch_section(name);
    if (flags) sec().flags = *flags;
  } else if (d == ".previous") {
    switch_section(".text");
  } else if (d == ".globl" || d == ".global" || d == ".weak" || d == ".local" || d == ".hidden" ||
             d == ".protected") {
    while (st[p].kind != Tok::End) {
      std::string name = name_arg(li, st, p, "a symbol name");
      if (name.empty()) return;
      Symbol& s = symbol(name);
      if (d == ".globl" || d == ".global" || d == ".weak") s.global = true;
      if (d == ".weak") s.weak = true;
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
    prog_.symbol_order.push_back(name + ".kd");  // llvm-mc creates the descriptor symbol here
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

void Assembler::kernel_directive(size_t li, const std::string& d, const std::vector<Token>& st) {
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

}  // namespace k100::as::detail
