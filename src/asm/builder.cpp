#include "k100/asm/builder.h"

#include <cstring>

#include "k100/base/error.h"
#include "k100/codeobj/kernel_builder.h"
#include "k100/codeobj/target.h"
#include "k100/isa/symbolic.h"
#include "k100/asm/object_builder.h"
#include "syntax.h"

namespace k100::as {

// ------------------------------------------------------------------ symbolic immediates

Symbolic waitcnt(int vmcnt, int expcnt, int lgkmcnt) {
  isa::Waitcnt w;
  w.vmcnt = unsigned(vmcnt);
  w.expcnt = unsigned(expcnt);
  w.lgkmcnt = unsigned(lgkmcnt);
  return Symbolic{w.encode()};
}
Symbolic hwreg(unsigned id, unsigned offset, unsigned size) {
  return Symbolic{id | offset << 6 | (size - 1) << 11};
}
Symbolic sendmsg(unsigned msg, unsigned op, unsigned stream) { return Symbolic{msg | op << 4 | stream << 8}; }

// ------------------------------------------------------------------ modifiers

namespace {
Modifier flag(const char* n) { return Modifier{n, false, 0, {}, {}}; }
Modifier valued(const char* n, int64_t v) { return Modifier{n, true, v, {}, {}}; }
Modifier listed(const char* n, std::initializer_list<int64_t> bits) { return Modifier{n, true, 0, bits, {}}; }
}  // namespace

Modifier clamp() { return flag("clamp"); }
Modifier glc() { return flag("glc"); }
Modifier slc() { return flag("slc"); }
Modifier lds() { return flag("lds"); }
Modifier gds() { return flag("gds"); }
Modifier offen() { return flag("offen"); }
Modifier idxen() { return flag("idxen"); }
Modifier offset(int64_t bytes) { return valued("offset", bytes); }
Modifier offset0(int64_t value) { return valued("offset0", value); }
Modifier offset1(int64_t value) { return valued("offset1", value); }
Modifier mul(int factor) { return valued("mul", factor); }
Modifier div(int factor) { return valued("div", factor); }
Modifier op_sel(std::initializer_list<int64_t> bits) { return listed("op_sel", bits); }
Modifier op_sel_hi(std::initializer_list<int64_t> bits) { return listed("op_sel_hi", bits); }
Modifier neg_lo(std::initializer_list<int64_t> bits) { return listed("neg_lo", bits); }
Modifier neg_hi(std::initializer_list<int64_t> bits) { return listed("neg_hi", bits); }
Modifier quad_perm(int a, int b, int c, int d) { return listed("quad_perm", {a, b, c, d}); }
Modifier row_shl(int n) { return valued("row_shl", n); }
Modifier row_shr(int n) { return valued("row_shr", n); }
Modifier row_ror(int n) { return valued("row_ror", n); }
Modifier row_bcast(int n) { return valued("row_bcast", n); }
Modifier row_mirror() { return flag("row_mirror"); }
Modifier row_half_mirror() { return flag("row_half_mirror"); }
Modifier wave_shl() { return valued("wave_shl", 1); }
Modifier wave_shr() { return valued("wave_shr", 1); }
Modifier wave_rol() { return valued("wave_rol", 1); }
Modifier wave_ror() { return valued("wave_ror", 1); }
Modifier row_mask(int mask) { return valued("row_mask", mask); }
Modifier bank_mask(int mask) { return valued("bank_mask", mask); }
Modifier bound_ctrl() { return valued("bound_ctrl", 0); }
Modifier sdwa_sel(const char* which, const char* sel) { return Modifier{which, true, 0, {}, sel}; }
Modifier swizzle_offset(uint16_t raw) { return valued("offset", raw); }

// ------------------------------------------------------------------ Arg

namespace {
std::unique_ptr<SynOperand> reg(uint16_t code, uint8_t width) {
  auto o = std::make_unique<SynOperand>();
  o->kind = SynOperand::Kind::Reg;
  o->code = code;
  o->width = width;
  return o;
}
std::unique_ptr<SynOperand> integer(int64_t v) {
  auto o = std::make_unique<SynOperand>();
  o->kind = SynOperand::Kind::Const;
  o->cval.i = v;
  o->text = std::to_string(v);
  return o;
}
std::unique_ptr<SynOperand> floating(double v) {
  auto o = std::make_unique<SynOperand>();
  o->kind = SynOperand::Kind::Const;
  o->cval.is_float = true;
  o->cval.f = v;
  o->text = std::to_string(v);
  return o;
}
}  // namespace

Arg::Arg(VGPR r) : operand_(reg(uint16_t(isa::code::kVgprFirst + r.index), r.width)) {}
Arg::Arg(SGPR r) : operand_(reg(r.code, r.width)) {}
Arg::Arg(int v) : operand_(integer(v)) {}
Arg::Arg(unsigned v) : operand_(integer(v)) {}
Arg::Arg(long v) : operand_(integer(v)) {}
Arg::Arg(unsigned long v) : operand_(integer(int64_t(v))) {}
Arg::Arg(long long v) : operand_(integer(v)) {}
Arg::Arg(unsigned long long v) : operand_(integer(int64_t(v))) {}
Arg::Arg(float v) : operand_(floating(v)) {}
Arg::Arg(double v) : operand_(floating(v)) {}
Arg::Arg(Label l) : operand_(std::make_unique<SynOperand>()), label_(l.id) {
  operand_->kind = SynOperand::Kind::Expr;
}
Arg::Arg(Off) : operand_(std::make_unique<SynOperand>()) {
  operand_->kind = SynOperand::Kind::Off;
  operand_->text = "off";
}
Arg::Arg(Symbolic s) : operand_(std::make_unique<SynOperand>()) {
  operand_->kind = SynOperand::Kind::Imm;
  operand_->imm = s.value;
}
Arg::Arg(Modifier m) : modifier_(std::make_unique<SynModifier>(make_modifier(m.name))) {
  modifier_->has_value = m.has_value;
  modifier_->value = m.value;
  modifier_->list = std::move(m.list);
  modifier_->ident = std::move(m.ident);
}
Arg::Arg(const Arg& o)
    : operand_(o.operand_ ? std::make_unique<SynOperand>(*o.operand_) : nullptr),
      modifier_(o.modifier_ ? std::make_unique<SynModifier>(*o.modifier_) : nullptr),
      label_(o.label_) {}
Arg& Arg::operator=(const Arg& o) {
  if (this != &o) {
    operand_ = o.operand_ ? std::make_unique<SynOperand>(*o.operand_) : nullptr;
    modifier_ = o.modifier_ ? std::make_unique<SynModifier>(*o.modifier_) : nullptr;
    label_ = o.label_;
  }
  return *this;
}
Arg::~Arg() = default;
Arg& Arg::neg() {
  if (operand_) operand_->neg = true;
  return *this;
}
Arg& Arg::abs() {
  if (operand_) operand_->abs = true;
  return *this;
}
Arg& Arg::sext() {
  if (operand_) operand_->sext = true;
  return *this;
}

// ------------------------------------------------------------------ KernelBuilder

struct KernelBuilder::Item {
  ParsedInstruction parsed;
  std::vector<int> branch_labels;  // label id per fixup (same order as parsed.fixups)
  std::vector<int> bound_here;     // labels bound before this instruction
};

KernelBuilder::KernelBuilder(std::string name, isa::Target target)
    : name_(std::move(name)), target_(target), codeobj_target_(codeobj::default_target(isa::target_name(target))) {
  layout_.hidden = codeobj::HiddenArgLayout::None;
}

KernelBuilder::~KernelBuilder() = default;

size_t KernelBuilder::instruction_count() const { return items_.size(); }

Label KernelBuilder::label(std::string hint) {
  int id = int(label_pos_.size());
  label_pos_.push_back(-1);
  label_names_.push_back(".L" + (hint.empty() ? std::string("l") : hint) + "_" + std::to_string(id));
  return Label{id};
}

void KernelBuilder::bind(Label l) {
  if (l.id < 0 || size_t(l.id) >= label_pos_.size())
    throw Error("kernel '" + name_ + "': binding a label that was not created by this builder");
  if (label_pos_[size_t(l.id)] >= 0)
    throw Error("kernel '" + name_ + "': label " + label_names_[size_t(l.id)] + " is bound twice");
  label_pos_[size_t(l.id)] = int64_t(items_.size());
}

void KernelBuilder::emit(std::string_view mnemonic, std::initializer_list<Arg> args) {
  Syntax syn;
  std::vector<int> labels;
  for (const Arg& a : args) {
    if (a.is_modifier()) {
      syn.mods.push_back(a.modifier());
      continue;
    }
    SynOperand o = a.operand();
    if (a.label() >= 0) {
      if (size_t(a.label()) >= label_pos_.size())
        throw Error("kernel '" + name_ + "': " + std::string(mnemonic) + " uses a label of another builder");
      Token t;
      t.kind = Tok::Identifier;
      t.text = label_names_[size_t(a.label())];
      Token end;
      end.kind = Tok::End;
      o.expr = {t, end};
      o.text = label_names_[size_t(a.label())];
      labels.push_back(a.label());
    }
    syn.operands.push_back(std::move(o));
  }
  // modifiers must come in llvm's order; the builder accepts any order
  std::stable_sort(syn.mods.begin(), syn.mods.end(),
                   [](const SynModifier& x, const SynModifier& y) { return x.rank < y.rank; });
  Item item;
  ParseError err;
  if (!match_syntax(mnemonic, 1, syn, target_, item.parsed, err))
    throw Error("kernel '" + name_ + "', instruction " + std::to_string(items_.size()) + " (" +
                std::string(mnemonic) + "): " + err.message);
  for (const auto& f : item.parsed.fixups) {
    if (f.kind != InstFixup::Kind::Branch)
      throw Error("kernel '" + name_ + "', instruction " + std::to_string(items_.size()) + " (" +
                  std::string(mnemonic) + "): labels can only be branch targets in the builder");
  }
  item.branch_labels = std::move(labels);
  items_.push_back(std::move(item));
}

KernelBuilder& KernelBuilder::setting(std::string_view key, int64_t value) {
  try {
    codeobj::set_amdhsa_directive(settings_, key, value, codeobj_target_);
  } catch (const Error& e) {
    throw Error("kernel '" + name_ + "': " + e.what());
  }
  return *this;
}

KernelBuilder& KernelBuilder::arg(std::string name, std::string value_kind, std::string type, std::string access) {
  // Reuses the compact-form rules of the assembler through a tiny program.
  codeobj::ExplicitArg a;
  a.name = name;
  auto kind = codeobj::parse_value_kind(value_kind);
  if (!kind || codeobj::is_hidden(*kind))
    throw Error("kernel '" + name_ + "' argument '" + name + "': value kind '" + value_kind +
                "' (expected global_buffer or by_value)");
  a.kind = *kind;
  a.type_name = type;
  std::string t = type;
  if (t.rfind("const", 0) == 0) {
    t = t.substr(5);
    a.is_const = true;
    while (!t.empty() && t.front() == ' ') t.erase(t.begin());
  }
  if (!t.empty() && t.back() == '*') {
    a.size = 8;
    a.address_space = codeobj::AddressSpace::Global;
  } else if (t == "i8" || t == "u8") {
    a.size = 1;
  } else if (t == "i16" || t == "u16" || t == "f16" || t == "bf16") {
    a.size = 2;
  } else if (t == "i32" || t == "u32" || t == "f32") {
    a.size = 4;
  } else if (t == "i64" || t == "u64" || t == "f64") {
    a.size = 8;
  } else {
    throw Error("kernel '" + name_ + "' argument '" + name + "': unknown type '" + type + "'");
  }
  if (a.kind == codeobj::ValueKind::GlobalBuffer && a.size != 8)
    throw Error("kernel '" + name_ + "' argument '" + name + "': a global_buffer must be a pointer type");
  if (!access.empty()) {
    auto acc = codeobj::parse_access(access);
    if (!acc) throw Error("kernel '" + name_ + "' argument '" + name + "': access '" + access + "'");
    a.access = acc;
  }
  args_.push_back(a);
  return *this;
}

KernelBuilder& KernelBuilder::hidden_args(codeobj::HiddenArgLayout layout) {
  layout_.hidden = layout;
  return *this;
}

KernelBuilder& KernelBuilder::max_flat_workgroup_size(uint32_t n) {
  max_flat_workgroup_size_ = n;
  return *this;
}

std::vector<uint8_t> KernelBuilder::code() const {
  // instruction offsets
  std::vector<uint64_t> offsets(items_.size() + 1, 0);
  for (size_t i = 0; i < items_.size(); ++i) {
    isa::Inst tmp = items_[i].parsed.inst;
    std::vector<uint8_t> bytes;
    isa::encode_checked(tmp, bytes, target_);
    offsets[i + 1] = offsets[i] + bytes.size();
  }
  std::vector<uint8_t> out;
  for (size_t i = 0; i < items_.size(); ++i) {
    isa::Inst inst = items_[i].parsed.inst;
    const auto& fixups = items_[i].parsed.fixups;
    for (size_t f = 0; f < fixups.size(); ++f) {
      int id = items_[i].branch_labels[f];
      int64_t target = label_pos_[size_t(id)];
      if (target < 0) throw Error("kernel '" + name_ + "': label " + label_names_[size_t(id)] + " is never bound");
      int64_t delta = int64_t(offsets[size_t(target)]) - int64_t(offsets[i] + 4);
      delta /= 4;
      if (delta < -32768 || delta > 32767)
        throw Error("kernel '" + name_ + "': branch to " + label_names_[size_t(id)] + " is out of range");
      inst.ops[size_t(fixups[f].operand)].value = uint32_t(int32_t(delta));
    }
    isa::encode(inst, out, target_);
  }
  return out;
}

std::string KernelBuilder::assembly() const {
  std::string out;
  for (size_t i = 0; i <= items_.size(); ++i) {
    for (size_t l = 0; l < label_pos_.size(); ++l)
      if (label_pos_[l] == int64_t(i)) out += label_names_[l] + ":\n";
    if (i == items_.size()) break;
    std::vector<std::string> texts(isa::kMaxOperands);
    const auto& fixups = items_[i].parsed.fixups;
    for (size_t f = 0; f < fixups.size(); ++f)
      texts[size_t(fixups[f].operand)] = label_names_[size_t(items_[i].branch_labels[f])];
    isa::PrintOptions po;
    po.operand_text = texts.data();
    out += "\t" + isa::print(items_[i].parsed.inst, po) + "\n";
  }
  return out;
}

codeobj::CodeObject KernelBuilder::code_object(codeobj::CodeObjectVersion version) const {
  codeobj::CodeObject co;
  co.origin = "kernel builder '" + name_ + "'";
  co.target = codeobj_target_;
  co.version = version;
  co.text = code();
  codeobj::KernelSpec spec;
  spec.name = name_;
  spec.settings = settings_;
  spec.args = args_;
  spec.layout = layout_;
  spec.usage = register_usage(co.text, target_);
  spec.code_offset = 0;
  spec.code_size = co.text.size();
  spec.max_flat_workgroup_size = max_flat_workgroup_size_;
  co.kernels.push_back(codeobj::build_kernel(spec, co.target, version));
  return co;
}

}  // namespace k100::as
