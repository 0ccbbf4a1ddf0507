// MetaNode -> YAML text, formatted exactly like llvm-readelf -n prints AMDGPU metadata.
// The state machine follows LLVM's yaml::Output (block style, keys padded to 16
// columns, "- " folded into the first key of a map inside a sequence, [] and {} for
// empty containers, quoting and tags only where re-reading would change the value).
#include <cctype>
#include <cstdio>
#include <cstring>

#include "k100/codeobj/metadata_node.h"
#include "metadata_scalar.h"

namespace k100::codeobj {
namespace {

enum class State { SeqFirst, SeqOther, MapFirst, MapOther };
enum class Quote { None, Single, Double };

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string_view skip_digits(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  return s.substr(i);
}

// YAML 1.2 core-schema numbers, as LLVM's yaml::isNumeric recognises them.
bool is_numeric(std::string_view s) {
  if (s.empty() || s == "+" || s == "-") return false;
  if (s == ".nan" || s == ".NaN" || s == ".NAN") return true;
  std::string_view tail = (s[0] == '-' || s[0] == '+') ? s.substr(1) : s;
  if (tail == ".inf" || tail == ".Inf" || tail == ".INF") return true;
  if (s.rfind("0o", 0) == 0)
    return s.size() > 2 && s.substr(2).find_first_not_of("01234567") == std::string_view::npos;
  if (s.rfind("0x", 0) == 0)
    return s.size() > 2 &&
           s.substr(2).find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos;
  s = tail;
  if (!s.empty() && s[0] == '.' && (s.size() == 1 || !is_digit(s[1]))) return false;
  if (!s.empty() && (s[0] == 'e' || s[0] == 'E')) return false;
  s = skip_digits(s);
  if (s.empty()) return true;
  bool exponent = false;
  if (s[0] == '.') {
    s = skip_digits(s.substr(1));
    if (s.empty()) return true;
    if (s[0] != 'e' && s[0] != 'E') return false;
    exponent = true;
    s = s.substr(1);
  } else if (s[0] == 'e' || s[0] == 'E') {
    exponent = true;
    s = s.substr(1);
  } else {
    return false;
  }
  (void)exponent;
  if (s.empty()) return false;
  if (s[0] == '+' || s[0] == '-') {
    s = s.substr(1);
    if (s.empty()) return false;
  }
  return skip_digits(s).empty();
}

bool is_null_word(std::string_view s) {
  return s == "null" || s == "Null" || s == "NULL" || s == "~";
}

bool is_bool_word(std::string_view s) {
  return s == "true" || s == "True" || s == "TRUE" || s == "false" || s == "False" || s == "FALSE";
}

// LLVM's yaml::needsQuotes.
Quote needs_quotes(std::string_view s) {
  if (s.empty()) return Quote::Single;
  Quote q = Quote::None;
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
  };
  if (is_space(s.front()) || is_space(s.back())) q = Quote::Single;
  if (is_null_word(s) || is_bool_word(s) || is_numeric(s)) q = Quote::Single;
  static constexpr char kIndicators[] = R"(-?:\,[]{}#&*!|>'"%@`)";
  if (std::strchr(kIndicators, s.front()) != nullptr && s.front() != '\0') q = Quote::Single;
  for (unsigned char c : s) {
    if (std::isalnum(c)) continue;
    switch (c) {
      case '_':
      case '-':
      case '^':
      case '.':
      case ',':
      case ' ':
      case 0x9:
        continue;
      case 0xA:
      case 0xD:
        return Quote::Double;  // what llvm-readelf 14/15 print
      case 0x7F:
        return Quote::Double;
      default:
        if (c <= 0x1F) return Quote::Double;
        if (c & 0x80) return Quote::Double;
        q = Quote::Single;
    }
  }
  return q;
}

std::string hex_upper(uint32_t v, int width) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%0*X", width, v);
  return buf;
}

// LLVM's yaml::escape with EscapePrintable = false.
std::string escape_double(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '\\':
        out += "\\\\";
        continue;
      case '"':
        out += "\\\"";
        continue;
      case 0:
        out += "\\0";
        continue;
      case 7:
        out += "\\a";
        continue;
      case 8:
        out += "\\b";
        continue;
      case 9:
        out += "\\t";
        continue;
      case 10:
        out += "\\n";
        continue;
      case 11:
        out += "\\v";
        continue;
      case 12:
        out += "\\f";
        continue;
      case 13:
        out += "\\r";
        continue;
      case 27:
        out += "\\e";
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      out += "\\x" + hex_upper(c, 2);
    } else if (c & 0x80) {
      // Decode one UTF-8 sequence; invalid input ends the string with U+FFFD, as LLVM does.
      int len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
      uint32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
      bool valid = len > 0 && i + size_t(len) <= s.size();
      for (int k = 1; valid && k < len; ++k) {
        unsigned char cc = static_cast<unsigned char>(s[i + size_t(k)]);
        if ((cc & 0xC0) != 0x80) valid = false;
        cp = (cp << 6) | (cc & 0x3F);
      }
      if (!valid) {
        out += "\xEF\xBF\xBD";
        return out;
      }
      if (cp == 0x85)
        out += "\\N";
      else if (cp == 0xA0)
        out += "\\_";
      else if (cp == 0x2028)
        out += "\\L";
      else if (cp == 0x2029)
        out += "\\P";
      else
        out.append(s.substr(i, size_t(len)));
      i += size_t(len) - 1;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string scalar_text(const MetaNode& n) {
  using K = MetaNode::Kind;
  switch (n.kind()) {
    case K::String:
    case K::Binary:
      return n.as_string();
    case K::Nil:
      return "";
    case K::Bool:
      return n.as_bool() ? "true" : "false";
    case K::Int:
      return std::to_string(n.as_int());
    case K::UInt:
      return std::to_string(n.as_uint());
    case K::Float: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%e", n.as_float());
      return buf;
    }
    default:
      return "";
  }
}

// The tag LLVM prints so that reading the YAML back gives the same kind of node.
std::string_view scalar_tag(const MetaNode& n, const std::string& text) {
  using K = MetaNode::Kind;
  if (n.kind() == K::Nil) return "!nil";
  bool ok = true;
  MetaNode back = detail::scalar_from_yaml(text, "", ok);
  K bk = back.kind(), k = n.kind() == K::Binary ? K::String : n.kind();
  if (bk == k) return "";
  if ((bk == K::Int || bk == K::UInt) && (k == K::Int || k == K::UInt)) return "";
  switch (k) {
    case K::String:
      return "!str";
    case K::Int:
    case K::UInt:
      return "!int";
    case K::Bool:
      return "!bool";
    case K::Float:
      return "!float";
    default:
      return "";
  }
}

class YamlWriter {
 public:
  std::string run(const MetaNode& root) {
    out_ = "---";
    padding_ = "\n";
    node(root);
    out_ += "\n...\n";
    return out_;
  }

 private:
  void node(const MetaNode& n) {
    if (n.is_map()) {
      begin_container(State::MapFirst);
      for (const auto& [k, v] : n.entries()) {
        new_line_check(false);
        out_ += k;
        out_ += ':';
        padding_ = k.size() < 16 ? std::string(16 - k.size(), ' ') : std::string(" ");
        node(v);
        if (stack_.back() == State::MapFirst) stack_.back() = State::MapOther;
      }
      if (stack_.back() == State::MapFirst) end_empty("{}", false);
      stack_.pop_back();
    } else if (n.is_array()) {
      begin_container(State::SeqFirst);
      for (const auto& e : n.items()) {
        node(e);
        if (stack_.back() == State::SeqFirst) stack_.back() = State::SeqOther;
      }
      if (stack_.back() == State::SeqFirst) end_empty("[]", true);
      stack_.pop_back();
    } else {
      std::string text = scalar_text(n);
      std::string_view tag = scalar_tag(n, text);
      if (!tag.empty()) {
        new_line_check(false);
        out_ += tag;
        out_ += ' ';
      }
      Quote q = Quote::None;
      if (n.kind() == MetaNode::Kind::String || n.kind() == MetaNode::Kind::Binary ||
          n.kind() == MetaNode::Kind::Nil)
        q = needs_quotes(text);
      scalar(text, q);
    }
  }

  void begin_container(State s) {
    stack_.push_back(s);
    padding_before_container_ = padding_;
    padding_ = "\n";
  }

  void end_empty(const char* text, bool empty_sequence) {
    padding_ = padding_before_container_;
    new_line_check(empty_sequence);
    out_ += text;
    padding_ = "\n";
  }

  void scalar(const std::string& s, Quote q) {
    new_line_check(false);
    if (s.empty()) {
      out_ += "''";
    } else if (q == Quote::None) {
      out_ += s;
    } else if (q == Quote::Double) {
      out_ += '"' + escape_double(s) + '"';
    } else {
      out_ += '\'';
      for (char c : s) {
        if (c == '\'') out_ += '\'';
        out_ += c;
      }
      out_ += '\'';
    }
    padding_ = "\n";
  }

  void new_line_check(bool empty_sequence) {
    if (padding_ != "\n") {
      out_ += padding_;
      padding_.clear();
      return;
    }
    out_ += '\n';
    padding_.clear();
    if (stack_.empty() || empty_sequence) return;
    size_t indent = stack_.size() - 1;
    bool dash = false;
    State back = stack_.back();
    if (back == State::SeqFirst || back == State::SeqOther) {
      dash = true;
    } else if (stack_.size() > 1 && back == State::MapFirst &&
               (stack_[stack_.size() - 2] == State::SeqFirst ||
                stack_[stack_.size() - 2] == State::SeqOther)) {
      --indent;
      dash = true;
    }
    for (size_t i = 0; i < indent; ++i) out_ += "  ";
    if (dash) out_ += "- ";
  }

  std::string out_;
  std::string padding_;
  std::string padding_before_container_;
  std::vector<State> stack_;
};

}  // namespace

std::string to_yaml(const MetaNode& node) {
  return YamlWriter().run(node);
}

}  // namespace k100::codeobj
