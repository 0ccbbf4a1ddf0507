// YAML (`.amdgpu_metadata` blocks) -> MetaNode, typing scalars the way llvm-mc does.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>

#include "k100/base/error.h"
#include "k100/codeobj/metadata_node.h"
#include "metadata_scalar.h"

namespace k100::codeobj {
namespace detail {

// LLVM's StringRef::getAsUnsignedInteger with radix 0: 0x/0X hex, 0b/0B binary, 0o and
// a leading 0 octal, otherwise decimal; the whole string must be digits of that radix.
bool parse_llvm_unsigned(std::string_view s, uint64_t& out) {
  unsigned radix = 10;
  if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    radix = 16;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
    radix = 2;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && s[1] == 'o') {
    radix = 8;
    s.remove_prefix(2);
  } else if (s.size() >= 2 && s[0] == '0' && s[1] >= '0' && s[1] <= '9') {
    radix = 8;
    s.remove_prefix(1);
  }
  if (s.empty()) return false;
  unsigned __int128 v = 0;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9')
      d = unsigned(c - '0');
    else if (c >= 'a' && c <= 'z')
      d = unsigned(c - 'a' + 10);
    else if (c >= 'A' && c <= 'Z')
      d = unsigned(c - 'A' + 10);
    else
      return false;
    if (d >= radix) return false;
    v = v * radix + d;
    if (v > UINT64_MAX) return false;
  }
  out = static_cast<uint64_t>(v);
  return true;
}

bool parse_llvm_signed(std::string_view s, int64_t& out) {
  uint64_t u;
  if (s.empty() || s[0] != '-') {
    if (!parse_llvm_unsigned(s, u) || u > uint64_t(INT64_MAX)) return false;
    out = static_cast<int64_t>(u);
    return true;
  }
  if (!parse_llvm_unsigned(s.substr(1), u) || u > uint64_t(INT64_MAX) + 1) return false;
  out = static_cast<int64_t>(0 - u);
  return true;
}

// llvm::yaml::parseBool (LLVM 14+): the YAML 1.1 boolean spellings.
bool parse_llvm_bool(std::string_view s, bool& out) {
  static constexpr std::string_view kTrue[] = {"y",  "Y",  "yes",  "Yes",  "YES", "on",
                                               "On", "ON", "true", "True", "TRUE"};
  static constexpr std::string_view kFalse[] = {"n",   "N",   "no",    "No",    "NO",   "off",
                                                "Off", "OFF", "false", "False", "FALSE"};
  for (auto t : kTrue)
    if (s == t) return out = true, true;
  for (auto f : kFalse)
    if (s == f) return out = false, true;
  return false;
}

// llvm::to_float: strtod must consume the whole string. Note that this accepts the empty
// string (strtod consumes nothing and stops at the terminator), so '' is a float to llvm.
bool parse_llvm_float(std::string_view s, double& out) {
  std::string z(s);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(z.c_str(), &end);
  return end == z.c_str() + z.size();
}

MetaNode scalar_from_yaml(std::string_view text, std::string_view tag, bool& ok) {
  ok = true;
  if (tag == "tag:yaml.org,2002:str") tag = "";  // llvm treats it as untagged
  if (tag == "!int" || tag.empty()) {
    uint64_t u;
    int64_t i;
    if (parse_llvm_unsigned(text, u)) return MetaNode::uinteger(u);
    if (parse_llvm_signed(text, i)) return MetaNode::integer(i);
    if (!tag.empty()) return ok = false, MetaNode();
  }
  if (tag == "!nil") return MetaNode();
  if (tag == "!bool" || tag.empty()) {
    bool b;
    if (parse_llvm_bool(text, b)) return MetaNode::boolean(b);
    if (!tag.empty()) return ok = false, MetaNode();
  }
  if (tag == "!float" || tag.empty()) {
    double d;
    // llvm-mc 14 and 15 write float-typed scalars as nil into the note (checked against
    // both); we do the same so k100-as and llvm-mc produce identical notes.
    if (parse_llvm_float(text, d)) return MetaNode();
    if (!tag.empty()) return ok = false, MetaNode();
  }
  if (tag == "!str" || tag.empty()) return MetaNode::string(std::string(text));
  ok = false;
  return MetaNode();
}

}  // namespace detail

namespace {

struct YamlContext {
  std::string_view text;
  std::string_view origin;
  uint32_t first_line;
  // Aliases share nodes in yaml-cpp, so a small text can expand to a huge tree; stop early.
  mutable size_t budget = 1000000;

  std::string where(const YAML::Mark& m) const {
    if (m.is_null()) return std::string(origin);
    return std::string(origin) + ":" + std::to_string(first_line + m.line) + ":" +
           std::to_string(m.column + 1);
  }
};

bool is_null_literal_at(std::string_view text, int pos) {
  if (pos < 0 || size_t(pos) >= text.size()) return false;
  std::string_view rest = text.substr(size_t(pos));
  for (std::string_view lit : {"~", "null", "Null", "NULL"}) {
    if (rest.rfind(lit, 0) != 0) continue;
    if (rest.size() == lit.size()) return true;
    char c = rest[lit.size()];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ']' || c == '}' ||
        c == '#')
      return true;
  }
  return false;
}

MetaNode convert(const YAML::Node& n, const YamlContext& ctx, int depth) {
  if (depth > 64) throw Error(ctx.where(n.Mark()) + ": metadata nested too deeply");
  if (ctx.budget-- == 0) throw Error(ctx.where(n.Mark()) + ": metadata has too many nodes");
  switch (n.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null: {
      // An explicit "~"/"null" is just a string to llvm-mc; an empty value becomes [].
      int pos = n.Mark().is_null() ? -1 : n.Mark().pos;
      if (is_null_literal_at(ctx.text, pos)) {
        std::string_view rest = ctx.text.substr(size_t(pos));
        size_t len = rest[0] == '~' ? 1 : 4;
        return MetaNode::string(std::string(rest.substr(0, len)));
      }
      return MetaNode::array();
    }
    case YAML::NodeType::Scalar: {
      std::string tag = n.Tag();
      if (tag == "?" || tag == "!") tag.clear();  // plain or quoted: typed by content
      bool ok = true;
      MetaNode v = detail::scalar_from_yaml(n.Scalar(), tag, ok);
      if (!ok)
        throw Error(ctx.where(n.Mark()) + ": metadata value '" + n.Scalar() +
                    "' does not fit its tag " + tag);
      return v;
    }
    case YAML::NodeType::Sequence: {
      MetaNode a = MetaNode::array();
      for (const auto& e : n) a.push_back(convert(e, ctx, depth + 1));
      return a;
    }
    case YAML::NodeType::Map: {
      MetaNode m = MetaNode::map();
      for (const auto& kv : n) {
        if (!kv.first.IsScalar())
          throw Error(ctx.where(kv.first.Mark()) + ": metadata map keys must be scalars");
        std::string key = kv.first.Scalar();
        if (m.find(key))
          throw Error(ctx.where(kv.first.Mark()) + ": duplicate metadata key '" + key + "'");
        m.set(key, convert(kv.second, ctx, depth + 1));
      }
      return m;
    }
  }
  throw Error(ctx.where(n.Mark()) + ": unsupported YAML node");
}

}  // namespace

MetaNode parse_metadata_yaml(std::string_view text, std::string_view origin, uint32_t first_line) {
  YamlContext ctx{text, origin, first_line};
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    throw Error(ctx.where(e.mark) + ": invalid metadata YAML: " + e.msg);
  }
  try {
    return convert(root, ctx, 0);
  } catch (const YAML::Exception& e) {
    throw Error(ctx.where(e.mark) + ": invalid metadata YAML: " + e.msg);
  }
}

}  // namespace k100::codeobj
