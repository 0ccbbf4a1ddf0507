#include "instruction_parser.h"

#include "syntax.h"

#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>

#include "k100/base/closest_match.h"
#include "k100/isa/symbolic.h"

namespace k100::as {

using namespace isa;

namespace {

class Failure {
 public:
  uint32_t col;
  std::string message;
};

struct Validation {
  Failure failure;
};

[[noreturn]] void fail(uint32_t col, std::string msg) { throw Failure{col, std::move(msg)}; }

constexpr std::string_view kFlagMods[] = {"clamp", "glc", "slc", "lds", "tfe", "gds", "offen", "idxen", "nv",
                           "row_mirror", "row_half_mirror", "off_placeholder_"};
constexpr std::string_view kValueMods[] = {"offset", "offset0", "offset1", "mul", "div", "op_sel", "op_sel_hi",
                            "neg_lo", "neg_hi", "dst_sel", "dst_unused", "src0_sel", "src1_sel",
                            "quad_perm", "row_shl", "row_shr", "row_ror", "wave_shl", "wave_rol",
                            "wave_shr", "wave_ror", "row_bcast", "row_mask", "bank_mask",
                            "bound_ctrl", "format", "dfmt", "nfmt"};

// Modifier names start with a few letters only: reject register names and
// the like before comparing strings.
bool could_be_modifier(std::string_view s) {
  if (s.size() < 2) return false;
  switch (s[0]) {
    case 'c': case 'g': case 's': case 'l': case 't': case 'o': case 'i': case 'n': case 'r':
    case 'm': case 'd': case 'q': case 'w': case 'b': case 'f':
      break;
    default:
      return false;
  }
  // s0..s101 / v-registers are never modifiers
  if (s[0] == 's' && s[1] >= '0' && s[1] <= '9') return false;
  return true;
}
bool is_flag_mod(std::string_view s) {
  if (!could_be_modifier(s)) return false;
  for (std::string_view m : kFlagMods)
    if (s == m) return true;
  return false;
}
bool is_value_mod(std::string_view s) {
  if (!could_be_modifier(s)) return false;
  for (std::string_view m : kValueMods)
    if (s == m) return true;
  return false;
}

struct SpecialReg {
  std::string_view name;
  uint16_t code;
  uint8_t width;
};
constexpr SpecialReg kSpecialRegs[] = {
    {"vcc", code::kVccLo, 2},          {"vcc_lo", code::kVccLo, 1},
    {"vcc_hi", code::kVccHi, 1},       {"exec", code::kExecLo, 2},
    {"exec_lo", code::kExecLo, 1},     {"exec_hi", code::kExecHi, 1},
    {"m0", code::kM0, 1},              {"flat_scratch", code::kFlatScratchLo, 2},
    {"flat_scratch_lo", code::kFlatScratchLo, 1}, {"flat_scratch_hi", code::kFlatScratchHi, 1},
    {"xnack_mask", code::kXnackMaskLo, 2}, {"xnack_mask_lo", code::kXnackMaskLo, 1},
    {"xnack_mask_hi", code::kXnackMaskHi, 1},
    {"scc", code::kScc, 1},            {"src_scc", code::kScc, 1},
    {"vccz", code::kVccz, 1},          {"src_vccz", code::kVccz, 1},
    {"execz", code::kExecz, 1},        {"src_execz", code::kExecz, 1},
    {"lds_direct", code::kLdsDirect, 1}, {"src_lds_direct", code::kLdsDirect, 1},
    {"src_shared_base", code::kSharedBase, 1}, {"shared_base", code::kSharedBase, 1},
    {"src_shared_limit", code::kSharedLimit, 1}, {"shared_limit", code::kSharedLimit, 1},
    {"src_private_base", code::kPrivateBase, 1}, {"private_base", code::kPrivateBase, 1},
    {"src_private_limit", code::kPrivateLimit, 1}, {"private_limit", code::kPrivateLimit, 1},
    {"src_pops_exiting_wave_id", code::kPopsExitingWaveId, 1},
    {"pops_exiting_wave_id", code::kPopsExitingWaveId, 1},
};

bool is_dpp_mod(const std::string& n) {
  return n == "quad_perm" || n == "row_shl" || n == "row_shr" || n == "row_ror" || n == "wave_shl" ||
         n == "wave_rol" || n == "wave_shr" || n == "wave_ror" || n == "row_mirror" ||
         n == "row_half_mirror" || n == "row_bcast" || n == "row_mask" || n == "bank_mask" ||
         n == "bound_ctrl";
}
bool is_sdwa_mod(const std::string& n) {
  return n == "dst_sel" || n == "dst_unused" || n == "src0_sel" || n == "src1_sel";
}

// Position of a modifier in the order llvm-mc reads them.
int modifier_rank(const std::string& n) {
  static const char* order[] = {"format", "dfmt", "nfmt", "idxen", "offen", "offset", "offset0", "offset1",
                                "op_sel", "op_sel_hi", "neg_lo", "neg_hi", "glc", "glc", "lds", "tfe", "gds",
                                "clamp", "mul", "mul", "dst_sel", "dst_unused", "src0_sel", "src1_sel",
                                "dpp_ctrl", "row_mask", "bank_mask", "bound_ctrl"};
  std::string key = n;
  if (key == "slc") key = "glc";
  if (key == "div") key = "mul";
  if (is_dpp_mod(key) && key != "row_mask" && key != "bank_mask" && key != "bound_ctrl") key = "dpp_ctrl";
  for (int i = 0; i < int(std::size(order)); ++i)
    if (key == order[i]) return i;
  return 0;
}

struct ModifierInfo {
  int rank = 0;
  bool dpp = false, sdwa = false, dpp_control = false;
};

// Classification of every modifier name, computed once.
const ModifierInfo& modifier_info(std::string_view name) {
  static const std::unordered_map<std::string_view, ModifierInfo> table = [] {
    std::unordered_map<std::string_view, ModifierInfo> t;
    auto add = [&](std::string_view n) {
      std::string s(n);
      ModifierInfo i;
      i.rank = modifier_rank(s);
      i.dpp = is_dpp_mod(s);
      i.sdwa = is_sdwa_mod(s);
      i.dpp_control = i.dpp && s != "row_mask" && s != "bank_mask" && s != "bound_ctrl";
      t.emplace(n, i);
    };
    for (std::string_view n : kFlagMods) add(n);
    for (std::string_view n : kValueMods) add(n);
    return t;
  }();
  static const ModifierInfo none;
  auto it = table.find(name);
  return it == table.end() ? none : it->second;
}

// How llvm reads the operand at one position of a mnemonic. It chooses by
// the row (every encoding of the name, whatever suffix was written): a
// position where some encoding takes neg/abs is read with the floating-point
// modifier syntax, one that takes only sext with the integer syntax.
// (v_cndmask_b32 takes both kinds: sext(x) reads as integer, the rest as floating point.)
enum class OperandSyntax : uint8_t { Plain, FpModifiers, IntModifiers, BothModifiers };

struct OperandSyntaxes {
  OperandSyntax at[8] = {};
  size_t n = 0;
  size_t size() const { return n; }
  OperandSyntax operator[](size_t i) const { return at[i]; }
};

int source_slot(Field f);

OperandSyntaxes operand_syntaxes(const InstDesc* d) {
  OperandSyntaxes out;
  if (!d) return out;
  auto visit = [&](Encoding e) {
    const auto& specs = d->operands_of(e);
    for (size_t i = 0; i < specs.size() && i < std::size(out.at); ++i) {
      out.n = std::max(out.n, i + 1);
      if (source_slot(specs[i].field) < 0) continue;
      uint8_t m = d->source_mods(e, specs[i]);
      bool fp = (m & (kModNeg | kModAbs)) || out.at[i] == OperandSyntax::FpModifiers ||
                out.at[i] == OperandSyntax::BothModifiers;
      bool integer = (m & kModSext) || out.at[i] == OperandSyntax::IntModifiers ||
                     out.at[i] == OperandSyntax::BothModifiers;
      out.at[i] = fp && integer ? OperandSyntax::BothModifiers
                  : fp          ? OperandSyntax::FpModifiers
                  : integer     ? OperandSyntax::IntModifiers
                                : OperandSyntax::Plain;
    }
  };
  visit(Encoding::Native);
  if (d->has_e64()) visit(Encoding::E64);
  if (d->has(kFlagSdwa)) visit(Encoding::SDWA);
  if (d->has(kFlagDpp)) visit(Encoding::DPP);
  return out;
}

// The row a mnemonic names, with or without an encoding suffix.
const InstDesc* row_of_mnemonic(std::string_view mnemonic) {
  for (std::string_view suffix : {"_e32", "_e64", "_sdwa", "_dpp"}) {
    if (mnemonic.size() <= suffix.size() || mnemonic.substr(mnemonic.size() - suffix.size()) != suffix) continue;
    std::string_view base = mnemonic.substr(0, mnemonic.size() - suffix.size());
    if (const InstDesc* d = find_instruction(base); d && d->name == base) return d;
  }
  return find_instruction(mnemonic);
}

class SyntaxParser {
 public:
  SyntaxParser(const std::vector<Token>& t, const SymbolLookup& lookup, const OperandSyntaxes& syntaxes)
      : t_(t), lookup_(lookup), syntaxes_(syntaxes) {}

  // Fills `out` (cleared first; its vectors keep their capacity between statements).
  void parse_all(bool waitcnt_statement, Syntax& out) {
    out.operands.clear();
    out.mods.clear();
    pos_ = 1;
    if (cur().kind == Tok::End) return;
    if (waitcnt_statement) {
      out.operands.push_back(parse_waitcnt());
      expect_end();
      return;
    }
    bool in_mods = false;
    while (cur().kind != Tok::End) {
      if (!in_mods && starts_modifier()) in_mods = true;
      if (in_mods) {
        out.mods.push_back(parse_modifier());
        if (cur().kind == Tok::Comma) ++pos_;
        continue;
      }
      size_t index = out.operands.size();
      out.operands.push_back(parse_operand(index < syntaxes_.size() ? syntaxes_[index] : OperandSyntax::Plain));
      if (cur().kind == Tok::Comma) {
        ++pos_;
        if (cur().kind == Tok::End) fail(cur().col, "expected an operand after ','");
        continue;
      }
      if (cur().kind == Tok::End) break;
      if (starts_modifier()) {
        in_mods = true;
        continue;
      }
      fail(cur().col, "expected ',' or end of statement, found '" + std::string(cur().text) + "'");
    }
  }

 private:
  const std::vector<Token>& t_;
  const SymbolLookup& lookup_;
  const OperandSyntaxes& syntaxes_;
  size_t pos_ = 1;

  const Token& cur() const { return t_[pos_]; }
  const Token& peek(size_t n = 1) const { return t_[std::min(pos_ + n, t_.size() - 1)]; }
  void expect(Tok k, const char* what) {
    if (cur().kind != k) fail(cur().col, std::string("expected ") + what + ", found " + describe(cur()));
    ++pos_;
  }
  void expect_end() {
    if (cur().kind != Tok::End) fail(cur().col, "unexpected " + describe(cur()) + " at end of statement");
  }
  static std::string describe(const Token& tk) {
    if (tk.kind == Tok::End) return "end of statement";
    return "'" + std::string(tk.text) + "'";
  }

  bool starts_modifier() const {
    if (cur().kind != Tok::Identifier) return false;
    std::string_view s = cur().text;
    if (is_flag_mod(s)) return true;
    return is_value_mod(s) && peek().kind == Tok::Colon;
  }

  int64_t parse_int_expr(const char* what) {
    uint32_t col = cur().col;
    auto r = parse_expression(t_, pos_, lookup_);
    if (!r.error.empty()) fail(r.error_col, r.error);
    if (!r.value) fail(col, std::string("expected an absolute expression for ") + what + " (undefined symbol '" +
                              (r.undefined.empty() ? std::string("?") : r.undefined[0]) + "')");
    if (!r.value->absolute()) fail(col, std::string("expected an absolute expression for ") + what);
    return r.value->value;
  }

  std::vector<int64_t> parse_list() {
    expect(Tok::LBracket, "'['");
    std::vector<int64_t> v;
    if (cur().kind != Tok::RBracket) {
      while (true) {
        v.push_back(parse_int_expr("a list element"));
        if (cur().kind == Tok::Comma) {
          ++pos_;
          continue;
        }
        break;
      }
    }
    expect(Tok::RBracket, "']'");
    return v;
  }

  SynModifier parse_modifier() {
    SynModifier m;
    m.col = cur().col;
    m.name = std::string(cur().text);
    const ModifierInfo& info = modifier_info(cur().text);
    m.rank = info.rank;
    m.dpp = info.dpp;
    m.sdwa = info.sdwa;
    m.dpp_control = info.dpp_control;
    ++pos_;
    if (is_flag_mod(m.name) && cur().kind != Tok::Colon) return m;
    expect(Tok::Colon, "':'");
    m.has_value = true;
    if (std::string_view(m.name) == "op_sel" || std::string_view(m.name) == "op_sel_hi" || std::string_view(m.name) == "neg_lo" || std::string_view(m.name) == "neg_hi" ||
        std::string_view(m.name) == "quad_perm") {
      m.list = parse_list();
      return m;
    }
    if (std::string_view(m.name) == "format") {
      expect(Tok::LBracket, "'['");
      while (cur().kind == Tok::Identifier || cur().kind == Tok::Integer) {
        if (cur().kind == Tok::Integer) {
          m.list.push_back(int64_t(cur().int_value));
        } else {
          m.ident += (m.ident.empty() ? "" : ",") + std::string(cur().text);
        }
        ++pos_;
        if (cur().kind == Tok::Comma) ++pos_;
      }
      expect(Tok::RBracket, "']'");
      return m;
    }
    if (std::string_view(m.name) == "dst_sel" || std::string_view(m.name) == "dst_unused" || std::string_view(m.name) == "src0_sel" || std::string_view(m.name) == "src1_sel") {
      if (cur().kind != Tok::Identifier) fail(cur().col, "expected a select name such as DWORD or BYTE_0");
      m.ident = std::string(cur().text);
      ++pos_;
      return m;
    }
    if (std::string_view(m.name) == "offset" && cur().kind == Tok::Identifier && cur().text == "swizzle") {
      m.ident = "swizzle";
      m.value = parse_swizzle();
      return m;
    }
    m.value = parse_int_expr(m.name.c_str());
    return m;
  }

  int64_t parse_swizzle() {
    ++pos_;  // swizzle
    expect(Tok::LParen, "'('");
    if (cur().kind != Tok::Identifier) fail(cur().col, "expected a swizzle mode");
    std::string mode(cur().text);
    uint32_t col = cur().col;
    ++pos_;
    std::vector<int64_t> args;
    std::string pattern;
    while (cur().kind == Tok::Comma) {
      ++pos_;
      if (cur().kind == Tok::String) {
        pattern = string_value(cur());
        ++pos_;
      } else {
        args.push_back(parse_int_expr("a swizzle argument"));
      }
    }
    expect(Tok::RParen, "')'");
    auto pow2 = [](int64_t v) { return v > 0 && !(v & (v - 1)); };
    if (mode == "QUAD_PERM") {
      if (args.size() != 4) fail(col, "expected 4 lane ids");
      int64_t v = 0x8000;
      for (int i = 0; i < 4; ++i) {
        if (args[size_t(i)] < 0 || args[size_t(i)] > 3) fail(col, "lane id must be in the interval [0,3]");
        v |= args[size_t(i)] << (2 * i);
      }
      return v;
    }
    if (mode == "SWAP") {
      if (args.size() != 1 || args[0] < 1 || args[0] > 16 || !pow2(args[0])) fail(col, "group size must be a power of two");
      return 0x1f | args[0] << 10;
    }
    if (mode == "REVERSE") {
      if (args.size() != 1 || args[0] < 2 || args[0] > 32 || !pow2(args[0])) fail(col, "group size must be a power of two");
      return 0x1f | (args[0] - 1) << 10;
    }
    if (mode == "BROADCAST") {
      if (args.size() != 2 || args[0] < 2 || args[0] > 32 || !pow2(args[0])) fail(col, "group size must be a power of two");
      if (args[1] < 0 || args[1] >= args[0]) fail(col, "lane id must be in the interval [0,group size - 1]");
      return (0x20 - args[0]) | args[1] << 5;
    }
    if (mode == "BITMASK_PERM") {
      if (pattern.size() != 5) fail(col, "expected a 5-character mask");
      int64_t and_m = 0, or_m = 0, xor_m = 0;
      for (int i = 0; i < 5; ++i) {
        int bit = 1 << (4 - i);
        switch (pattern[size_t(i)]) {
          case '0': break;
          case '1': or_m |= bit; break;
          case 'p': and_m |= bit; break;
          case 'i': and_m |= bit; xor_m |= bit; break;
          default: fail(col, "invalid mask");
        }
      }
      return and_m | or_m << 5 | xor_m << 10;
    }
    fail(col, "expected a swizzle mode (QUAD_PERM, BITMASK_PERM, SWAP, REVERSE, BROADCAST)");
  }

  // vmcnt(N) expcnt(N) lgkmcnt(N), separated by spaces, '&' or ','; or an expression.
  SynOperand parse_waitcnt() {
    SynOperand o;
    o.col = cur().col;
    if (!(cur().kind == Tok::Identifier && peek().kind == Tok::LParen &&
          (cur().text.rfind("vmcnt", 0) == 0 || cur().text.rfind("expcnt", 0) == 0 ||
           cur().text.rfind("lgkmcnt", 0) == 0))) {
      size_t start = pos_;
      auto r = parse_expression(t_, pos_, lookup_);
      if (!r.error.empty()) fail(r.error_col, r.error);
      if (!r.value || !r.value->absolute()) fail(o.col, "expected an absolute expression");
      o.kind = SynOperand::Kind::Imm;
      o.imm = uint32_t(r.value->value) & 0xffff;  // llvm keeps the low 16 bits
      (void)start;
      return o;
    }
    Waitcnt w;
    while (cur().kind == Tok::Identifier) {
      std::string name(cur().text);
      uint32_t col = cur().col;
      ++pos_;
      expect(Tok::LParen, "'('");
      int64_t v = parse_int_expr(name.c_str());
      expect(Tok::RParen, "')'");
      bool sat = name.size() > 4 && name.substr(name.size() - 4) == "_sat";
      std::string base = sat ? name.substr(0, name.size() - 4) : name;
      unsigned max = base == "vmcnt" ? kVmcntMax : base == "expcnt" ? kExpcntMax : base == "lgkmcnt" ? kLgkmcntMax : 0;
      if (!max) fail(col, "invalid counter name " + name);
      if (v < 0 || (uint64_t(v) > max && !sat)) fail(col, "too large value for " + name);
      unsigned val = unsigned(std::min<int64_t>(v, max));
      if (base == "vmcnt") w.vmcnt = val;
      else if (base == "expcnt") w.expcnt = val;
      else w.lgkmcnt = val;
      if (cur().kind == Tok::Amp || cur().kind == Tok::Comma) ++pos_;
    }
    o.kind = SynOperand::Kind::Imm;
    o.imm = w.encode();
    return o;
  }

  // name(args...) for hwreg / sendmsg / gpr_idx
  uint32_t parse_hwreg() {
    uint32_t col = cur().col;
    ++pos_;
    expect(Tok::LParen, "'('");
    int64_t id;
    if (cur().kind == Tok::Identifier && hwreg_id(cur().text)) {
      id = *hwreg_id(cur().text);
      ++pos_;
    } else if (cur().kind == Tok::Identifier && !lookup_(std::string(cur().text))) {
      fail(cur().col, "expected a register name or an absolute expression");
    } else {
      id = parse_int_expr("a hwreg id");
    }
    int64_t offset = 0, size = 32;
    if (cur().kind == Tok::Comma) {
      ++pos_;
      offset = parse_int_expr("a bit offset");
      expect(Tok::Comma, "','");
      size = parse_int_expr("a bitfield width");
    }
    expect(Tok::RParen, "')'");
    if (id < 0 || id > 63) fail(col, "invalid code of hardware register: only 6-bit values are legal");
    if (offset < 0 || offset > 31) fail(col, "invalid bit offset: only 5-bit values are legal");
    if (size < 1 || size > 32) fail(col, "invalid bitfield width: only values from 1 to 32 are legal");
    return uint32_t(id | offset << 6 | (size - 1) << 11);
  }

  uint32_t parse_sendmsg() {
    uint32_t col = cur().col;
    ++pos_;
    expect(Tok::LParen, "'('");
    int64_t msg;
    if (cur().kind == Tok::Identifier && sendmsg_id(cur().text)) {
      msg = *sendmsg_id(cur().text);
      ++pos_;
    } else {
      msg = parse_int_expr("a message id");
    }
    int64_t op = 0, stream = 0;
    bool has_op = false;
    if (cur().kind == Tok::Comma) {
      ++pos_;
      has_op = true;
      if (cur().kind == Tok::Identifier && sendmsg_op_id(unsigned(msg), cur().text)) {
        op = *sendmsg_op_id(unsigned(msg), cur().text);
        ++pos_;
      } else {
        op = parse_int_expr("an operation id");
      }
      if (cur().kind == Tok::Comma) {
        ++pos_;
        stream = parse_int_expr("a stream id");
      }
    }
    expect(Tok::RParen, "')'");
    (void)has_op;
    if (msg < 0 || msg > 15) fail(col, "invalid message id");
    if (op < 0 || op > 7) fail(col, "invalid operation id");
    if (stream < 0 || stream > 3) fail(col, "invalid message stream id");
    return uint32_t(msg | op << 4 | stream << 8);
  }

  uint32_t parse_gpr_idx() {
    ++pos_;
    expect(Tok::LParen, "'('");
    uint32_t v = 0;
    while (cur().kind == Tok::Identifier) {
      auto m = gpr_idx_mode(cur().text);
      if (!m) fail(cur().col, "expected a VGPR index mode (SRC0, SRC1, SRC2, DST)");
      if (v & *m) fail(cur().col, "duplicate VGPR index mode");
      v |= *m;
      ++pos_;
      if (cur().kind == Tok::Comma) ++pos_;
    }
    expect(Tok::RParen, "')'");
    return v;
  }

  // v5 v[5:6] v[5] s[0:1] ttmp[4:7] and named registers; nullopt if not a register
  std::optional<SynOperand> try_register() {
    const Token& tk = cur();
    if (tk.kind == Tok::LBracket) return register_list();
    if (tk.kind != Tok::Identifier) return std::nullopt;
    std::string_view s = tk.text;
    SynOperand o;
    o.kind = SynOperand::Kind::Reg;
    o.col = tk.col;
    // fast path: v12 / s12
    if (s.size() >= 2 && s.size() <= 4 && (s[0] == 'v' || s[0] == 's') && s[1] >= '0' && s[1] <= '9' &&
        (s.size() == 2 || s[1] != '0')) {
      unsigned n = 0;
      bool digits = true;
      for (size_t k = 1; k < s.size(); ++k) {
        if (s[k] < '0' || s[k] > '9') digits = false;
        n = n * 10 + unsigned(s[k] - '0');
      }
      if (digits) {
        if (s[0] == 'v') {
          if (n > 255) fail(o.col, "register index is out of range");
          o.code = uint16_t(code::kVgprFirst + n);
        } else {
          if (n > code::kSgprLast) fail(o.col, "register index is out of range");
          o.code = uint16_t(n);
        }
        ++pos_;
        return o;
      }
    }
    for (const auto& sr : kSpecialRegs)
      if (s == sr.name) {
        o.code = sr.code;
        o.width = sr.width;
        ++pos_;
        return o;
      }
    std::string_view prefix;
    for (std::string_view p : {"ttmp", "v", "s"})
      if (s.rfind(p, 0) == 0) {
        prefix = p;
        break;
      }
    if (prefix.empty()) return std::nullopt;
    std::string_view rest = s.substr(prefix.size());
    unsigned first = 0, width = 1;
    if (rest.empty()) {
      if (peek().kind != Tok::LBracket) return std::nullopt;
      // fast path: v[4:7] written with plain numbers
      if (peek(2).kind == Tok::Integer && peek(3).kind == Tok::Colon && peek(4).kind == Tok::Integer &&
          peek(5).kind == Tok::RBracket) {
        uint64_t a = peek(2).int_value, b = peek(4).int_value;
        pos_ += 6;
        if (b < a || a > 511 || b > 511) fail(o.col, "invalid register range");
        first = unsigned(a);
        width = unsigned(b - a + 1);
      } else {
        ++pos_;
        ++pos_;
        int64_t a = parse_int_expr("a register index");
        int64_t b = a;
        if (cur().kind == Tok::Colon) {
          ++pos_;
          b = parse_int_expr("a register index");
        }
        expect(Tok::RBracket, "']'");
        if (b < a || a < 0 || b > 511) fail(o.col, "invalid register range");
        first = unsigned(a);
        width = unsigned(b - a + 1);
      }
    } else {
      for (char c : rest)
        if (!std::isdigit(uint8_t(c))) return std::nullopt;
      if (rest.size() > 1 && rest[0] == '0') return std::nullopt;
      if (rest.size() > 4) fail(o.col, "register index is out of range");
      first = 0;
      for (char c : rest) first = first * 10 + unsigned(c - '0');
      ++pos_;
    }
    if (width > 16 && prefix != "v") fail(o.col, "invalid register range");
    if (width > 32) fail(o.col, "invalid register range");
    if (prefix == "v") {
      if (first + width - 1 > 255) fail(o.col, "register index is out of range");
      o.code = uint16_t(code::kVgprFirst + first);
    } else if (prefix == "s") {
      if (first + width - 1 > code::kSgprLast) fail(o.col, "register index is out of range");
      o.code = uint16_t(first);
    } else {
      if (first + width - 1 > 15) fail(o.col, "register index is out of range");
      o.code = uint16_t(code::kTtmpFirst + first);
    }
    o.width = uint8_t(width);
    return o;
  }

  std::optional<SynOperand> register_list() {
    uint32_t col = cur().col;
    size_t save = pos_;
    ++pos_;
    std::vector<SynOperand> regs;
    while (true) {
      auto r = try_register();
      if (!r) {
        pos_ = save;
        return std::nullopt;
      }
      regs.push_back(*r);
      if (cur().kind == Tok::Comma) {
        ++pos_;
        continue;
      }
      break;
    }
    expect(Tok::RBracket, "']'");
    SynOperand o = regs[0];
    o.col = col;
    for (size_t i = 1; i < regs.size(); ++i) {
      if (regs[i].width != 1 || regs[i].code != regs[0].code + i ||
          (regs[i].code >= code::kVgprFirst) != (regs[0].code >= code::kVgprFirst))
        fail(col, "registers in a list must be of the same kind and have consecutive indices");
    }
    o.width = uint8_t(regs.size());
    return o;
  }

  // One operand, read the way llvm reads the operand at this position of the
  // mnemonic: with floating-point source modifiers (-x, |x|, neg(x), abs(x)),
  // with the integer one (sext(x)), or plain (a '-' is part of the number).
  SynOperand parse_operand(OperandSyntax syntax) {
    if (syntax == OperandSyntax::BothModifiers) return at_call("sext") ? parse_int_modifiers() : parse_fp_modifiers();
    if (syntax == OperandSyntax::FpModifiers) return parse_fp_modifiers();
    if (syntax == OperandSyntax::IntModifiers) return parse_int_modifiers();
    return parse_reg_or_imm(false);
  }

  bool at_call(std::string_view name) const {
    return cur().kind == Tok::Identifier && cur().text == name && peek().kind == Tok::LParen;
  }

  SynOperand parse_fp_modifiers() {
    uint32_t col = cur().col;
    // `--1` is ambiguous (neg of -1, or the number 1): llvm asks for neg(-1)
    if (cur().kind == Tok::Minus && peek().kind == Tok::Minus) fail(col, "invalid syntax, expected 'neg' modifier");
    bool sp3_neg = false;
    if (cur().kind == Tok::Minus) {
      const Token& nx = peek();
      if (nx.kind == Tok::Pipe || (nx.kind == Tok::Identifier && (nx.text == "abs" || is_register_name(nx, peek(2))))) {
        sp3_neg = true;
        ++pos_;
      }
    }
    bool neg = false, abs = false, sp3_abs = false;
    if (at_call("neg")) {
      if (sp3_neg) fail(cur().col, "expected register or immediate");
      neg = true;
      pos_ += 2;
    }
    if (at_call("abs")) {
      abs = true;
      pos_ += 2;
    }
    if (cur().kind == Tok::Pipe) {
      if (abs) fail(cur().col, "expected register or immediate");
      sp3_abs = true;
      ++pos_;
    }
    SynOperand o = parse_reg_or_imm(sp3_abs);
    if (sp3_abs) expect(Tok::Pipe, "vertical bar");
    if (abs) expect(Tok::RParen, "closing parentheses");
    if (neg) expect(Tok::RParen, "closing parentheses");
    o.neg = neg || sp3_neg;
    o.abs = abs || sp3_abs;
    if ((o.neg || o.abs) && o.kind == SynOperand::Kind::Expr) fail(col, "expected an absolute expression");
    if (o.neg || o.abs) o.col = col;
    return o;
  }

  SynOperand parse_int_modifiers() {
    uint32_t col = cur().col;
    bool sext = at_call("sext");
    if (sext) pos_ += 2;
    SynOperand o = parse_reg_or_imm(false);
    if (!sext) return o;
    expect(Tok::RParen, "closing parentheses");
    if (o.kind == SynOperand::Kind::Expr) fail(col, "expected an absolute expression");
    o.sext = true;
    o.col = col;
    return o;
  }

  // A register, a number or an expression, without source modifiers.
  SynOperand parse_reg_or_imm(bool in_abs) {
    SynOperand o;
    o.col = cur().col;
    if (cur().kind == Tok::Minus && peek().kind == Tok::Float) {
      const Token& nx = peek();
      pos_ += 2;
      o.kind = SynOperand::Kind::Const;
      o.cval.is_float = true;
      o.cval.f = -nx.float_value;
      o.text = "-" + std::string(nx.text);
      return o;
    }
    if (cur().kind == Tok::Float) {
      o.kind = SynOperand::Kind::Const;
      o.cval.is_float = true;
      o.cval.f = cur().float_value;
      o.text = std::string(cur().text);
      ++pos_;
      return o;
    }
    if (cur().kind == Tok::Identifier) {
      std::string_view s = cur().text;
      if (s == "off") {
        ++pos_;
        o.kind = SynOperand::Kind::Off;
        o.text = "off";
        return o;
      }
      if (peek().kind == Tok::LParen) {
        if (s == "hwreg") { o.kind = SynOperand::Kind::Imm; o.imm = parse_hwreg(); return o; }
        if (s == "sendmsg") { o.kind = SynOperand::Kind::Imm; o.imm = parse_sendmsg(); return o; }
        if (s == "gpr_idx") { o.kind = SynOperand::Kind::Imm; o.imm = parse_gpr_idx(); return o; }
        if (s.rfind("vmcnt", 0) == 0 || s.rfind("expcnt", 0) == 0 || s.rfind("lgkmcnt", 0) == 0)
          return parse_waitcnt();
      }
      if (auto r = try_register()) return std::move(*r);
    }
    if (cur().kind == Tok::LBracket) {
      if (auto r = try_register()) return std::move(*r);
    }
    // expression
    size_t start = pos_;
    auto r = parse_expression(t_, pos_, lookup_, in_abs, true);
    if (!r.error.empty()) fail(r.error_col, r.error);
    for (size_t i = start; i < pos_; ++i) {
      if (i > start && t_[i].space_before) o.text += ' ';
      o.text += std::string(t_[i].text);
    }
    if (r.value && r.value->absolute()) {
      o.kind = SynOperand::Kind::Const;
      o.cval.i = r.value->value;
      return o;
    }
    o.kind = SynOperand::Kind::Expr;
    o.expr.assign(t_.begin() + long(start), t_.begin() + long(pos_));
    Token end;
    end.kind = Tok::End;
    o.expr.push_back(end);
    return o;
  }

  static bool is_register_name(const Token& tk, const Token& next) {
    std::string_view s = tk.text;
    for (const auto& sr : kSpecialRegs)
      if (s == sr.name) return true;
    for (std::string_view p : {"ttmp", "v", "s"}) {
      if (s.rfind(p, 0) != 0) continue;
      std::string_view rest = s.substr(p.size());
      if (rest.empty()) return next.kind == Tok::LBracket;
      bool digits = true;
      for (char c : rest) digits &= bool(std::isdigit(uint8_t(c)));
      if (digits) return true;
    }
    return false;
  }
};

// ------------------------------------------------------------------ matching

struct Candidate {
  const InstDesc* desc;
  Encoding enc;
};

int source_slot(Field f) {
  switch (f) {
    case Field::src0: case Field::ssrc0: return 0;
    case Field::src1: case Field::vsrc1: case Field::ssrc1: return 1;
    case Field::src2: return 2;
    default: return -1;
  }
}

bool name_ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

unsigned operand_bits(OpType type) {
  if (type == OpType::F16 || type == OpType::I16) return 16;
  if (type == OpType::F64 || type == OpType::B64) return 64;
  return 32;
}

// v fits `bits` bits as a signed or an unsigned number
bool fits_bits(int64_t v, unsigned bits) {
  return (v >= -(int64_t(1) << (bits - 1)) && v < (int64_t(1) << (bits - 1))) ||
         (v >= 0 && v < (int64_t(1) << bits));
}

// neg/abs applied to a constant's sign bit: bit 63 of a floating-point
// number (read as a double), else the top bit of the operand's size.
ConstantValue with_sign_modifiers(ConstantValue v, bool neg, bool abs, OpType type) {
  if (v.is_float) {
    if (abs) v.f = std::fabs(v.f);
    if (neg) v.f = -v.f;
    return v;
  }
  unsigned bits = operand_bits(type);
  uint64_t sign = 1ull << (bits - 1), x = uint64_t(v.i);
  if (abs) x &= ~sign;
  if (neg) x ^= sign;
  v.i = int64_t(x);
  return v;
}

class Matcher {
 public:
  Matcher(const Syntax& syn, const Candidate& c, std::vector<InstFixup>& fixups)
      : syn_(syn), c_(c), fixups_(fixups) {}

  Inst build() {
    Inst inst;
    inst.id = c_.desc->id;
    inst.encoding = c_.enc;
    const InstDesc& d = *c_.desc;
    Family fam = d.family_of(c_.enc);
    const auto& specs = d.operands_of(c_.enc);
    bool vop3 = fam == Family::VOP3 || fam == Family::VOP3P;
    // defaults
    if (fam == Family::VOP3P) inst.mods.op_sel_hi = d.quirk(kQuirkMix) ? 0 : 7;
    if (c_.enc == Encoding::SDWA) {
      inst.mods.dst_unused = SdwaUnused::UNUSED_PRESERVE;
      bool has_src1 = false;
      for (const auto& s : specs) has_src1 |= s.field == Field::vsrc1;
      if (!has_src1) inst.mods.src1_sel = SdwaSel::BYTE_0;  // encoded as 0 when unused
    }
    apply_modifiers(inst, fam);
    if (fam == Family::VOP3P) {
      // llvm drops neg_lo/neg_hi of packed 16-bit integer sources other than src0
      for (const auto& s : specs) {
        int slot = source_slot(s.field);
        if (slot >= 1 && s.type == OpType::V2I16) {
          inst.mods.neg &= uint8_t(~(1u << slot));
          inst.mods.neg_hi &= uint8_t(~(1u << slot));
        }
      }
    }
    // The operands as pointers (no allocation): ops[i]->..., front() dropped for atomics.
    struct OperandList {
      const SynOperand* p;
      size_t n;
      size_t size() const { return n; }
      bool empty() const { return n == 0; }
      const SynOperand* operator[](size_t i) const { return p + i; }
      const SynOperand* front() const { return p; }
      const SynOperand* back() const { return p + n - 1; }
    } ops{syn_.operands.data(), syn_.operands.size()};
    size_t nspec = specs.size();
    // SOPP with an optional immediate (s_endpgm)
    if (fam == Family::SOPP && d.has(kFlagOptImm) && ops.size() == 1 && ops[0]->kind == SynOperand::Kind::Const &&
        (ops[0]->cval.is_float || ops[0]->cval.i < 0 || ops[0]->cval.i > 0xffff))
      fail(ops[0]->col, "invalid operand for instruction");  // s_endpgm takes an unsigned 16-bit value
    if (fam == Family::SOPP && d.has(kFlagOptImm) && ops.empty()) {
      inst.num_operands = 1;
      inst.ops[0] = Operand::imm(0);
      return inst;
    }
    // FLAT/GLOBAL/SCRATCH atomics: with glc the first operand is the returned value
    if ((fam == Family::FLAT || fam == Family::GLOBAL || fam == Family::SCRATCH) &&
        d.has(kFlagAtomicRtn) && ops.size() == nspec + 1) {
      const SynOperand* dst = ops.front();
      ++ops.p;
      --ops.n;
      if (dst->kind != SynOperand::Kind::Reg || dst->code < code::kVgprFirst)
        fail(dst->col, "invalid operand for instruction");
      inst.atomic_dst = Operand::vgpr(dst->code - code::kVgprFirst, dst->width);
      if (!inst.mods.glc) fail(dst->col, "instruction must use glc");
      int want = 1;
      for (size_t i = 0; i < nspec; ++i)
        if (specs[i].field == Field::vdata) want = specs[i].width;
      if (d.quirk(kQuirkCmpswap)) want /= 2;
      if (dst->width != want) fail(dst->col, "invalid operand for instruction");
    }
    if (ops.size() < nspec) {
      uint32_t col = ops.empty() ? 0 : ops.back()->col;
      fail(col, "too few operands for instruction");
    }
    if (ops.size() > nspec) fail(ops[nspec]->col, "invalid operand for instruction");
    inst.num_operands = uint8_t(nspec);
    for (size_t i = 0; i < nspec; ++i) convert(inst, int(i), specs[i], *ops[i], vop3, fam);
    if (c_.enc == Encoding::SDWA) {
      // llvm folds a 16-bit integer such as 0xffff into an inline constant in
      // SDWA, yet counts it on the constant bus like a literal
      bool wide_const = false, sgpr = false;
      for (size_t i = 0; i < nspec; ++i) {
        const SynOperand& so = *ops[i];
        bool narrow = specs[i].type == OpType::I16 || specs[i].type == OpType::F16 ||
                      (specs[i].field == Field::vsrc1 && c_.desc->e64_operands.size() > 2 &&
                       (c_.desc->e64_operands[2].type == OpType::I16 || c_.desc->e64_operands[2].type == OpType::F16));
        if (narrow && so.kind == SynOperand::Kind::Const && !so.cval.is_float && (so.cval.i < -16 || so.cval.i > 64))
          wide_const = true;
        if (so.kind == SynOperand::Kind::Reg && so.code < code::kVgprFirst && specs[i].is_source()) sgpr = true;
      }
      if (wide_const && sgpr) fail(ops[0]->col, "invalid operand (violates constant bus restrictions)");
    }
    // widths of register operands follow the family rules
    for (size_t i = 0; i < nspec; ++i) {
      const Operand& o = inst.ops[i];
      if (!(o.is_vgpr() || o.is_sgpr())) continue;
      if (specs[i].field == Field::vcc) continue;
      int want = inst.expected_width(int(i));
      if (o.width != want) fail(ops[i]->col, "invalid operand for instruction");
    }
    return inst;
  }

 private:
  const Syntax& syn_;
  const Candidate& c_;
  std::vector<InstFixup>& fixups_;

  void convert(Inst& inst, int idx, const OperandSpec& spec, const SynOperand& so, bool vop3, Family fam) {
    Operand& o = inst.ops[size_t(idx)];
    OperandSpec s = spec;
    s.accept = c_.desc->accept_of(c_.enc, spec);
    if (c_.enc == Encoding::SDWA && s.field == Field::vsrc1 && s.type == OpType::None) {
      // an SDWA src1 constant has the type of the VOP3 form's src1
      for (const auto& e : c_.desc->e64_operands)
        if (e.field == Field::src1) s.type = e.type;
      if (s.type == OpType::None) s.type = OpType::B32;
    }
    int slot = source_slot(s.field);
    if ((so.neg || so.abs || so.sext) && slot >= 0 && c_.desc->source_mods(c_.enc, s) == 0 &&
        so.kind == SynOperand::Kind::Const && s.type != OpType::GprIdx) {
      // A constant with modifiers where this encoding has no modifier bits
      // (the e32 form of v_add_f32): llvm applies neg and abs to the value's
      // sign bit and drops sext.
      SynOperand plain = so;
      plain.neg = plain.abs = plain.sext = false;
      if (so.neg || so.abs) {
        Operand check;
        if (!constant_operand(so.cval, s.type, vop3, check)) fail(so.col, "invalid operand for instruction");
        // an integer under neg/abs for a 64-bit float operand would mean
        // different things in VOP1/2/C and VOP3: llvm refuses it
        if (!so.cval.is_float && s.type == OpType::F64) fail(so.col, "invalid operand for instruction");
        plain.cval = with_sign_modifiers(so.cval, so.neg, so.abs, s.type);
        unsigned bits = operand_bits(s.type);
        // a value that no longer fits the operand keeps its low bits (which
        // may then be an inline constant, as the encoder sees them)
        if (!plain.cval.is_float && bits < 64 && !fits_bits(plain.cval.i, bits))
          plain.cval.i = int64_t(uint64_t(plain.cval.i) & ((1ull << bits) - 1));
      }
      convert(inst, idx, spec, plain, vop3, fam);
      return;
    }
    if (so.neg || so.abs || so.sext) {
      bool ok = slot >= 0 && s.type != OpType::GprIdx;
      uint8_t allowed = c_.desc->source_mods(c_.enc, s);
      if (ok && so.neg && !(allowed & kModNeg)) ok = false;
      if (ok && so.abs && !(allowed & kModAbs)) ok = false;
      if (ok && so.sext && !(allowed & kModSext)) ok = false;
      if (!ok) fail(so.col, "not a valid operand.");
      if (fam == Family::VOP3P) {
        if (so.neg) inst.mods.neg |= uint8_t(1 << slot);
        if (so.abs) inst.mods.neg_hi |= uint8_t(1 << slot);
      } else if (c_.enc == Encoding::SDWA && (allowed & kModSext)) {
        // integer SDWA operand: llvm encodes neg or sext as the sext bit and drops abs
        if (so.neg || so.sext) inst.mods.sext |= uint8_t(1 << slot);
      } else if (c_.enc == Encoding::DPP && so.sext) {
        inst.mods.neg |= uint8_t(1 << slot);  // llvm encodes DPP sext in the neg bit
        if (so.abs) inst.mods.abs |= uint8_t(1 << slot);
      } else {
        if (so.neg) inst.mods.neg |= uint8_t(1 << slot);
        if (so.abs) inst.mods.abs |= uint8_t(1 << slot);
        if (so.sext) inst.mods.sext |= uint8_t(1 << slot);
      }
      if (fam == Family::VOP3 && inst.find(Field::sdst_vop3b) == nullptr) {
        // nothing more: abs/neg live in the VOP3A fields
      }
    }
    if (s.field == Field::vcc) {
      bool sdwa_sgpr = c_.enc == Encoding::SDWA && c_.desc->family == Family::VOPC;
      if (so.kind != SynOperand::Kind::Reg || so.width != 2 ||
          (so.code != code::kVccLo && !(sdwa_sgpr && so.code < code::kVgprFirst)))
        fail(so.col, "invalid operand for instruction");
      o = Operand::reg(so.code, 2);
      return;
    }
    if (s.field == Field::off) {
      if (so.kind != SynOperand::Kind::Off) fail(so.col, "invalid operand for instruction");
      o = Operand::off();
      return;
    }
    if (s.is_immediate()) {
      convert_immediate(inst, idx, s, so);
      return;
    }
    switch (so.kind) {
      case SynOperand::Kind::Reg:
        o = Operand::reg(so.code, so.width);
        if (o.is_vgpr() && !(s.accept & kAcceptVgpr)) fail(so.col, "invalid operand for instruction");
        if (!o.is_vgpr() && !(s.accept & (kAcceptSgpr | kAcceptInline)))
          fail(so.col, "invalid operand for instruction");
        if (!o.is_vgpr() && !o.is_sgpr() && !(s.accept & kAcceptSgpr)) fail(so.col, "invalid operand for instruction");
        if (!o.is_vgpr() && !o.is_sgpr()) o.width = 1;
        return;
      case SynOperand::Kind::Off:
        if (!(s.accept & kAcceptOff)) fail(so.col, "invalid operand for instruction");
        o = Operand::off();
        return;
      case SynOperand::Kind::Const:
        if (!(s.accept & (kAcceptInline | kAcceptLiteral)) || s.type == OpType::None)
          fail(so.col, "invalid operand for instruction");
        if (!constant_operand(so.cval, s.type, vop3, o)) fail(so.col, "invalid operand for instruction");
        if (o.is_literal() && !(s.accept & kAcceptLiteral)) {
          if (vop3 || fam == Family::VOP3P) fail(so.col, "literal operands are not supported");
          if (reads_vcc_in_e32())  // llvm matches the e32 form, then its constant bus check fails
            throw Validation{Failure{so.col, "invalid operand (violates constant bus restrictions)"}};
          fail(so.col, "invalid operand for instruction");
        }
        return;
      case SynOperand::Kind::Expr:
        if (!(s.accept & kAcceptLiteral)) {
          if (vop3) fail(so.col, "literal operands are not supported");
          fail(so.col, "expected an absolute expression");
        }
        o = Operand::literal(0);
        fixups_.push_back({InstFixup::Kind::Literal, idx, so.expr, so.text, so.col});
        return;
      case SynOperand::Kind::Imm:
        fail(so.col, "invalid operand for instruction");
    }
  }

  // v_cndmask_b32, v_addc_co_u32, ...: their e32 form reads VCC as a last operand
  bool reads_vcc_in_e32() const {
    const auto& specs = c_.desc->operands_of(c_.enc);
    return c_.enc == Encoding::Native && c_.desc->family == Family::VOP2 && !specs.empty() &&
           specs.back().field == Field::vcc;
  }

  void convert_immediate(Inst& inst, int idx, const OperandSpec& s, const SynOperand& so) {
    Operand& o = inst.ops[size_t(idx)];
    auto want_int = [&](const char* what) -> int64_t {
      if (so.kind == SynOperand::Kind::Const && !so.cval.is_float) return so.cval.i;
      if (so.kind == SynOperand::Kind::Imm) return so.imm;
      fail(so.col, std::string("expected ") + what);
    };
    switch (s.type) {
      case OpType::Label:
        if (so.kind == SynOperand::Kind::Expr) {
          o = Operand::imm(0);
          fixups_.push_back({InstFixup::Kind::Branch, idx, so.expr, so.text, so.col});
          return;
        }
        {
          int64_t v = want_int("a branch target");
          if (v < -32768 || v > 65535) fail(so.col, "invalid immediate: only 16-bit values are legal");
          o = Operand::imm(uint32_t(int32_t(int16_t(uint16_t(v)))));
        }
        return;
      case OpType::Waitcnt: case OpType::Sendmsg: case OpType::Hwreg: case OpType::GprIdx: {
        if (so.kind == SynOperand::Kind::Expr) fail(so.col, "expected an absolute expression");
        int64_t v = want_int("an immediate");
        if (s.type == OpType::Waitcnt) v &= 0xffff;  // llvm keeps the low 16 bits
        if (v < 0 || v > 0xffff) fail(so.col, "invalid immediate: only 16-bit values are legal");
        if (s.type == OpType::GprIdx && so.kind == SynOperand::Kind::Const && (v < 0 || v > 15))
          fail(so.col, "invalid immediate: only 4-bit values are legal");
        o = Operand::imm(uint32_t(v));
        return;
      }
      case OpType::Uimm16: case OpType::Simm16: {
        if (so.kind == SynOperand::Kind::Expr) {
          o = Operand::imm(0);
          fixups_.push_back({InstFixup::Kind::Immediate, idx, so.expr, so.text, so.col});
          return;
        }
        int64_t v = want_int("an immediate");
        if (s.type == OpType::Simm16) {
          // SOPK: s_cmpk_*_u32 take an unsigned 16-bit value, the others a signed or unsigned one
          bool unsigned_only = c_.desc->quirk(kQuirkUnsignedImm);
          if (unsigned_only ? (v < 0 || v > 65535) : (v < -32768 || v > 65535))
            fail(so.col, "invalid operand for instruction");
          o = Operand::imm(uint32_t(int32_t(int16_t(uint16_t(v)))));
        } else {
          o = Operand::imm(uint32_t(v) & 0xffff);  // llvm keeps the low 16 bits of a SOPP immediate
        }
        return;
      }
      case OpType::Uimm7: {
        int64_t v = want_int("an immediate");
        o = Operand::imm(uint32_t(v) & 0x7f);  // llvm keeps the low 7 bits
        return;
      }
      case OpType::Imm32: case OpType::Kimm: {
        bool f16 = s.type == OpType::Kimm && c_.desc->quirk(kQuirkF16Constant);
        if (so.kind == SynOperand::Kind::Expr) {
          o = Operand::imm(0);
          fixups_.push_back({InstFixup::Kind::Immediate, idx, so.expr, so.text, so.col});
          return;
        }
        if (so.kind == SynOperand::Kind::Const) {
          Operand tmp;
          if (so.cval.is_float) {
            if (!constant_operand(so.cval, f16 ? OpType::I16 : OpType::B32, false, tmp))
              fail(so.col, "invalid operand for instruction");
            if (!tmp.is_literal()) tmp = Operand::literal(f16 ? 0u : 0u);
            // floats: their bit pattern (inline folding does not apply to K)
            if (f16) {
              Operand h;
              constant_operand(so.cval, OpType::I16, false, h);
              o = Operand::imm(h.value);
            } else if (s.type == OpType::Imm32) {
              o = Operand::imm(0);  // llvm encodes a floating-point value here as 0
            } else {
              float fv = float(so.cval.f);
              uint32_t bits;
              std::memcpy(&bits, &fv, 4);
              o = Operand::imm(bits);
            }
            return;
          }
          int64_t v = so.cval.i;
          if (f16 && (v < -32768 || v > 65535)) fail(so.col, "invalid operand for instruction");
          o = Operand::imm(uint32_t(v) & (f16 ? 0xffffu : 0xffffffffu));
          return;
        }
        fail(so.col, "invalid operand for instruction");
      }
      case OpType::SmemOffset:
        if (so.kind == SynOperand::Kind::Reg) {
          if (so.code >= code::kVgprFirst || so.width != 1 || so.code > code::kExecHi)
            fail(so.col, "invalid operand for instruction");
          o = Operand::reg(so.code, 1);
          return;
        }
        {
          int64_t v = want_int("an offset");
          bool buffer = false;  // a buffer resource base (s_buffer_*, s_atc_probe_buffer): unsigned offsets
          for (const auto& sp : c_.desc->operands) buffer |= sp.field == Field::sbase && sp.width == 4;
          if (buffer) {
            if (v < 0 || v > 0xfffff) fail(so.col, "expected a 20-bit unsigned offset");
          } else if (v < -0x100000 || v > 0xfffff) {
            fail(so.col, "expected a 21-bit signed offset");
          }
          o = Operand::imm(uint32_t(v));
        }
        return;
      default:
        fail(so.col, "invalid operand for instruction");
    }
  }

  void apply_modifiers(Inst& inst, Family fam) {
    Modifiers& m = inst.mods;
    const InstDesc& d = *c_.desc;
    bool vop3 = fam == Family::VOP3 || fam == Family::VOP3P;
    int last_rank = -1;
    auto bad_order = [&](const SynModifier& x) { fail(x.col, "invalid operand for instruction"); };
    bool has_src1 = false, has_src0 = false, has_vdst = false;
    for (const auto& s : d.operands_of(c_.enc)) {
      has_src1 |= s.field == Field::vsrc1;
      has_src0 |= s.field == Field::src0;
      has_vdst |= s.field == Field::vdst;
    }
    if (d.operands_of(c_.enc).empty() && !syn_.mods.empty() &&
        (fam == Family::DS || fam == Family::MUBUF))  // ds_nop, buffer_wbinvl1: nothing to modify
      fail(syn_.mods[0].col, "invalid operand for instruction");
    int dpp_controls = 0;
    for (size_t mi = 0; mi < syn_.mods.size(); ++mi) {
      const auto& md = syn_.mods[mi];
      for (size_t mj = 0; mj < mi; ++mj)
        if (syn_.mods[mj].name == md.name) fail(md.col, "invalid operand for instruction");
      if (md.dpp_control &&
          ++dpp_controls > 1)
        fail(md.col, "invalid operand for instruction");
      if (md.sdwa) {
        int rank = std::string_view(md.name) == "dst_sel" ? 0 : std::string_view(md.name) == "dst_unused" ? 1 : std::string_view(md.name) == "src0_sel" ? 2 : 3;
        if (rank == 3 && !has_src1) fail(md.col, "invalid operand for instruction");
        if (rank == 2 && !has_src0) fail(md.col, "invalid operand for instruction");
        if (rank <= 1 && (d.family == Family::VOPC || !has_vdst)) fail(md.col, "invalid operand for instruction");
      }
      // llvm reads modifiers in one fixed order (glc and slc in either order)
      int rank = md.rank;
      static const int kOffset1Rank = modifier_rank("offset1"), kCacheRank = modifier_rank("glc");
      if (d.quirk(kQuirkLdsSyntax)) {  // "... offset:N lds glc slc": lds must precede cache bits
        if (std::string_view(md.name) == "lds") rank = kOffset1Rank;
        if ((std::string_view(md.name) == "glc" || std::string_view(md.name) == "slc" || std::string_view(md.name) == "tfe") && !m.lds) bad_order(md);
      }
      if (rank < last_rank || (rank == last_rank && rank != kCacheRank))
        fail(md.col, "invalid operand for instruction");
      last_rank = rank;
      std::string_view n = md.name;  // compared with literals: length first, no strlen
      auto bad = [&]() { fail(md.col, "invalid operand for instruction"); };
      auto bits = [&](size_t max) -> uint8_t {
        if (md.list.empty() || md.list.size() > max) fail(md.col, "expected a list of 0 and 1");
        uint8_t b = 0;
        for (size_t i = 0; i < md.list.size(); ++i) {
          if (md.list[i] != 0 && md.list[i] != 1) fail(md.col, "expected a 0 or 1 value");
          b |= uint8_t(md.list[i] << i);
        }
        return b;
      };
      if (n == "clamp") {
        if (md.has_value) bad();
        m.clamp = true;
      } else if (n == "mul" || n == "div") {
        if (!(vop3 || c_.enc == Encoding::SDWA)) bad();
        if (n == "mul" && md.value == 1) m.omod = 0;
        else if (n == "mul" && md.value == 2) m.omod = 1;
        else if (n == "mul" && md.value == 4) m.omod = 2;
        else if (n == "div" && md.value == 2) m.omod = 3;
        else if (n == "div" && md.value == 1) m.omod = 0;
        else fail(md.col, "invalid output modifier");
      } else if (n == "op_sel") {
        if (!vop3) bad();
        uint8_t b = bits(4);
        if (fam == Family::VOP3 && md.list.size() >= 2) {
          // [src0, ..., dst]: the last entry is the destination bit (op_sel[3])
          size_t last = md.list.size() - 1;
          uint8_t dst = uint8_t((b >> last) & 1);
          b = uint8_t((b & ((1u << last) - 1)) | dst << 3);
        }
        m.op_sel = b;
      } else if (n == "op_sel_hi") {
        if (fam != Family::VOP3P) bad();
        uint8_t b = bits(3);
        size_t nl = md.list.size();
        uint8_t keep = uint8_t(m.op_sel_hi & ~((1u << nl) - 1));
        m.op_sel_hi = uint8_t(b | keep);
      } else if (n == "neg_lo") {
        if (fam != Family::VOP3P || !d.has(kFlagNegLo)) bad();
        m.neg |= bits(3);
      } else if (n == "neg_hi") {
        if (fam != Family::VOP3P || !d.has(kFlagNegHi)) bad();
        m.neg_hi |= bits(3);
      } else if (md.sdwa) {
        if (c_.enc != Encoding::SDWA) bad();
        if (n == "dst_unused") {
          auto u = sdwa_unused(md.ident);
          if (!u) fail(md.col, "invalid dst_unused value");
          m.dst_unused = SdwaUnused(*u);
        } else {
          auto s = sdwa_sel(md.ident);
          if (!s) fail(md.col, "invalid " + std::string(n) + " value");
          if (n == "dst_sel") m.dst_sel = SdwaSel(*s);
          if (n == "src0_sel") m.src0_sel = SdwaSel(*s);
          if (n == "src1_sel") m.src1_sel = SdwaSel(*s);
        }
      } else if (md.dpp) {
        if (c_.enc != Encoding::DPP) bad();
        dpp_modifier(m, md);
      } else if (n == "offset") {
        if (fam == Family::DS && d.has(kFlagDs2)) bad();
        if (!(fam == Family::DS || fam == Family::MUBUF || fam == Family::MTBUF || fam == Family::FLAT ||
              fam == Family::GLOBAL || fam == Family::SCRATCH))
          bad();
        if (md.ident == "swizzle" && !d.has(kFlagSwizzle)) bad();
        if (fam == Family::DS && (md.value < 0 || md.value > 0xffff)) fail(md.col, "invalid operand for instruction");
        if ((fam == Family::MUBUF || fam == Family::MTBUF) && (md.value < 0 || md.value > 0xffff))
          fail(md.col, "invalid operand for instruction");
        if (d.quirk(kQuirkLdsSyntax) && md.value > 4095) fail(md.col, "too few operands for instruction");
        if (fam == Family::FLAT && (md.value < 0 || md.value > 4095))
          fail(md.col, "expected a 12-bit unsigned offset");
        if ((fam == Family::GLOBAL || fam == Family::SCRATCH) && (md.value < -4096 || md.value > 4095))
          fail(md.col, "expected a 13-bit signed offset");
        m.offset = int32_t(md.value);
        if (fam == Family::MUBUF || fam == Family::MTBUF) m.offset &= 0xfff;  // llvm keeps the low 12 bits
      } else if (n == "offset0" || n == "offset1") {
        if (!(fam == Family::DS && d.has(kFlagDs2))) bad();
        if (md.value < 0 || md.value > 255) fail(md.col, "invalid operand for instruction");
        (n == "offset0" ? m.offset0 : m.offset1) = uint8_t(md.value);
      } else if (n == "gds") {
        if (fam != Family::DS) bad();
        m.gds = true;
      } else if (n == "glc" || n == "slc" || n == "lds" || n == "tfe") {
        bool mem = fam == Family::MUBUF || fam == Family::MTBUF || fam == Family::FLAT ||
                   fam == Family::GLOBAL || fam == Family::SCRATCH || fam == Family::SMEM;
        if (!mem) bad();
        if (n == "glc") m.glc = true;
        if (n == "slc") m.slc = true;
        if (n == "lds") m.lds = true;
        if (n == "tfe") m.tfe = true;
      } else if (n == "offen" || n == "idxen") {
        if (fam != Family::MUBUF && fam != Family::MTBUF) bad();
        (n == "offen" ? m.offen : m.idxen) = true;
      } else if (n == "format") {
        if (fam != Family::MTBUF) bad();
        size_t start = 0;
        std::string s = md.ident;
        bool any = false;
        while (start <= s.size() && !s.empty()) {
          size_t e = s.find(',', start);
          std::string part = s.substr(start, e == std::string::npos ? std::string::npos : e - start);
          if (auto df = buf_data_format(part)) m.dfmt = uint8_t(*df);
          else if (auto nf = buf_num_format(part)) m.nfmt = uint8_t(*nf);
          else fail(md.col, "unsupported format " + part);
          any = true;
          if (e == std::string::npos) break;
          start = e + 1;
        }
        if (!any && md.list.empty()) fail(md.col, "expected a format");
      } else if (n == "dfmt") {
        if (fam != Family::MTBUF || md.value < 0 || md.value > 15) bad();
        m.dfmt = uint8_t(md.value);
      } else if (n == "nfmt") {
        if (fam != Family::MTBUF || md.value < 0 || md.value > 7) bad();
        m.nfmt = uint8_t(md.value);
      } else {
        bad();
      }
    }
    if (c_.enc == Encoding::DPP && dpp_controls == 0) {
      // the DPP control has no default (llvm requires one too)
      for (const auto& md : syn_.mods)
        if (md.dpp) fail(md.col, "invalid operand for instruction");
      fail(0, "too few operands for instruction");
    }
  }

  void dpp_modifier(Modifiers& m, const SynModifier& md) {
    const std::string& n = md.name;
    auto range = [&](int64_t lo, int64_t hi) {
      if (md.value < lo || md.value > hi) fail(md.col, "invalid " + n + " value");
    };
    if (n == "quad_perm") {
      if (md.list.size() != 4) fail(md.col, "expected 4 lanes");
      uint16_t v = 0;
      for (size_t i = 0; i < 4; ++i) {
        if (md.list[i] < 0 || md.list[i] > 3) fail(md.col, "invalid quad_perm lane");
        v |= uint16_t(md.list[i] << (2 * i));
      }
      m.dpp_ctrl = v;
    } else if (n == "row_shl" || n == "row_shr" || n == "row_ror") {
      range(1, 15);
      m.dpp_ctrl = uint16_t((n == "row_shl" ? dpp::kRowShl : n == "row_shr" ? dpp::kRowShr : dpp::kRowRor) + md.value);
    } else if (n == "wave_shl" || n == "wave_rol" || n == "wave_shr" || n == "wave_ror") {
      range(1, 1);
      m.dpp_ctrl = n == "wave_shl" ? dpp::kWaveShl : n == "wave_rol" ? dpp::kWaveRol : n == "wave_shr" ? dpp::kWaveShr : dpp::kWaveRor;
    } else if (n == "row_mirror") {
      m.dpp_ctrl = dpp::kRowMirror;
    } else if (n == "row_half_mirror") {
      m.dpp_ctrl = dpp::kRowHalfMirror;
    } else if (n == "row_bcast") {
      if (md.value == 15) m.dpp_ctrl = dpp::kRowBcast15;
      else if (md.value == 31) m.dpp_ctrl = dpp::kRowBcast31;
      else fail(md.col, "invalid row_bcast value");
    } else if (n == "row_mask") {
      range(0, 15);
      m.row_mask = uint8_t(md.value);
    } else if (n == "bank_mask") {
      range(0, 15);
      m.bank_mask = uint8_t(md.value);
    } else if (n == "bound_ctrl") {
      range(0, 1);
      m.bound_ctrl = true;  // llvm 14 sets the bit for bound_ctrl:0 and bound_ctrl:1 alike
    }
  }
};

// The encodings to try, in order (at most four).
struct Candidates {
  Candidate c[4];
  int n = 0;
  void push_back(Candidate x) { c[n++] = x; }
  bool empty() const { return n == 0; }
  const Candidate* begin() const { return c; }
  const Candidate* end() const { return c + n; }
};

Candidates candidates(std::string_view mnemonic, const Syntax& syn, uint32_t col) {
  Candidates out;
  bool dpp = false, sdwa = false;
  for (const auto& m : syn.mods) {
    dpp |= m.dpp;
    sdwa |= m.sdwa;
  }
  auto strip = [&](std::string_view suffix) -> const InstDesc* {
    if (!name_ends_with(mnemonic, suffix)) return nullptr;
    std::string_view base = mnemonic.substr(0, mnemonic.size() - suffix.size());
    const InstDesc* d = find_instruction(base);
    return (d && d->name == base) ? d : nullptr;
  };
  if (const InstDesc* d = strip("_sdwa")) {
    out.push_back({d, Encoding::SDWA});
    return out;
  }
  if (const InstDesc* d = strip("_dpp")) {
    out.push_back({d, Encoding::DPP});
    return out;
  }
  if (const InstDesc* d = strip("_e32")) {
    if (d->family == Family::VOP1 || d->family == Family::VOP2 || d->family == Family::VOPC) {
      out.push_back({d, Encoding::Native});
      return out;
    }
  }
  if (const InstDesc* d = strip("_e64")) {
    if (d->has_e64()) out.push_back({d, Encoding::E64});
    else if (d->family == Family::VOP3 || d->family == Family::VOP3P) out.push_back({d, Encoding::Native});
    if (!out.empty()) return out;
  }
  const InstDesc* d = find_instruction(mnemonic);
  if (!d || d->has(kFlagDecodeOnly)) {
    std::string near = closest_match(std::string(mnemonic), all_mnemonics());
    fail(col, "invalid instruction" + (near.empty() ? std::string() : ", did you mean: " + near + "?"));
  }
  if (mnemonic == d->e64_mnemonic && !d->e64_mnemonic.empty() && mnemonic != d->mnemonic) {
    out.push_back({d, Encoding::E64});
    return out;
  }
  if (dpp && d->has(kFlagDpp)) {
    out.push_back({d, Encoding::DPP});
    return out;
  }
  if (sdwa && d->has(kFlagSdwa)) {
    out.push_back({d, Encoding::SDWA});
    return out;
  }
  out.push_back({d, Encoding::Native});
  if (d->has_e64()) out.push_back({d, Encoding::E64});
  // llvm also tries the SDWA and DPP forms (v_mov_b32 v0, v1 clamp is SDWA)
  if (d->has(kFlagSdwa)) out.push_back({d, Encoding::SDWA});
  if (d->has(kFlagDpp)) out.push_back({d, Encoding::DPP});
  return out;
}

}  // namespace

SynModifier make_modifier(std::string name, uint32_t col) {
  SynModifier m;
  const ModifierInfo& info = modifier_info(name);
  m.name = std::move(name);
  m.rank = info.rank;
  m.dpp = info.dpp;
  m.sdwa = info.sdwa;
  m.dpp_control = info.dpp_control;
  m.col = col;
  return m;
}

bool is_modifier_name(std::string_view name) { return is_flag_mod(name) || is_value_mod(name); }

bool match_syntax(std::string_view mnemonic_text, uint32_t mnemonic_col, const Syntax& syn, isa::Target target,
                  ParsedInstruction& out, ParseError& err) {
  try {
    std::string_view mnemonic = mnemonic_text;
    Candidates cands = candidates(mnemonic, syn, mnemonic_col);
    Failure first{0, ""};
    bool have_first = false;
    for (const auto& c : cands) {
      std::vector<InstFixup> fixups;
      try {
        Matcher m(syn, c, fixups);
        Inst inst = m.build();
        std::string problem = check(inst, target);
        // llvm checks the constant bus of the encoding it matched and does
        // not try the next one when that fails (v_cndmask_b32 with a literal and vcc)
        if (!problem.empty() && problem.find("constant bus") != std::string::npos)
          throw Validation{Failure{mnemonic_col, problem}};
        if (!problem.empty()) throw Failure{mnemonic_col, problem};
        out.inst = inst;
        out.fixups = std::move(fixups);
        return true;
      } catch (const Validation& v) {
        throw v.failure;
      } catch (const Failure& f) {
        // Prefer the error of the encoding the user most likely meant: the
        // VOP3 form when the native one cannot hold the operands.
        if (!have_first || c.enc == Encoding::E64) {
          first = f;
          have_first = true;
        }
      }
    }
    throw first;
  } catch (const Failure& f) {
    err.col = f.col ? f.col : mnemonic_col;
    err.message = f.message;
    return false;
  }
}

bool InstructionParser::parse(const std::vector<Token>& tokens, ParsedInstruction& out, ParseError& err) const {
  thread_local Syntax syn;  // reused: its vectors keep their capacity
  try {
    OperandSyntaxes syntaxes = operand_syntaxes(row_of_mnemonic(tokens[0].text));
    SyntaxParser sp(tokens, lookup_, syntaxes);
    sp.parse_all(std::string_view(tokens[0].text) == "s_waitcnt", syn);
  } catch (const Failure& f) {
    err.col = f.col ? f.col : tokens[0].col;
    err.message = f.message;
    return false;
  }
  return match_syntax(tokens[0].text, tokens[0].col, syn, target_, out, err);
}

}  // namespace k100::as
