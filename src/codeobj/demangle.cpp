#include "k100/codeobj/demangle.h"

#include <vector>

namespace k100::codeobj {
namespace {

struct Fail {};

// Recursive-descent parser over the subset of the Itanium mangling grammar kernel
// names use. Every failure throws Fail (caught by the entry point); input bounds are
// checked on every access.
class Demangler {
 public:
  explicit Demangler(std::string_view s) : s_(s) {}

  std::string run() {
    expect("_Z");
    std::string name = parse_name();
    return name;
  }

 private:
  char peek(size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(std::string_view t) {
    if (s_.substr(pos_, t.size()) != t) throw Fail{};
    pos_ += t.size();
  }
  bool is_digit(char c) const { return c >= '0' && c <= '9'; }

  size_t parse_number() {
    if (!is_digit(peek())) throw Fail{};
    size_t n = 0;
    while (is_digit(peek())) {
      n = n * 10 + size_t(peek() - '0');
      if (n > s_.size()) throw Fail{};
      ++pos_;
    }
    return n;
  }

  std::string parse_source_name() {
    size_t n = parse_number();
    if (n == 0 || pos_ + n > s_.size()) throw Fail{};
    std::string id(s_.substr(pos_, n));
    pos_ += n;
    if (id.rfind("_GLOBAL__N", 0) == 0) id = "(anonymous namespace)";
    return id;
  }

  std::string abi_tags(std::string name) {
    while (peek() == 'B') {
      ++pos_;
      name += "[abi:" + parse_source_name() + "]";
    }
    return name;
  }

  // <name> for the function itself; template arguments of the final component included.
  std::string parse_name() {
    if (peek() == 'N') return parse_nested_name();
    eat('L');  // internal linkage (static functions)
    std::string name;
    if (peek() == 'S' && peek(1) == 't') {
      pos_ += 2;
      name = "std::" + parse_source_name();
    } else {
      name = parse_source_name();
    }
    name = abi_tags(name);
    if (peek() == 'I') {
      subs_.push_back(name);  // the template name is a substitution candidate
      name += parse_template_args();
    }
    return name;
  }

  std::string parse_nested_name() {
    expect("N");
    while (peek() == 'r' || peek() == 'V' || peek() == 'K') ++pos_;  // cv-qualifiers of `this`
    if (peek() == 'R' || peek() == 'O') ++pos_;
    std::string prefix;
    std::string last;  // last plain component, for constructors
    bool first = true;
    while (!eat('E')) {
      if (pos_ >= s_.size()) throw Fail{};
      std::string part;
      if (peek() == 'I') {
        if (first) throw Fail{};
        prefix += parse_template_args();
        subs_.push_back(prefix);
        continue;
      }
      if (peek() == 'S') {
        part = parse_substitution();
        prefix = part;
        first = false;
        continue;
      }
      if (peek() == 'C' && (peek(1) >= '1' && peek(1) <= '5')) {
        pos_ += 2;
        part = last;
      } else if (peek() == 'D' && (peek(1) >= '0' && peek(1) <= '5')) {
        pos_ += 2;
        part = "~" + last;
      } else {
        eat('L');
        part = abi_tags(parse_source_name());
        last = part;
      }
      prefix = first ? part : prefix + "::" + part;
      first = false;
      subs_.push_back(prefix);
    }
    if (first) throw Fail{};
    if (!subs_.empty() && subs_.back() == prefix) subs_.pop_back();  // the full name is not one
    return prefix;
  }

  std::string parse_substitution() {
    expect("S");
    static const std::pair<char, const char*> kStd[] = {
        {'t', "std"},          {'a', "std::allocator"}, {'b', "std::basic_string"},
        {'s', "std::string"},  {'i', "std::istream"},   {'o', "std::ostream"},
        {'d', "std::iostream"}};
    for (const auto& [c, text] : kStd)
      if (peek() == c) {
        ++pos_;
        if (c == 't') return "std::" + abi_tags(parse_source_name());
        return text;
      }
    size_t index = 0;
    if (eat('_')) {
      index = 0;
    } else {
      size_t v = 0;
      bool any = false;
      while (peek() != '_') {
        char c = peek();
        size_t d;
        if (c >= '0' && c <= '9')
          d = size_t(c - '0');
        else if (c >= 'A' && c <= 'Z')
          d = size_t(c - 'A' + 10);
        else
          throw Fail{};
        v = v * 36 + d;
        if (v > s_.size()) throw Fail{};
        any = true;
        ++pos_;
      }
      if (!any) throw Fail{};
      ++pos_;  // '_'
      index = v + 1;
    }
    if (index >= subs_.size()) throw Fail{};
    return subs_[index];
  }

  std::string parse_template_args() {
    expect("I");
    std::string out = "<";
    bool first = true;
    while (!eat('E')) {
      if (pos_ >= s_.size()) throw Fail{};
      if (!first) out += ", ";
      first = false;
      out += parse_template_arg();
    }
    if (!out.empty() && out.back() == '>') out += ' ';
    return out + ">";
  }

  std::string parse_template_arg() {
    if (peek() == 'L') return parse_literal();
    if (peek() == 'J') {  // argument pack
      ++pos_;
      std::string out;
      bool first = true;
      while (!eat('E')) {
        if (pos_ >= s_.size()) throw Fail{};
        if (!first) out += ", ";
        first = false;
        out += parse_template_arg();
      }
      return out;
    }
    if (peek() == 'X') throw Fail{};  // expressions are not supported
    return parse_type();
  }

  std::string parse_literal() {
    expect("L");
    if (peek() == '_' && peek(1) == 'Z') throw Fail{};  // external names not supported
    char t = peek();
    ++pos_;
    bool negative = eat('n');
    if (!is_digit(peek())) throw Fail{};
    std::string digits;
    while (is_digit(peek())) digits += s_[pos_++];
    expect("E");
    std::string v = (negative ? "-" : "") + digits;
    switch (t) {
      case 'b':
        if (digits == "0" && !negative) return "false";
        if (digits == "1" && !negative) return "true";
        return "(bool)" + v;
      case 'i':
        return v;
      case 'j':
        return v + "u";
      case 'l':
        return v + "l";
      case 'm':
        return v + "ul";
      case 'x':
        return v + "ll";
      case 'y':
        return v + "ull";
      case 'c':
        return "(char)" + v;
      case 'a':
        return "(signed char)" + v;
      case 'h':
        return "(unsigned char)" + v;
      case 's':
        return "(short)" + v;
      case 't':
        return "(unsigned short)" + v;
      case 'n':
        return "(__int128)" + v;
      case 'o':
        return "(unsigned __int128)" + v;
      case 'w':
        return "(wchar_t)" + v;
    }
    throw Fail{};
  }

  std::string parse_type() {
    static const std::pair<char, const char*> kBuiltin[] = {
        {'v', "void"},        {'w', "wchar_t"},
        {'b', "bool"},        {'c', "char"},
        {'a', "signed char"}, {'h', "unsigned char"},
        {'s', "short"},       {'t', "unsigned short"},
        {'i', "int"},         {'j', "unsigned int"},
        {'l', "long"},        {'m', "unsigned long"},
        {'x', "long long"},   {'y', "unsigned long long"},
        {'n', "__int128"},    {'o', "unsigned __int128"},
        {'f', "float"},       {'d', "double"},
        {'e', "long double"}, {'g', "__float128"},
        {'z', "..."}};
    char c = peek();
    for (const auto& [code, text] : kBuiltin)
      if (c == code) {
        ++pos_;
        return text;
      }
    if (c == 'D') {
      static const std::pair<std::string_view, const char*> kD[] = {
          {"Dh", "half"},     {"DF16_", "_Float16"}, {"Di", "char32_t"},
          {"Ds", "char16_t"}, {"Du", "char8_t"},     {"Dn", "decltype(nullptr)"}};
      for (const auto& [code, text] : kD)
        if (s_.substr(pos_, code.size()) == code) {
          pos_ += code.size();
          return text;
        }
      throw Fail{};
    }
    std::string t;
    switch (c) {
      case 'P':
        ++pos_;
        t = pointer_like(parse_type(), "*");
        break;
      case 'R':
        ++pos_;
        t = pointer_like(parse_type(), "&");
        break;
      case 'O':
        ++pos_;
        t = pointer_like(parse_type(), "&&");
        break;
      case 'K':
        ++pos_;
        t = parse_type() + " const";
        break;
      case 'V':
        ++pos_;
        t = parse_type() + " volatile";
        break;
      case 'N':
        t = parse_nested_name();
        break;
      case 'S':
        if (peek(1) == 't') {
          pos_ += 2;
          t = "std::" + parse_source_name();
        } else {
          t = parse_substitution();
          if (peek() == 'I') t += parse_template_args();
          return t;  // substitutions are not added again
        }
        break;
      default:
        if (!is_digit(c)) throw Fail{};
        t = abi_tags(parse_source_name());
        if (peek() == 'I') {
          subs_.push_back(t);
          t += parse_template_args();
        }
        break;
    }
    subs_.push_back(t);
    return t;
  }

  static std::string pointer_like(const std::string& inner, const char* op) { return inner + op; }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<std::string> subs_;
};

}  // namespace

std::optional<std::string> demangle_function_name(std::string_view symbol) {
  if (symbol.rfind("_Z", 0) != 0) return std::nullopt;
  try {
    return Demangler(symbol).run();
  } catch (const Fail&) {
    return std::nullopt;
  }
}

std::string lookup_name(std::string_view symbol) {
  auto d = demangle_function_name(symbol);
  std::string text = d ? *d : std::string(symbol);
  std::string out;
  for (char c : text)
    if (c != ' ' && c != '\t') out += c;
  return out;
}

}  // namespace k100::codeobj
