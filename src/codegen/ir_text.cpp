#include "k100/codegen/ir_text.h"

#include <cctype>
#include <map>

#include "inst_factory.h"
#include "k100/asm/instruction_match.h"
#include "k100/base/error.h"
#include "k100/isa/codec.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

const std::string& label_text(const MFunction& f, int l) { return f.label_names[size_t(l)]; }

std::string block_name(const MFunction& f, int b) {
  const int l = f.blocks[size_t(b)].label;
  return l >= 0 ? label_text(f, l) : "bb_" + std::to_string(b);
}

std::string mask_text(const MFunction& f, const MInst& m) {
  if (m.vref[0].valid()) return f.reg_text(m.vref[0]);
  return isa::reg_range_name({m.inst.ops[0].code, m.inst.ops[0].width});
}

std::string physical_text(int fixed, const VirtualReg& r) {
  if (r.file == RegFile::Vector)
    return r.width == 1 ? "v" + std::to_string(fixed)
                        : "v[" + std::to_string(fixed) + ":" + std::to_string(fixed + r.width - 1) + "]";
  return r.width == 1 ? "s" + std::to_string(fixed)
                      : "s[" + std::to_string(fixed) + ":" + std::to_string(fixed + r.width - 1) + "]";
}

}  // namespace

std::string print_inst(const MFunction& f, const MInst& m) {
  if (m.is_pseudo()) {
    std::string t = pseudo_name(m.pseudo);
    if (m.pseudo == Pseudo::WholeWave) return t + " \"" + f.notes[size_t(m.note)] + "\"";
    if (m.cond == Cond::Lanes) t += " " + mask_text(f, m);
    else if (m.cond != Cond::None) t += std::string(" ") + cond_name(m.cond);
    return t;
  }
  std::string texts[isa::kMaxOperands];
  for (int i = 0; i < m.inst.num_operands; ++i)
    if (m.vref[size_t(i)].valid()) texts[i] = f.reg_text(m.vref[size_t(i)]);
  if (m.label_operand >= 0 && m.label >= 0) texts[m.label_operand] = label_text(f, m.label);
  std::string atomic;
  if (m.atomic_dst.valid()) atomic = f.reg_text(m.atomic_dst);
  isa::PrintOptions po;
  po.operand_text = texts;
  po.atomic_dst_text = &atomic;
  return isa::print(m.inst, po);
}

std::string print_ir(const MFunction& f) {
  std::string out = ".kernel " + f.name + "\n";
  for (const VirtualReg& r : f.regs) {
    if (r.entry_value) continue;
    out += std::string(r.file == RegFile::Vector ? ".vgpr" : ".sgpr") + (r.width > 1 ? " " + std::to_string(r.width) : "") +
           (r.linear ? " linear" : "") + " %" + r.name + "\n";
  }
  for (const VirtualReg& r : f.regs) {
    if (!r.entry_value) continue;
    out += std::string(".entry") + (r.file == RegFile::Vector ? " vgpr" : " sgpr") +
           (r.width > 1 ? " " + std::to_string(r.width) : "") + (r.linear ? " linear" : "") + " %" + r.name;
    if (r.fixed >= 0) out += " = " + physical_text(r.fixed, r);
    out += "\n";
  }
  for (size_t b = 0; b < f.blocks.size(); ++b) {
    const MBlock& blk = f.blocks[b];
    out += block_name(f, int(b)) + ":\n";
    if (blk.logical_override) {
      out += "  .logical";
      for (size_t i = 0; i < blk.logical_labels.size(); ++i)
        out += (i ? ", " : " ") + label_text(f, blk.logical_labels[i]);
      out += "\n";
    }
    for (const MInst& m : blk.insts) out += "  " + print_inst(f, m) + "\n";
  }
  return out;
}

// ------------------------------------------------------------------ parsing

namespace {

class Parser {
 public:
  Parser(std::string_view text, isa::Target target) : text_(text) { f_.target = target; }

  MFunction run() {
    size_t at = 0;
    while (at <= text_.size()) {
      size_t end = text_.find('\n', at);
      if (end == std::string_view::npos) end = text_.size();
      ++line_;
      line(text_.substr(at, end - at));
      at = end + 1;
    }
    for (size_t l = 0; l < f_.label_block.size(); ++l)
      if (f_.label_block[l] < 0) fail(1, "label '" + f_.label_names[l] + "' is used but never defined");
    if (f_.blocks.empty()) f_.blocks.emplace_back();
    return std::move(f_);
  }

 private:
  std::string_view text_;
  MFunction f_;
  int line_ = 0;
  std::map<std::string, int, std::less<>> regs_, labels_;

  [[noreturn]] void fail(size_t col, const std::string& msg) const {
    throw Error("line " + std::to_string(line_) + ", col " + std::to_string(col) + ": " + msg);
  }

  static std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  }
  size_t col_of(std::string_view part) const { return size_t(part.data() - line_start_) + 1; }
  const char* line_start_ = nullptr;

  int label_id(std::string_view name) {
    auto it = labels_.find(name);
    if (it != labels_.end()) return it->second;
    const int id = f_.add_label(std::string(name));
    labels_.emplace(std::string(name), id);
    return id;
  }

  MBlock& current() {
    if (f_.blocks.empty()) f_.blocks.emplace_back();
    return f_.blocks.back();
  }

  void add(MInst m) {
    const bool ends = is_terminator(m);
    current().insts.push_back(std::move(m));
    if (ends) f_.blocks.emplace_back();
  }

  // ".vgpr 4 linear %a, %b" / ".entry sgpr 2 %p = s[4:5]"
  void declaration(std::string_view kind, std::string_view rest) {
    const bool entry = kind == ".entry";
    RegFile file = kind == ".sgpr" ? RegFile::Scalar : RegFile::Vector;
    std::string_view fixed_text;
    if (entry) {
      const size_t eq = rest.find('=');
      if (eq != std::string_view::npos) {
        fixed_text = trim(rest.substr(eq + 1));
        rest = trim(rest.substr(0, eq));
      }
      if (rest.starts_with("sgpr")) file = RegFile::Scalar;
      else if (!rest.starts_with("vgpr")) fail(col_of(rest), ".entry vgpr|sgpr [N] [linear] %name [= register]");
      rest = trim(rest.substr(4));
    }
    int width = 1;
    if (!rest.empty() && std::isdigit(static_cast<unsigned char>(rest.front()))) {
      size_t n = 0;
      width = std::stoi(std::string(rest), &n);
      rest = trim(rest.substr(n));
      if (width < 1 || width > 16) fail(col_of(rest), "registers are 1 to 16 dwords");
    }
    bool linear = false;
    if (rest.starts_with("linear")) {
      linear = true;
      rest = trim(rest.substr(6));
    }
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      std::string_view name = trim(rest.substr(0, comma));
      if (!name.starts_with('%') || name.size() < 2) fail(col_of(name), "a register name starts with %");
      name.remove_prefix(1);
      if (regs_.count(name)) fail(col_of(name), "register '%" + std::string(name) + "' is declared twice");
      VirtualReg r;
      r.file = file;
      r.width = uint8_t(width);
      r.align = uint8_t(file == RegFile::Scalar ? sgpr_alignment(width) : 1);
      r.name = std::string(name);
      r.linear = linear;
      r.entry_value = entry;
      if (!fixed_text.empty()) {
        const char want = file == RegFile::Vector ? 'v' : 's';
        if (fixed_text.front() != want) fail(col_of(fixed_text), std::string("expected a ") + want + " register");
        std::string_view n = fixed_text.substr(1);
        if (n.starts_with('[')) n.remove_prefix(1);
        r.fixed = std::stoi(std::string(n));
      }
      regs_.emplace(std::string(name), f_.add_reg(std::move(r)));
      if (comma == std::string_view::npos) break;
      rest = trim(rest.substr(comma + 1));
    }
  }

  // "%name", "%name[2]", "%name[2:3]" starting at s[0]; returns the view and its length in s.
  VRef reg_ref(std::string_view s, size_t* len) {
    size_t i = 1;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.')) ++i;
    const std::string_view name = s.substr(1, i - 1);
    auto it = regs_.find(name);
    if (it == regs_.end()) fail(col_of(s), "register '%" + std::string(name) + "' is not declared");
    const VirtualReg& r = f_.regs[size_t(it->second)];
    VRef v{it->second, 0, r.width};
    if (i < s.size() && s[i] == '[') {
      const size_t close = s.find(']', i);
      if (close == std::string_view::npos) fail(col_of(s.substr(i)), "expected ]");
      const std::string inner(s.substr(i + 1, close - i - 1));
      const size_t colon = inner.find(':');
      const int lo = std::stoi(inner), hi = colon == std::string::npos ? lo : std::stoi(inner.substr(colon + 1));
      if (lo < 0 || hi < lo || hi >= r.width) fail(col_of(s.substr(i)), "dwords outside '%" + std::string(name) + "'");
      v.offset = uint8_t(lo);
      v.width = uint8_t(hi - lo + 1);
      i = close + 1;
    }
    *len = i;
    return v;
  }

  void pseudo(std::string_view word, std::string_view rest) {
    MInst m;
    static const std::pair<std::string_view, Pseudo> kWords[] = {
        {"if_", Pseudo::If},           {"else_", Pseudo::Else},         {"end_if", Pseudo::EndIf},
        {"loop_", Pseudo::Loop},       {"break_", Pseudo::Break},       {"continue_", Pseudo::Continue},
        {"end_loop", Pseudo::EndLoop}, {"require_whole_wave", Pseudo::WholeWave}};
    for (auto [w, p] : kWords)
      if (w == word) m.pseudo = p;
    if (m.pseudo == Pseudo::WholeWave) {
      if (rest.size() < 2 || rest.front() != '"' || rest.back() != '"') fail(col_of(rest), "expected \"what\"");
      f_.notes.emplace_back(rest.substr(1, rest.size() - 2));
      m.note = int32_t(f_.notes.size() - 1);
    } else if (m.pseudo == Pseudo::If || m.pseudo == Pseudo::Break || m.pseudo == Pseudo::Continue) {
      static const std::pair<std::string_view, Cond> kConds[] = {
          {"scc0", Cond::Scc0}, {"scc1", Cond::Scc1}, {"vccz", Cond::Vccz}, {"vccnz", Cond::Vccnz}};
      for (auto [w, c] : kConds)
        if (rest == w) m.cond = c;
      if (m.cond == Cond::None) {
        m.cond = Cond::Lanes;
        m.inst.num_operands = 1;
        if (rest == "vcc") {
          m.inst.ops[0] = isa::Operand::reg(isa::code::kVccLo, 2);
        } else if (rest.starts_with('%')) {
          size_t len = 0;
          m.vref[0] = reg_ref(rest, &len);
          if (f_.regs[size_t(m.vref[0].id)].file != RegFile::Scalar || m.vref[0].width != 2)
            fail(col_of(rest), "a lane mask is an SGPR pair");
          m.inst.ops[0] = isa::Operand::sgpr(placeholder_code(RegFile::Scalar, 0) + m.vref[0].offset, 2);
        } else {
          fail(col_of(rest), "expected scc0, scc1, vccz, vccnz, vcc or an SGPR pair");
        }
      }
    } else if (!rest.empty()) {
      fail(col_of(rest), std::string(word) + " takes no operand");
    }
    add(std::move(m));
  }

  void instruction(std::string_view text) {
    // Virtual registers become placeholders of distinct slots, as the builder matches them.
    std::string statement;
    std::vector<int> slot_reg;
    for (size_t i = 0; i < text.size();) {
      if (text[i] != '%') {
        statement += text[i++];
        continue;
      }
      size_t len = 0;
      const VRef v = reg_ref(text.substr(i), &len);
      size_t s = 0;
      while (s < slot_reg.size() && slot_reg[s] != v.id) ++s;
      if (s == slot_reg.size()) {
        if (s == kPlaceholderSlots) fail(col_of(text.substr(i)), "more than 6 virtual registers");
        slot_reg.push_back(v.id);
      }
      const RegFile file = f_.regs[size_t(v.id)].file;
      const int first = placeholder_code(file, int(s)) - (file == RegFile::Vector ? isa::code::kVgprFirst : 0) + v.offset;
      const char* p = file == RegFile::Vector ? "v" : "s";
      statement += v.width == 1 ? p + std::to_string(first)
                                : std::string(p) + "[" + std::to_string(first) + ":" +
                                      std::to_string(first + v.width - 1) + "]";
      i += len;
    }
    as::MatchedInst mi;
    try {
      mi = as::parse_instruction(statement, f_.target);
    } catch (const Error& e) {
      fail(col_of(text), std::string(e.what()) + " (in: " + std::string(text) + ")");
    }
    MInst m;
    m.inst = mi.inst;
    m.label_operand = int8_t(mi.label_operand);
    if (mi.label_operand >= 0) m.label = label_id(mi.label_name);
    bind_placeholders(f_, m, slot_reg);
    if (m.desc().name == "s_waitcnt") m.flags |= kAuthorWait;
    add(std::move(m));
  }

  void line(std::string_view raw) {
    line_start_ = raw.data();
    std::string_view s = raw;
    // a comment starts at ';' outside a string
    bool quoted = false;
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '"') quoted = !quoted;
      if (s[i] == ';' && !quoted) {
        s = s.substr(0, i);
        break;
      }
    }
    s = trim(s);
    if (s.empty()) return;
    size_t sp = 0;
    while (sp < s.size() && !std::isspace(static_cast<unsigned char>(s[sp]))) ++sp;
    const std::string_view word = s.substr(0, sp), rest = trim(s.substr(sp));
    if (word == ".kernel") {
      f_.name = std::string(rest);
    } else if (word == ".vgpr" || word == ".sgpr" || word == ".entry") {
      declaration(word, rest);
    } else if (word == ".logical") {
      MBlock& b = current();
      b.logical_override = true;
      for (std::string_view r = rest; !r.empty();) {
        const size_t comma = r.find(',');
        b.logical_labels.push_back(label_id(trim(r.substr(0, comma))));
        if (comma == std::string_view::npos) break;
        r = trim(r.substr(comma + 1));
      }
    } else if (s.back() == ':' && rest.empty()) {
      const std::string_view name = s.substr(0, s.size() - 1);
      const int id = label_id(name);
      if (f_.label_block[size_t(id)] >= 0) fail(1, "label '" + std::string(name) + "' is defined twice");
      if (f_.blocks.empty() || !f_.blocks.back().insts.empty() || f_.blocks.back().label >= 0) f_.blocks.emplace_back();
      f_.blocks.back().label = id;
      f_.label_block[size_t(id)] = int(f_.blocks.size() - 1);
    } else if (word == "if_" || word == "else_" || word == "end_if" || word == "loop_" || word == "break_" ||
               word == "continue_" || word == "end_loop" || word == "require_whole_wave") {
      pseudo(word, rest);
    } else {
      instruction(s);
    }
  }
};

}  // namespace

MFunction parse_ir(std::string_view text, isa::Target target) { return Parser(text, target).run(); }

}  // namespace k100::codegen
