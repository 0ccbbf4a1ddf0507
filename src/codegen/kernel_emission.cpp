// Kernel::build: allocation, then the instructions with physical registers
// into an as::KernelBuilder, with the signature's settings and metadata.
#include <array>

#include "k100/base/error.h"
#include "k100/codegen/kernel.h"
#include "k100/codegen/waits.h"
#include "k100/isa/codec.h"
#include "operand_roles.h"

namespace k100::codegen {

namespace {

// as::KernelBuilder::emit takes an initializer list; instructions have at most
// a dozen operands and modifiers.
void emit_operands(as::KernelBuilder& b, std::string_view m, const std::vector<as::Arg>& a) {
  switch (a.size()) {
    case 0: return b.emit(m, {});
    case 1: return b.emit(m, {a[0]});
    case 2: return b.emit(m, {a[0], a[1]});
    case 3: return b.emit(m, {a[0], a[1], a[2]});
    case 4: return b.emit(m, {a[0], a[1], a[2], a[3]});
    case 5: return b.emit(m, {a[0], a[1], a[2], a[3], a[4]});
    case 6: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5]});
    case 7: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5], a[6]});
    case 8: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]});
    case 9: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]});
    case 10: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9]});
    case 11: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10]});
    case 12: return b.emit(m, {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11]});
    default: throw Error(std::string(m) + ": more than 12 operands and modifiers");
  }
}

// One instruction with physical registers; `labels` are the label operands
// (in order) that emission turns into the builder's labels.
struct Physical {
  std::string mnemonic;
  std::vector<as::Arg> args;
  std::vector<std::pair<size_t, int>> labels;  // (argument index, label id)
};

void emit_program(as::KernelBuilder& b, const std::vector<Physical>& prog, const std::vector<int>& pos,
                  const std::vector<std::string>& hints) {
  std::vector<as::Label> labels;
  for (const std::string& h : hints) labels.push_back(b.label(h));
  for (size_t i = 0; i <= prog.size(); ++i) {
    for (size_t l = 0; l < pos.size(); ++l)
      if (pos[l] == int(i)) b.bind(labels[l]);
    if (i == prog.size()) break;
    std::vector<as::Arg> args = prog[i].args;
    for (auto [k, l] : prog[i].labels) args[k] = as::Arg(labels[size_t(l)]);
    emit_operands(b, prog[i].mnemonic, args);
  }
}

// The program assembled and decoded again, one isa::Inst per instruction
// (and, in `bytes`, where each starts; one more entry: the end).
std::vector<isa::Inst> decode_all(const std::vector<Physical>& prog, const std::vector<int>& pos,
                                  const std::vector<FlowInst>& flow, const std::vector<std::string>& hints,
                                  const std::string& kernel, isa::Target target, std::vector<int>* bytes = nullptr) {
  as::KernelBuilder b(kernel, target);
  emit_program(b, prog, pos, hints);
  std::vector<uint8_t> code = b.code();
  std::vector<isa::Inst> out;
  for (size_t at = 0; at < code.size();) {
    isa::Decoded d = isa::decode(std::span<const uint8_t>(code).subspan(at), target);
    if (!d.ok) throw Error("kernel '" + kernel + "': its own code does not decode at byte " + std::to_string(at));
    out.push_back(d.inst);
    if (bytes) bytes->push_back(int(at));
    at += d.size;
  }
  if (bytes) bytes->push_back(int(code.size()));
  if (out.size() != flow.size()) throw Error("kernel '" + kernel + "': decoded instruction count differs");
  return out;
}

// Where an insertion planned before a glued instruction goes: before the
// sequence's first instruction (what lies between is SALU and branches, which
// neither issue memory operations nor shorten wait states).
int unglued(const std::vector<FlowInst>& flow, int at) {
  while (at > 0 && flow[size_t(at)].glued) --at;
  return at;
}

// Inserts instructions before the given positions (ascending); labels bound at
// a position then name the first inserted instruction, so every path runs it.
void insert_before(std::vector<Physical>& prog, std::vector<int>& pos, std::vector<FlowInst>& flow,
                   std::vector<std::pair<int, Physical>>& add) {
  if (add.empty()) return;
  std::vector<int> map(prog.size() + 1);
  std::vector<Physical> np;
  std::vector<FlowInst> nf;
  size_t a = 0;
  for (size_t i = 0; i <= prog.size(); ++i) {
    map[i] = int(np.size());
    for (; a < add.size() && add[a].first == int(i); ++a) {
      np.push_back(std::move(add[a].second));
      nf.push_back(FlowInst{});
    }
    if (i == prog.size()) break;
    np.push_back(std::move(prog[i]));
    nf.push_back(std::move(flow[i]));
  }
  for (FlowInst& f : nf)
    for (int& t : f.targets) t = map[size_t(t)];
  for (int& p : pos)
    if (p >= 0) p = map[size_t(p)];
  prog = std::move(np);
  flow = std::move(nf);
}

AutomaticWaitsOff& automatic_waits_off() {
  static AutomaticWaitsOff off;
  return off;
}

bool ends_flow(std::string_view m) {
  return m == "s_branch" || m == "s_endpgm" || m == "s_setpc_b64" || m == "s_swappc_b64";
}

as::Arg with_mods(as::Arg a, int mods) {
  if (mods & 1) a.neg();
  if (mods & 2) a.abs();
  if (mods & 4) a.sext();
  return a;
}

}  // namespace

void set_automatic_waits_off(AutomaticWaitsOff off) { automatic_waits_off() = off; }

void declare_interface(as::KernelBuilder& b, const Signature& sig, const KernelOptions& options) {
  b.setting(".amdhsa_user_sgpr_private_segment_buffer", 1);
  if (options.dispatch_ptr) b.setting(".amdhsa_user_sgpr_dispatch_ptr", 1);
  b.setting(".amdhsa_user_sgpr_kernarg_segment_ptr", 1).setting(".amdhsa_system_sgpr_workgroup_id_x", 1);
  if (options.workgroup_dims > 1) b.setting(".amdhsa_system_sgpr_workgroup_id_y", 1);
  if (options.workgroup_dims > 2) b.setting(".amdhsa_system_sgpr_workgroup_id_z", 1);
  if (options.workitem_dims > 1) b.setting(".amdhsa_system_vgpr_workitem_id", options.workitem_dims - 1);
  if (options.f32_denormals) b.setting(".amdhsa_float_denorm_mode_32", 3);
  if (options.lds_bytes) b.setting(".amdhsa_group_segment_fixed_size", options.lds_bytes);
  b.setting(".amdhsa_kernarg_size", sig.kernarg_size());
  for (const Param& prm : sig.params())
    b.arg(prm.name, prm.is_buffer() ? "global_buffer" : "by_value", prm.type, prm.access);
  b.hidden_args(sig.hidden());
  b.max_flat_workgroup_size(options.max_workgroup);
}

codeobj::CodeObject Kernel::build(codeobj::CodeObjectVersion version) {
  if (exit_.id >= 0 && label_pos_[size_t(exit_.id)] < 0) {
    bind(exit_);
    s_endpgm();
  }
  std::vector<Inst> body = insts_;
  std::vector<Inst> all = entry_instructions(body);
  const int shift = int(all.size());
  for (Inst& i : body) all.push_back(std::move(i));
  std::vector<int> pos(label_pos_.size());
  for (size_t l = 0; l < label_pos_.size(); ++l) pos[l] = label_pos_[l] < 0 ? -1 : label_pos_[l] + shift;
  for (const Inst& i : all)
    for (const Operand& o : i.ops)
      if (o.label() >= 0 && pos[size_t(o.label())] < 0)
        throw Error("kernel '" + name() + "': " + i.mnemonic + " goes to label '" + label_hint_[size_t(o.label())] +
                    "', which is never bound");

  AllocationProblem p;
  p.kernel = name();
  p.regs = regs_;
  p.vgpr_budget = vgpr_budget(options_.waves_per_simd);
  p.sgpr_budget = sgpr_budget(options_.waves_per_simd);
  bool glued = false;
  for (const Inst& i : all) {
    FlowInst f;
    f.access = i.access;
    f.falls_through = !ends_flow(i.mnemonic);
    f.early_clobber = destination_is_early_clobber(i.mnemonic);
    f.glued = i.glued;
    glued = glued || i.glued;
    for (const Operand& o : i.ops)
      if (o.label() >= 0) f.targets.push_back(pos[size_t(o.label())]);
    for (int l : i.targets) f.targets.push_back(pos[size_t(l)]);
    if (i.returns_of >= 0)
      for (Label l : return_points_[size_t(i.returns_of)]) f.targets.push_back(pos[size_t(l.id)]);
    f.text = text_of(i);
    // where an indirect jump goes must be declared (routine/call/ret, jump_table)
    if ((i.mnemonic == "s_setpc_b64" || i.mnemonic == "s_swappc_b64") && f.targets.empty() && i.returns_of < 0)
      throw Error("kernel '" + name() + "': " + f.text + " jumps to an address the layer cannot follow; use "
                  "call(), ret() or jump_table()");
    p.insts.push_back(std::move(f));
  }
  allocation_ = allocate(p);

  // The instructions with physical registers.
  std::vector<Physical> prog;
  for (const Inst& inst : all) {
    Physical ph{inst.mnemonic, {}, {}};
    for (const Operand& o : inst.ops) {
      if (o.vreg() && o.vreg()->virtual_reg()) {
        const VGPR& v = *o.vreg();
        ph.args.push_back(with_mods(as::v(allocation_.base[size_t(v.id)] + v.offset, v.width), o.mods()));
      } else if (o.sreg()) {
        const SGPR& s = *o.sreg();
        as::SGPR phys = s.virtual_reg() ? as::s(allocation_.base[size_t(s.id)] + s.offset, s.width)
                                        : as::SGPR{s.code, s.width};
        ph.args.push_back(with_mods(as::Arg(phys), o.mods()));
      } else if (o.label() >= 0) {
        ph.labels.emplace_back(ph.args.size(), o.label());
        ph.args.push_back(as::Arg(0));  // the label, at emission
      } else {
        ph.args.push_back(*o.plain());
      }
    }
    prog.push_back(std::move(ph));
  }
  std::vector<FlowInst> flow = p.insts;
  // Waits, then the wait states (s_waitcnt instructions provide wait states too).
  if (options_.automatic_waits && !automatic_waits_off().waits) {
    auto waits = plan_waits(decode_all(prog, pos, flow, label_hint_, name(), target_), flow);
    std::vector<std::pair<int, isa::Waitcnt>> merged;  // one wait per place, the strictest
    for (auto& [at, w] : waits) {
      const int place = unglued(flow, at);
      if (!merged.empty() && merged.back().first == place) {
        isa::Waitcnt& m = merged.back().second;
        m.vmcnt = std::min(m.vmcnt, w.vmcnt), m.lgkmcnt = std::min(m.lgkmcnt, w.lgkmcnt);
        m.expcnt = std::min(m.expcnt, w.expcnt);
      } else {
        merged.emplace_back(place, w);
      }
    }
    std::vector<std::pair<int, Physical>> add;
    for (auto& [at, w] : merged) add.emplace_back(at, Physical{"s_waitcnt", {as::Arg(as::Symbolic{w.encode()})}, {}});
    insert_before(prog, pos, flow, add);
  }
  if (options_.automatic_wait_states && !automatic_waits_off().wait_states) {
    auto states = plan_wait_states(decode_all(prog, pos, flow, label_hint_, name(), target_), flow);
    std::vector<std::pair<int, Physical>> add;
    for (auto [at, n] : states)
      for (; n > 0; n -= 8) add.emplace_back(at, Physical{"s_nop", {as::Arg(std::min(n, 8) - 1)}, {}});
    insert_before(prog, pos, flow, add);
  }
  if (glued) {
    // Planning again on the final code finds nothing to add (so nothing needed
    // went before a sequence it could not serve there), and every byte distance
    // the pc-relative sequences rely on holds.
    std::vector<int> bytes;
    const std::vector<isa::Inst> final_code = decode_all(prog, pos, flow, label_hint_, name(), target_, &bytes);
    const bool waits_on = options_.automatic_waits && !automatic_waits_off().waits;
    const bool states_on = options_.automatic_wait_states && !automatic_waits_off().wait_states;
    if ((waits_on && !plan_waits(final_code, flow).empty()) ||
        (states_on && !plan_wait_states(final_code, flow).empty()))
      throw Error("kernel '" + name() + "': a wait or wait state is needed inside a computed jump's sequence");
    for (const PcDistance& d : distances_) {
      const int got = bytes[size_t(pos[size_t(d.to.id)])] - bytes[size_t(pos[size_t(d.from.id)])];
      if (got != d.bytes)
        throw Error("kernel '" + name() + "': '" + label_hint_[size_t(d.to.id)] + "' lies " + std::to_string(got) +
                    " bytes after '" + label_hint_[size_t(d.from.id)] + "', the computed jump needs " +
                    std::to_string(d.bytes) + " (jump-table entries of another size?)");
    }
  }
  as::KernelBuilder b(name(), target_);
  emit_program(b, prog, pos, label_hint_);
  declare_interface(b, sig_, options_);
  assembly_ = b.assembly();
  return b.code_object(version);
}

}  // namespace k100::codegen
