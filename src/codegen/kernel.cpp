// Kernel: writing the machine IR (registers, entry values, labels, blocks,
// instructions matched once, structured control flow, load groups).
#include "k100/codegen/kernel.h"

#include <algorithm>

#include "k100/base/error.h"
#include "k100/isa/table.h"
#include "inst_factory.h"

namespace k100::codegen {

Kernel::Kernel(Signature sig, isa::Target target, KernelOptions options)
    : sig_(std::move(sig)), target_(target), options_(options) {
  fn_.name = sig_.kernel();
  fn_.target = target;
  fn_.blocks.emplace_back();
  if (options_.workgroup_dims < 1 || options_.workgroup_dims > 3 || options_.workitem_dims < 1 ||
      options_.workitem_dims > 3)
    throw Error("kernel '" + name() + "': workgroup and work-item dimensions are 1 to 3");
  vgpr_budget(options_.waves_per_simd);  // validates the occupancy
  // User SGPRs in hardware order: private segment buffer s[0:3], (dispatch
  // pointer,) kernarg pointer; then the workgroup ids.
  int next = 4;
  if (options_.dispatch_ptr) {
    dispatch_code_ = next;
    next += 2;
  }
  kernarg_code_ = next;
  group_code_ = next + 2;
}

Kernel::~Kernel() = default;

std::string Kernel::where(std::string_view what) const {
  return "kernel '" + name() + "', instruction " + std::to_string(size()) + " (" + std::string(what) + ")";
}

int Kernel::new_reg(RegFile f, int width, std::string name, int fixed, bool entry, bool linear) {
  if (width < 1 || width > 16)
    throw Error("kernel '" + this->name() + "': register '" + name + "' of " + std::to_string(width) +
                " dwords (1 to 16)");
  VirtualReg r;
  r.file = f;
  r.width = uint8_t(width);
  r.align = uint8_t(f == RegFile::Scalar ? sgpr_alignment(width) : 1);
  r.name = name.empty() ? (f == RegFile::Vector ? "v" : "s") + std::to_string(fn_.regs.size()) : std::move(name);
  r.fixed = fixed;
  r.entry_value = entry;
  r.linear = linear;
  return fn_.add_reg(std::move(r));
}

namespace {
template <class R>
R view_of(int id, int width) {
  R r;
  r.id = id;
  r.width = uint8_t(width);
  return r;
}
}  // namespace

VGPR Kernel::vgpr(int width, std::string name) {
  return view_of<VGPR>(new_reg(RegFile::Vector, width, std::move(name), -1, false), width);
}
VGPR Kernel::linear_vgpr(int width, std::string name) {
  return view_of<VGPR>(new_reg(RegFile::Vector, width, std::move(name), -1, false, true), width);
}
SGPR Kernel::sgpr(int width, std::string name) {
  return view_of<SGPR>(new_reg(RegFile::Scalar, width, std::move(name), -1, false), width);
}

SGPR Kernel::kernarg_pointer() {
  if (!entry_sgpr_[0])
    entry_sgpr_[0] = view_of<SGPR>(new_reg(RegFile::Scalar, 2, "kernarg_pointer", kernarg_code_, true), 2);
  return *entry_sgpr_[0];
}

SGPR Kernel::dispatch_pointer() {
  if (dispatch_code_ < 0)
    throw Error("kernel '" + name() + "': the dispatch pointer needs KernelOptions::dispatch_ptr");
  if (!entry_sgpr_[1])
    entry_sgpr_[1] = view_of<SGPR>(new_reg(RegFile::Scalar, 2, "dispatch_pointer", dispatch_code_, true), 2);
  return *entry_sgpr_[1];
}

SGPR Kernel::workgroup_id(int dim) {
  if (dim < 0 || dim >= options_.workgroup_dims)
    throw Error("kernel '" + name() + "': workgroup id " + std::to_string(dim) + " is not enabled (workgroup_dims)");
  auto& slot = entry_sgpr_[2 + dim];
  if (!slot)
    slot = view_of<SGPR>(
        new_reg(RegFile::Scalar, 1, "workgroup_id_" + std::string(1, char('x' + dim)), group_code_ + dim, true), 1);
  return *slot;
}

VGPR Kernel::local_id(int dim) {
  if (dim < 0 || dim >= options_.workitem_dims)
    throw Error("kernel '" + name() + "': local id " + std::to_string(dim) + " is not enabled (workitem_dims)");
  auto& slot = entry_vgpr_[dim];
  if (!slot)
    slot = view_of<VGPR>(new_reg(RegFile::Vector, 1, "local_id_" + std::string(1, char('x' + dim)), dim, true), 1);
  return *slot;
}

SGPR Kernel::kernarg(uint32_t byte_offset, int dwords) {
  if (byte_offset % 4 || dwords < 1 || dwords > 16 || byte_offset + 4 * uint32_t(dwords) > sig_.kernarg_size())
    throw Error("kernel '" + name() + "': kernarg dwords at " + std::to_string(byte_offset) + " (+" +
                std::to_string(dwords) + ") lie outside its " + std::to_string(sig_.kernarg_size()) + "-byte segment");
  for (const EntryLoad& l : loads_)
    if (l.byte_offset == byte_offset && l.dwords == dwords) return l.dst;
  SGPR dst = sgpr(dwords, "kernarg_" + std::to_string(byte_offset));
  loads_.push_back({byte_offset, dwords, dst});
  return dst;
}

SGPR Kernel::arg(std::string_view name) {
  const uint32_t off = sig_.offset(name), size = sig_.size(name);
  // The explicit block in pieces of up to 16 dwords (one register each).
  const uint32_t chunk = off / 64;
  if (!arg_block_[chunk]) {
    const uint32_t end = std::min<uint32_t>(sig_.layout().explicit_end, 64 * (chunk + 1));
    int dwords = int((end - 64 * chunk + 3) / 4);
    // A 3-dword block would be loaded as x2 + x1 into a register the
    // allocator may start at an odd SGPR; as 4 dwords (the segment is a
    // multiple of 8 bytes, so the fourth is inside it) it is 4-aligned.
    if (dwords == 3 && 64 * chunk + 16 <= sig_.kernarg_size()) dwords = 4;
    arg_block_[chunk] = kernarg(64 * chunk, dwords);
  }
  const int first = int((off - 64 * chunk) / 4);
  return arg_block_[chunk]->sub(first, std::max(1, int(size / 4)));
}

Label Kernel::label(std::string hint) { return Label{fn_.add_label(hint.empty() ? "l" : std::move(hint))}; }

void Kernel::start_block() {
  fn_.blocks.emplace_back();
  current_block_ = int(fn_.blocks.size() - 1);
}

void Kernel::bind(Label l) {
  if (l.id < 0 || size_t(l.id) >= fn_.label_block.size())
    throw Error("kernel '" + name() + "': binding a label that was not created by this kernel");
  if (fn_.label_block[size_t(l.id)] >= 0)
    throw Error("kernel '" + name() + "': label '" + fn_.label_names[size_t(l.id)] + "' is bound twice");
  MBlock& cur = fn_.blocks[size_t(current_block_)];
  if (!cur.insts.empty() || cur.label >= 0) start_block();
  fn_.blocks[size_t(current_block_)].label = l.id;
  fn_.label_block[size_t(l.id)] = current_block_;
}

Label Kernel::exit() {
  if (exit_.id < 0) exit_ = label("exit");
  return exit_;
}

void Kernel::append(MInst inst) {
  if (built_) throw Error("kernel '" + name() + "': an instruction after build()");
  inst.scope = scope_;
  if (open_group_ >= 0 && isa::unit_of(inst.inst) != isa::Unit::Salu && !inst.is_pseudo()) inst.group = open_group_;
  const bool ends = is_terminator(inst);
  fn_.blocks[size_t(current_block_)].insts.push_back(std::move(inst));
  if (ends) start_block();
}

MInst& Kernel::record(std::string_view mnemonic, const std::vector<Operand>& ops) {
  auto check_view = [&](int id, int offset, int width) {
    const VirtualReg& r = fn_.regs[size_t(id)];
    if (offset + width > r.width)
      throw Error(where(mnemonic) + ": dwords " + std::to_string(offset) + ".." + std::to_string(offset + width - 1) +
                  " of '" + r.name + "', which has " + std::to_string(r.width));
    if (r.file == RegFile::Scalar && offset % sgpr_alignment(width))
      throw Error(where(mnemonic) + ": a " + std::to_string(width) + "-dword view of '" + r.name +
                  "' must start at a multiple of " + std::to_string(sgpr_alignment(width)) + " (it starts at dword " +
                  std::to_string(offset) + ")");
    if (r.file == RegFile::Scalar && width > 1 && sgpr_alignment(width) > r.align)
      throw Error(where(mnemonic) + ": a " + std::to_string(width) + "-dword view of the " + std::to_string(r.width) +
                  "-dword register '" + r.name + "' needs an alignment the register does not have");
  };
  std::vector<PassOperand> args;
  args.reserve(ops.size());
  size_t pos = 0;
  for (const Operand& o : ops) {
    if (o.is_modifier()) {
      PassOperand p{PassOperand::Plain};
      p.plain = *o.plain();
      args.push_back(std::move(p));
      continue;
    }
    ++pos;
    PassOperand p{PassOperand::Plain};
    if (o.vreg() || o.sreg()) {
      const bool vector = o.vreg().has_value();
      const int id = vector ? o.vreg()->id : o.sreg()->id;
      const int offset = vector ? o.vreg()->offset : o.sreg()->offset;
      const int width = vector ? o.vreg()->width : o.sreg()->width;
      if (width == 0)
        throw Error(where(mnemonic) + ": operand " + std::to_string(pos - 1) + " is a register that was never created");
      if (id >= 0) {
        check_view(id, offset, width);
        p = PassOperand::v(VRef{id, uint8_t(offset), uint8_t(width)});
      } else if (vector) {
        throw Error(where(mnemonic) + ": VGPRs come from vgpr(), not physical numbers");
      } else {
        // general registers come from the allocator; special ones (vcc, exec, m0, ...) are named
        const uint16_t code = o.sreg()->code;
        if (code <= isa::code::kSgprLast)
          throw Error(where(mnemonic) + ": SGPRs come from sgpr(), not physical numbers (s" + std::to_string(code) + ")");
        p = PassOperand::phys(code, uint8_t(width));
      }
      p.mods = o.mods();  // constants carry theirs in the as::Arg already
    } else if (o.label() >= 0) {
      p = PassOperand::label(o.label());
    } else {
      p.plain = *o.plain();
    }
    args.push_back(std::move(p));
  }
  MInst m;
  try {
    m = make_inst(fn_, mnemonic, args, scope_, 0);
  } catch (const Error& e) {
    throw Error(where(mnemonic) + ": " + e.what());
  }
  if (m.desc().name == "s_waitcnt") m.flags |= kAuthorWait;
  append(std::move(m));
  MBlock& b = fn_.blocks[size_t(current_block_)];
  if (!b.insts.empty()) return b.insts.back();
  return fn_.blocks[size_t(current_block_ - 1)].insts.back();  // a terminator started a new block
}

void Kernel::emit(std::string_view mnemonic, std::initializer_list<Operand> operands) {
  record(mnemonic, std::vector<Operand>(operands));
}

// ------------------------------------------------------------------ structured control flow

void Kernel::pseudo(Pseudo p, Cond c, std::optional<SGPR> lanes) {
  MInst m;
  m.pseudo = p;
  m.cond = c;
  if (lanes) {
    const SGPR& s = *lanes;
    if (s.width != 2) throw Error(where(pseudo_name(p)) + ": a lane mask is an SGPR pair (vcc or sgpr(2))");
    m.inst.num_operands = 1;
    if (s.virtual_reg()) {
      m.inst.ops[0] = isa::Operand::sgpr(placeholder_code(RegFile::Scalar, 0) + s.offset, 2);
      m.vref[0] = VRef{s.id, s.offset, 2};
    } else {
      m.inst.ops[0] = isa::Operand::reg(s.code, 2);
    }
  }
  append(std::move(m));
}

namespace {
void need_uniform(const std::string& where, Cond c) {
  if (c == Cond::None || c == Cond::Lanes)
    throw Error(where + ": a uniform condition is scc0, scc1, vccz or vccnz; a lane mask is given as vcc or an SGPR pair");
}
}  // namespace

void Kernel::if_(Cond c) {
  need_uniform(where("if_"), c);
  pseudo(Pseudo::If, c, std::nullopt);
  open_.push_back({Pseudo::If});
}
void Kernel::if_(SGPR lanes) {
  pseudo(Pseudo::If, Cond::Lanes, lanes);
  open_.push_back({Pseudo::If});
}
void Kernel::else_() {
  if (open_.empty() || open_.back().kind != Pseudo::If || open_.back().has_else)
    throw Error(where("else_") + ": else_ without an open if_");
  open_.back().has_else = true;
  pseudo(Pseudo::Else, Cond::None, std::nullopt);
}
void Kernel::end_if() {
  if (open_.empty() || open_.back().kind != Pseudo::If) throw Error(where("end_if") + ": end_if without an open if_");
  open_.pop_back();
  pseudo(Pseudo::EndIf, Cond::None, std::nullopt);
}
void Kernel::loop_() {
  pseudo(Pseudo::Loop, Cond::None, std::nullopt);
  open_.push_back({Pseudo::Loop});
}
namespace {
bool in_loop(const auto& open) {
  for (const auto& o : open)
    if (o.kind == Pseudo::Loop) return true;
  return false;
}
}  // namespace
void Kernel::break_(Cond c) {
  need_uniform(where("break_"), c);
  if (!in_loop(open_)) throw Error(where("break_") + ": break_ outside a loop_");
  pseudo(Pseudo::Break, c, std::nullopt);
}
void Kernel::break_(SGPR lanes) {
  if (!in_loop(open_)) throw Error(where("break_") + ": break_ outside a loop_");
  pseudo(Pseudo::Break, Cond::Lanes, lanes);
}
void Kernel::continue_(Cond c) {
  need_uniform(where("continue_"), c);
  if (!in_loop(open_)) throw Error(where("continue_") + ": continue_ outside a loop_");
  pseudo(Pseudo::Continue, c, std::nullopt);
}
void Kernel::continue_(SGPR lanes) {
  if (!in_loop(open_)) throw Error(where("continue_") + ": continue_ outside a loop_");
  pseudo(Pseudo::Continue, Cond::Lanes, lanes);
}
void Kernel::end_loop() {
  if (open_.empty() || open_.back().kind != Pseudo::Loop)
    throw Error(where("end_loop") + ": end_loop without an open loop_");
  open_.pop_back();
  pseudo(Pseudo::EndLoop, Cond::None, std::nullopt);
}

void Kernel::if_(Cond c, const std::function<void()>& then, const std::function<void()>& otherwise) {
  if_(c);
  then();
  if (otherwise) {
    else_();
    otherwise();
  }
  end_if();
}
void Kernel::if_(SGPR lanes, const std::function<void()>& then, const std::function<void()>& otherwise) {
  if_(lanes);
  then();
  if (otherwise) {
    else_();
    otherwise();
  }
  end_if();
}
void Kernel::loop_(const std::function<void()>& body) {
  loop_();
  body();
  end_loop();
}

void Kernel::require_whole_wave(std::string what) {
  MInst m;
  m.pseudo = Pseudo::WholeWave;
  fn_.notes.push_back(std::move(what));
  m.note = int32_t(fn_.notes.size() - 1);
  append(std::move(m));
}

// ------------------------------------------------------------------ load groups and scopes

LoadGroup Kernel::group(std::string name) {
  fn_.groups.push_back(std::move(name));
  return LoadGroup{int(fn_.groups.size() - 1)};
}
void Kernel::begin_group(LoadGroup g) {
  if (g.id < 0 || size_t(g.id) >= fn_.groups.size()) throw Error(where("begin_group") + ": not a group of this kernel");
  if (open_group_ >= 0) throw Error(where("begin_group") + ": group '" + fn_.groups[size_t(open_group_)] + "' is still open");
  open_group_ = g.id;
}
void Kernel::end_group() { open_group_ = -1; }
void Kernel::wait(LoadGroup g) {
  if (g.id < 0 || size_t(g.id) >= fn_.groups.size()) throw Error(where("wait") + ": not a group of this kernel");
  const int saved = open_group_;
  open_group_ = -1;
  MInst& m = record("s_waitcnt", {Operand(as::waitcnt())});
  m.flags = uint8_t((m.flags & ~kAuthorWait) | kWaitGroup);
  m.group = g.id;
  open_group_ = saved;
}

Kernel::Scope::Scope(Kernel& k, std::string name) : k_(k), saved_(k.scope_) {
  k.fn_.scopes.push_back(std::move(name));
  k.scope_ = int(k.fn_.scopes.size() - 1);
}
Kernel::Scope::~Scope() { k_.scope_ = saved_; }

// ------------------------------------------------------------------ indirect control flow

void Kernel::glue_from(size_t block, size_t inst) {
  for (size_t b = block; b < fn_.blocks.size(); ++b)
    for (size_t i = b == block ? inst : 0; i < fn_.blocks[b].insts.size(); ++i) fn_.blocks[b].insts[i].flags |= kGlued;
}

// s_getpc_b64 returns the address of the instruction after it; `from` names
// that instruction, so the distances below are counted from it.
Routine Kernel::routine(std::string name, const std::function<void(const Routine&)>& body) {
  const Routine r{int(routine_entry_.size()), sgpr(2, name + "_address"), sgpr(2, name + "_return")};
  const Label from = label(name + "_pc"), entry = label(name), after = label(name + "_end");
  routine_entry_.push_back(entry.id);
  return_points_.emplace_back();
  fn_.indirect.emplace_back();
  routine_returns_.push_back(int(fn_.indirect.size() - 1));
  s_getpc_b64(r.address);
  bind(from);
  const size_t block = size_t(current_block_);
  s_add_u32(r.address[0], r.address[0], 12);  // s_add, s_addc, s_branch: 12 bytes
  s_addc_u32(r.address[1], r.address[1], 0);
  s_branch(after);
  glue_from(block, 0);
  bind(entry);
  fn_.distances.push_back({from.id, entry.id, 12});
  body(r);
  bind(after);
  return r;
}

void Kernel::call(const Routine& r) {
  if (r.id < 0 || size_t(r.id) >= routine_entry_.size())
    throw Error("kernel '" + name() + "': a call of a routine this kernel did not create");
  fn_.indirect.push_back({{routine_entry_[size_t(r.id)]}});
  const int targets = int(fn_.indirect.size() - 1);
  MInst& m = record("s_swappc_b64", {Operand(r.ret), Operand(r.address)});
  m.indirect = targets;
  const Label back = label("return");
  bind(back);
  return_points_[size_t(r.id)].push_back(back.id);
  fn_.indirect[size_t(routine_returns_[size_t(r.id)])].labels.push_back(back.id);
}

void Kernel::ret(const Routine& r) {
  if (r.id < 0 || size_t(r.id) >= routine_entry_.size())
    throw Error("kernel '" + name() + "': a return from a routine this kernel did not create");
  MInst& m = record("s_setpc_b64", {Operand(r.ret)});
  m.indirect = routine_returns_[size_t(r.id)];
}

// The jump's s_add, s_addc and s_setpc take 12 bytes before the first entry.
SGPR Kernel::table_offset(Operand index, int entry_bytes) {
  const SGPR off = sgpr(1, "table_offset");
  s_mul_i32(off, index, entry_bytes);
  s_add_u32(off, off, 12);
  return off;
}

void Kernel::jump_table(SGPR offset, int count, int entry_bytes, const std::function<void(int)>& entry) {
  const SGPR pc = sgpr(2, "jump_address");
  const Label from = label("table_pc");
  s_getpc_b64(pc);
  bind(from);
  const size_t block = size_t(current_block_);
  s_add_u32(pc[0], pc[0], offset);
  s_addc_u32(pc[1], pc[1], 0);
  fn_.indirect.emplace_back();
  const int targets = int(fn_.indirect.size() - 1);
  MInst& jump = record("s_setpc_b64", {Operand(pc)});
  jump.indirect = targets;
  for (int i = 0; i <= count; ++i) {
    const Label at = label(i < count ? "table_entry" + std::to_string(i) : "table_end");
    bind(at);
    fn_.distances.push_back({from.id, at.id, 12 + i * entry_bytes});
    if (i == count) break;
    fn_.indirect[size_t(targets)].labels.push_back(at.id);
    entry(i);
  }
  glue_from(block, 0);
}

}  // namespace k100::codegen
