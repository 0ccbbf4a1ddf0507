#include "syntax_parser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>

#include "k100/isa/symbolic.h"
#include "modifier_names.h"
#include "parse_failure.h"

namespace k100::as::detail {

using namespace isa;

namespace {

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

}  // namespace

void parse_syntax(const std::vector<Token>& tokens, const SymbolLookup& lookup, Syntax& out) {
  OperandSyntaxes syntaxes = operand_syntaxes(row_of_mnemonic(tokens[0].text));
  SyntaxParser sp(tokens, lookup, syntaxes);
  sp.parse_all(std::string_view(tokens[0].text) == "s_waitcnt", out);
}

}  // namespace k100::as::detail
