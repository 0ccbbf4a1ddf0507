#include "preprocess.h"

#include <array>
#include <cctype>
#include <cstring>

namespace k100::as {

namespace {

// Characters of a parameter name after '\' (as GNU as and llvm-mc read them).
inline bool param_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.';
}

// Characters of an identifier as the lexer reads them.
inline bool word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '$' || c == '@';
}

// Tokens next to which blanks do not separate macro arguments.
bool is_operator(Tok k) {
  switch (k) {
    case Tok::Plus: case Tok::Minus: case Tok::Tilde: case Tok::Slash: case Tok::Star: case Tok::EqEq:
    case Tok::Pipe: case Tok::PipePipe: case Tok::Caret: case Tok::Amp: case Tok::AmpAmp: case Tok::Bang:
    case Tok::NotEq: case Tok::Less: case Tok::LessEq: case Tok::Shl: case Tok::Greater: case Tok::GreaterEq:
    case Tok::Shr:
      return true;
    default:
      return false;
  }
}

}  // namespace

void split_source(std::string_view src, std::vector<std::string_view>& raw_lines,
                  std::vector<std::string_view>& lines, std::deque<std::string>& storage) {
  size_t start = 0;
  raw_lines.reserve(raw_lines.size() + src.size() / 24 + 16);
  size_t first = raw_lines.size();
  while (start <= src.size()) {
    const void* nl = std::memchr(src.data() + start, '\n', src.size() - start);
    size_t end = nl ? size_t(static_cast<const char*>(nl) - src.data()) : src.size();
    std::string_view l = src.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    raw_lines.push_back(l);
    if (end == src.size()) break;
    start = end + 1;
  }
  lines.reserve(lines.size() + raw_lines.size() - first);
  bool in_block = false;
  for (size_t li = first; li < raw_lines.size(); ++li) {
    std::string_view raw = raw_lines[li];
    // most lines have no comment: keep the view
    static constexpr auto kSpecial = [] {
      std::array<bool, 256> t{};
      for (unsigned char c : std::string_view(";/#\"")) t[c] = true;
      return t;
    }();
    bool plain = !in_block;
    for (size_t i = 0; plain && i < raw.size(); ++i) plain = !kSpecial[static_cast<unsigned char>(raw[i])];
    if (plain) {
      lines.push_back(raw);
      continue;
    }
    std::string cur(raw.size(), ' ');
    for (size_t i = 0; i < raw.size(); ++i) {
      char c = raw[i];
      if (in_block) {
        if (c == '*' && i + 1 < raw.size() && raw[i + 1] == '/') {
          in_block = false;
          ++i;
        }
        continue;
      }
      if (c == '"') {
        cur[i] = c;
        for (++i; i < raw.size(); ++i) {
          cur[i] = raw[i];
          if (raw[i] == '\\' && i + 1 < raw.size()) {
            cur[i + 1] = raw[i + 1];
            ++i;
            continue;
          }
          if (raw[i] == '"') break;
        }
        continue;
      }
      if (c == ';' || (c == '/' && i + 1 < raw.size() && raw[i + 1] == '/')) break;
      if (c == '#' && raw.find_first_not_of(" \t") == i) break;  // '#' comment lines
      if (c == '/' && i + 1 < raw.size() && raw[i + 1] == '*') {
        in_block = true;
        ++i;
        continue;
      }
      cur[i] = c;
    }
    storage.push_back(std::move(cur));
    lines.push_back(storage.back());
  }
}

bool needs_preprocessing(std::string_view src) {
  const char* p = src.data();
  const char* end = p + src.size();
  while (p < end) {
    const void* dot = std::memchr(p, '.', size_t(end - p));
    if (!dot) return false;
    p = static_cast<const char*>(dot) + 1;
    if (p == end) return false;  // a '.' as the last character
    size_t left = size_t(end - p);
    auto at = [&](const char* word, size_t n) { return left >= n && std::memcmp(p, word, n) == 0; };
    switch (*p) {
      case 'm': if (at("macro", 5)) return true; break;
      case 'i': if (at("if", 2) || at("include", 7) || at("irp", 3)) return true; break;
      case 'r': if (at("rept", 4)) return true; break;
      default: break;
    }
  }
  return false;
}

std::string_view first_word(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  size_t j = i;
  while (j < line.size() && word_char(line[j])) ++j;
  return line.substr(i, j - i);
}

std::string macro_value(const std::vector<Token>& toks, size_t& p, std::string& value, uint32_t* err_col) {
  int level = 0;
  bool first = true, after_operator = false;
  while (toks[p].kind != Tok::End) {
    const Token& t = toks[p];
    if (t.kind == Tok::Equal) {
      *err_col = t.col;
      return "unexpected '=' in a macro argument";
    }
    bool space = t.space_before && !first && !after_operator;
    after_operator = false;
    if (level == 0) {
      if (t.kind == Tok::Comma) break;
      if (is_operator(t.kind)) {
        value += t.text;
        ++p;
        first = false;
        after_operator = true;  // blanks after an operator do not separate either
        continue;
      }
      if (space) break;
    } else if (space) {
      value += ' ';
    }
    if (t.kind == Tok::LParen) ++level;
    else if (t.kind == Tok::RParen && level) --level;
    if (t.kind == Tok::String && t.text.size() >= 2) value += t.text.substr(1, t.text.size() - 2);
    else value += t.text;
    ++p;
    first = false;
  }
  return {};
}

std::string split_macro_args(std::string_view line, const std::vector<Token>& toks, size_t p, size_t vararg_index,
                             bool named, std::vector<MacroArg>& out, uint32_t* err_col) {
  out.clear();
  for (size_t index = 0;; ++index) {
    MacroArg a;
    a.col = toks[p].col;
    if (named && toks[p].kind == Tok::Identifier && toks[p + 1].kind == Tok::Equal) {
      a.name = std::string(toks[p].text);
      p += 2;
    }
    if (index == vararg_index) {
      if (toks[p].kind != Tok::End) {
        std::string_view rest = line.substr(std::min<size_t>(toks[p].col - 1, line.size()));
        while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\t' || rest.back() == '\r'))
          rest.remove_suffix(1);
        a.value = std::string(rest);
        while (toks[p].kind != Tok::End) ++p;
      }
    } else {
      std::string err = macro_value(toks, p, a.value, err_col);
      if (!err.empty()) return err;
    }
    out.push_back(std::move(a));
    if (toks[p].kind == Tok::End) return {};
    if (toks[p].kind == Tok::Comma) ++p;
  }
}

bool substitute(std::string_view line, const std::vector<std::string_view>& names,
                const std::vector<std::string_view>& values, bool at_enabled, uint64_t at, std::string& out,
                std::vector<ColumnSegment>& segments) {
  out.clear();
  segments.clear();
  bool changed = false;
  const size_t n = line.size();
  auto literal = [&](size_t from, size_t to) {
    if (to <= from) return;
    segments.push_back({uint32_t(out.size()), uint32_t(from), true});
    out.append(line.substr(from, to - from));
  };
  auto replaced = [&](size_t at_col, std::string_view text) {
    segments.push_back({uint32_t(out.size()), uint32_t(at_col), false});
    out.append(text);
    changed = true;
  };
  size_t pos = 0;
  while (pos < n) {
    size_t bs = line.find('\\', pos);
    if (bs == std::string_view::npos) {
      literal(pos, n);
      break;
    }
    literal(pos, bs);
    size_t i = bs + 1;
    if (i >= n) {  // a backslash ending the line stays
      literal(bs, n);
      break;
    }
    if (at_enabled && line[i] == '@') {
      replaced(bs, std::to_string(at));
      pos = i + 1;
      continue;
    }
    size_t j = i;
    while (j < n && param_char(line[j])) ++j;
    std::string_view name = line.substr(i, j - i);
    size_t k = 0;
    if (!name.empty())
      while (k < names.size() && names[k] != name) ++k;
    if (!name.empty() && k < names.size()) {
      replaced(bs, values[k]);
      pos = j;
      continue;
    }
    if (name.empty() && i + 1 < n && line[i] == '(' && line[i + 1] == ')') {  // "\()" separates, and is dropped
      segments.push_back({uint32_t(out.size()), uint32_t(i + 2), true});
      pos = i + 2;
      changed = true;
      continue;
    }
    literal(bs, j);  // not a parameter: kept as written
    pos = j;
  }
  return changed;
}

uint32_t map_column(const std::vector<ColumnSegment>& segments, uint32_t col) {
  if (col == 0 || segments.empty()) return col;
  uint32_t c = col - 1;
  const ColumnSegment* s = nullptr;
  for (const auto& g : segments) {
    if (g.out > c) break;
    s = &g;
  }
  if (!s) return col;
  return s->literal ? s->in + (c - s->out) + 1 : s->in + 1;
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty() || (!name.empty() && name[0] == '/')) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {};
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

}  // namespace k100::as
