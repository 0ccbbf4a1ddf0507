// lower_control_flow: structured pseudo-instructions into branches and EXEC
// masks.
//
// Divergent if_ (lanes M), else_, end_if:
//   head:      s_and_saveexec_b64 %else_lanes, M      ; exec = outer & M
//              s_xor_b64 %else_lanes, exec, %else_lanes ; outer & ~M
//              s_cbranch_execz else_head (or join)
//   then ...
//   else_head: s_or_saveexec_b64 %then_rest, %else_lanes ; then lanes still on
//              s_xor_b64 exec, exec, %then_rest           ; exec = else lanes
//              s_cbranch_execz join
//   else ...
//   join:      s_or_b64 exec, exec, %then_rest (%else_lanes without else_)
// Lanes that left a loop inside a branch (break_) are not in %then_rest, so
// the join does not bring them back. Logically (for VGPR liveness) the last
// block of the then-branch goes to the join, not to the else-branch.
//
// Without else_ and with no lane leaving a loop inside, the head is
// s_and_saveexec_b64 %saved, M + s_cbranch_execz join, and the join
// s_mov_b64 exec, %saved.
//
// Uniform if_ (scc0/scc1/vccz/vccnz): a branch over the then-branch on the
// opposite condition, and one from its end over the else-branch.
//
// loop_ ... end_loop: a header block the latch branches back to. A divergent
// break_ (lanes M) takes M out of EXEC (s_andn2_b64 exec, exec, M) and skips
// ahead when no lane is left; the latch loops while lanes remain and the exit
// restores EXEC saved before the loop. continue_ (lanes M) parks M until the
// latch. A uniform break_ or continue_ inside a divergent branch of the loop
// concerns only the lanes of that branch: it is lowered as a divergent one on
// M = EXEC when the condition holds.
#include <optional>

#include "k100/base/error.h"
#include "k100/codegen/passes.h"
#include "k100/isa/table.h"
#include "inst_factory.h"

namespace k100::codegen {

namespace {

struct Construct {
  Pseudo kind = Pseudo::None;
  int head = -1;          // block ending with if_ / loop_
  int else_block = -1;    // if_: block ending with else_
  int end_block = -1;     // block ending with end_if / end_loop
  bool divergent = false; // if_: on lanes; loop_: has a divergent break_
  bool has_continue = false;  // loop_: a divergent continue_
  bool lanes_leave = false;   // if_: a break_/continue_ inside takes lanes out of EXEC
  int parent = -1;
  // labels made for it
  int else_head = -1, join = -1, header = -1, latch = -1, exit = -1;
  VRef else_lanes, then_rest, loop_exec, parked;
};

struct Exit {  // a break_ / continue_
  int block;
  int loop;        // construct index
  int skip_to;     // construct index of the innermost divergent if_ inside the loop, -1: none
  bool in_else;    // in that if_'s else-branch
  bool divergent;  // on lanes (or made so)
};

class Lowering {
 public:
  explicit Lowering(MFunction& f) : f_(f) {}

  void run() {
    parse();
    if (constructs_.empty() && !has_whole_wave_) return;
    rebuild();
    f_.cfg_valid = false;
  }

 private:
  MFunction& f_;
  std::vector<Construct> constructs_;
  std::vector<int> construct_of_block_;  // block -> construct its terminator pseudo belongs to
  std::vector<Exit> exits_;
  std::vector<int> exit_of_block_;
  bool has_whole_wave_ = false;

  [[noreturn]] void fail(const std::string& what) const { throw Error("kernel '" + f_.name + "': " + what); }

  // Divergent = inside a divergent if_, or inside a loop_ with a divergent break_ or continue_.
  bool inside_divergent(int c) const {
    for (; c >= 0; c = constructs_[size_t(c)].parent)
      if (constructs_[size_t(c)].divergent || constructs_[size_t(c)].has_continue) return true;
    return false;
  }

  void parse() {
    const int n = int(f_.blocks.size());
    construct_of_block_.assign(size_t(n), -1);
    exit_of_block_.assign(size_t(n), -1);
    std::vector<int> stack;
    std::vector<std::pair<int, int>> whole_wave;  // (block, innermost construct)
    for (int b = 0; b < n; ++b) {
      for (const MInst& m : f_.blocks[size_t(b)].insts)
        if (m.pseudo == Pseudo::WholeWave) {
          has_whole_wave_ = true;
          whole_wave.emplace_back(b, stack.empty() ? -1 : stack.back());
        }
      const std::vector<MInst>& insts = f_.blocks[size_t(b)].insts;
      if (insts.empty() || !insts.back().is_pseudo() || insts.back().pseudo == Pseudo::WholeWave) continue;
      const MInst& p = insts.back();
      switch (p.pseudo) {
        case Pseudo::If:
        case Pseudo::Loop: {
          Construct c;
          c.kind = p.pseudo;
          c.head = b;
          c.divergent = p.pseudo == Pseudo::If && p.cond == Cond::Lanes;
          c.parent = stack.empty() ? -1 : stack.back();
          constructs_.push_back(c);
          stack.push_back(int(constructs_.size() - 1));
          construct_of_block_[size_t(b)] = stack.back();
          break;
        }
        case Pseudo::Else:
          if (stack.empty() || constructs_[size_t(stack.back())].kind != Pseudo::If) fail("else_ without an open if_");
          constructs_[size_t(stack.back())].else_block = b;
          construct_of_block_[size_t(b)] = stack.back();
          break;
        case Pseudo::EndIf:
        case Pseudo::EndLoop: {
          const Pseudo open = p.pseudo == Pseudo::EndIf ? Pseudo::If : Pseudo::Loop;
          if (stack.empty() || constructs_[size_t(stack.back())].kind != open)
            fail(std::string(pseudo_name(p.pseudo)) + " without an open " + pseudo_name(open));
          constructs_[size_t(stack.back())].end_block = b;
          construct_of_block_[size_t(b)] = stack.back();
          stack.pop_back();
          break;
        }
        case Pseudo::Break:
        case Pseudo::Continue: {
          int loop = -1, skip = -1;
          bool in_else = false, div_context = false;
          for (int c = stack.empty() ? -1 : stack.back(); c >= 0; c = constructs_[size_t(c)].parent) {
            const Construct& k = constructs_[size_t(c)];
            if (k.kind == Pseudo::Loop) {
              loop = c;
              break;
            }
            if (k.divergent) {
              div_context = true;
              if (skip < 0) {
                skip = c;
                in_else = k.else_block >= 0;  // else_ already seen: we are in the else-branch
              }
            }
          }
          if (loop < 0) fail(std::string(pseudo_name(p.pseudo)) + " outside a loop_");
          const bool divergent = p.cond == Cond::Lanes || div_context;
          if (divergent)
            for (int c = stack.back(); c != loop; c = constructs_[size_t(c)].parent) constructs_[size_t(c)].lanes_leave = true;
          if (divergent && p.pseudo == Pseudo::Break) constructs_[size_t(loop)].divergent = true;
          if (divergent && p.pseudo == Pseudo::Continue) constructs_[size_t(loop)].has_continue = true;
          exits_.push_back({b, loop, skip, in_else, divergent});
          exit_of_block_[size_t(b)] = int(exits_.size() - 1);
          break;
        }
        default: break;
      }
    }
    if (!stack.empty()) {
      const Construct& c = constructs_[size_t(stack.back())];
      fail(std::string(pseudo_name(c.kind)) + " is never closed (" + (c.kind == Pseudo::If ? "end_if" : "end_loop") +
           ")");
    }
    for (auto [b, c] : whole_wave)
      if (inside_divergent(c)) {
        const MInst* w = nullptr;
        for (const MInst& m : f_.blocks[size_t(b)].insts)
          if (m.pseudo == Pseudo::WholeWave) w = &m;
        fail(f_.notes[size_t(w->note)] + " needs the whole wave, but it lies inside a divergent region (if_ on lanes, or a loop_ "
                       "that lanes leave one by one): lanes EXEC leaves off would be read");
      }
  }

  // ---------------------------------------------------------------- rebuilding

  std::vector<MBlock> out_;

  int new_label(const std::string& name) { return f_.add_label(name); }
  VRef new_pair(const std::string& name) {
    VirtualReg r;
    r.file = RegFile::Scalar;
    r.width = 2;
    r.align = 2;
    r.name = name;
    return VRef{f_.add_reg(std::move(r)), 0, 2};
  }

  // A new block at the end of out_, bound to `label` (when >= 0).
  MBlock& open_block(int label) {
    out_.emplace_back();
    out_.back().label = label;
    return out_.back();
  }

  // The label of an old block (one is made when it has none).
  int label_of_old(int b) {
    MBlock& blk = f_.blocks[size_t(b)];
    if (blk.label < 0) blk.label = new_label("bb" + std::to_string(b));
    return blk.label;
  }

  using Opnd = PassOperand;
  static Opnd R(VRef r) { return Opnd::v(r); }
  static Opnd Exec() { return Opnd::exec(); }
  static Opnd Sp(uint16_t code, uint8_t w) { return Opnd::phys(code, w); }
  static Opnd Imm(int64_t v) { return Opnd::imm(v); }
  static Opnd Lbl(int l) { return Opnd::label(l); }
  // The mask operand of a pseudo (operand 0: virtual pair or vcc).
  static Opnd mask_of(const MInst& p) {
    if (p.vref[0].valid()) return R(p.vref[0]);
    return Sp(p.inst.ops[0].code, 2);
  }

  int lowering_scope_ = -1;
  void emit(MBlock& b, std::string_view mnemonic, std::initializer_list<Opnd> ops) {
    b.insts.push_back(make_inst(f_, mnemonic, ops, lowering_scope_));
  }
  // An instruction that reads the pseudo-instruction's condition (SCC, VCC):
  // it reads on behalf of whoever wrote the if_/break_, so it carries their scope.
  void emit_for(MBlock& b, const MInst& p, std::string_view mnemonic, std::initializer_list<Opnd> ops) {
    b.insts.push_back(make_inst(f_, mnemonic, ops, p.scope));
  }

  static const char* skip_branch(Cond c) {  // branch taken when the condition does NOT hold
    switch (c) {
      case Cond::Scc1: return "s_cbranch_scc0";
      case Cond::Scc0: return "s_cbranch_scc1";
      case Cond::Vccnz: return "s_cbranch_vccz";
      case Cond::Vccz: return "s_cbranch_vccnz";
      default: return "";
    }
  }
  static const char* take_branch(Cond c) {  // branch taken when the condition holds
    switch (c) {
      case Cond::Scc1: return "s_cbranch_scc1";
      case Cond::Scc0: return "s_cbranch_scc0";
      case Cond::Vccnz: return "s_cbranch_vccnz";
      case Cond::Vccz: return "s_cbranch_vccz";
      default: return "";
    }
  }

  // The lanes (an SGPR pair) for which a uniform condition holds: EXEC or 0.
  VRef lanes_where(MBlock& b, const MInst& p, int id) {
    const Cond c = p.cond;
    VRef m = new_pair("cond" + std::to_string(id) + "_lanes");
    if (c == Cond::Vccz || c == Cond::Vccnz) emit_for(b, p, "s_cmp_lg_u64", {Sp(isa::code::kVccLo, 2), Imm(0)});
    const bool holds_on_scc1 = c == Cond::Scc1 || c == Cond::Vccnz;
    if (holds_on_scc1) emit_for(b, p, "s_cselect_b64", {R(m), Exec(), Imm(0)});
    else emit_for(b, p, "s_cselect_b64", {R(m), Imm(0), Exec()});
    return m;
  }

  void rebuild() {
    f_.scopes.push_back("control flow lowering");
    lowering_scope_ = int(f_.scopes.size() - 1);
    // labels and registers of every construct
    for (size_t i = 0; i < constructs_.size(); ++i) {
      Construct& c = constructs_[i];
      const std::string id = std::to_string(i);
      if (c.kind == Pseudo::If) {
        if (c.else_block >= 0) c.else_head = new_label("if" + id + "_else");
        c.join = new_label("if" + id + "_join");
        if (c.divergent) {
          c.else_lanes = new_pair("if" + id + "_else_lanes");
          if (c.else_block >= 0) c.then_rest = new_pair("if" + id + "_then_rest");
        }
      } else {
        c.header = new_label("loop" + id + "_header");
        c.latch = new_label("loop" + id + "_latch");
        c.exit = new_label("loop" + id + "_exit");
        if (c.divergent) c.loop_exec = new_pair("loop" + id + "_exec");
        if (c.has_continue) c.parked = new_pair("loop" + id + "_parked");
      }
    }
    // Labels of the blocks that follow a break_/continue_ (their logical successors).
    std::vector<int> next_label(f_.blocks.size(), -1);
    for (const Exit& e : exits_)
      if (e.divergent && e.block + 1 < int(f_.blocks.size())) next_label[size_t(e.block)] = label_of_old(e.block + 1);

    std::vector<MBlock> old = std::move(f_.blocks);
    out_.clear();
    out_.reserve(old.size() + 3 * constructs_.size());
    for (size_t b = 0; b < old.size(); ++b) {
      MBlock blk = std::move(old[b]);
      const MInst* last = blk.insts.empty() ? nullptr : &blk.insts.back();
      const bool structured = last && last->is_pseudo() && last->pseudo != Pseudo::WholeWave;
      if (!structured) {
        out_.push_back(std::move(blk));
        continue;
      }
      const MInst p = *last;
      blk.insts.pop_back();
      out_.push_back(std::move(blk));
      const int bi = int(out_.size() - 1);
      switch (p.pseudo) {
        case Pseudo::If: lower_if_head(bi, p, construct_of_block_[b]); break;
        case Pseudo::Else: lower_else(bi, construct_of_block_[b]); break;
        case Pseudo::EndIf: lower_end_if(construct_of_block_[b]); break;
        case Pseudo::Loop: lower_loop_head(bi, construct_of_block_[b]); break;
        case Pseudo::Break:
        case Pseudo::Continue: lower_exit(bi, p, exits_[size_t(exit_of_block_[b])], next_label[b]); break;
        case Pseudo::EndLoop: lower_end_loop(bi, construct_of_block_[b]); break;
        default: break;
      }
    }
    f_.blocks = std::move(out_);
    // labels -> blocks again
    for (int& lb : f_.label_block) lb = -1;
    for (size_t b = 0; b < f_.blocks.size(); ++b)
      if (f_.blocks[b].label >= 0) f_.label_block[size_t(f_.blocks[b].label)] = int(b);
  }

  // Where a divergent exit skips to when no lane is left: the next join point
  // of the innermost divergent if_ inside the loop, else `loop_target`.
  int skip_target(const Exit& e, int loop_target) const {
    if (e.skip_to < 0) return loop_target;
    const Construct& c = constructs_[size_t(e.skip_to)];
    return (!e.in_else && c.else_head >= 0) ? c.else_head : c.join;
  }

  // A divergent if_ without else_ that no lane leaves early keeps EXEC as it
  // was and restores it at the join (no else-lanes mask to compute).
  static bool plain(const Construct& c) { return c.divergent && c.else_block < 0 && !c.lanes_leave; }

  void lower_if_head(int bi, const MInst& p, int ci) {
    const Construct& c = constructs_[size_t(ci)];
    const int skip = c.else_head >= 0 ? c.else_head : c.join;
    if (plain(c)) {
      emit(out_[size_t(bi)], "s_and_saveexec_b64", {R(c.else_lanes), mask_of(p)});
      emit(out_[size_t(bi)], "s_cbranch_execz", {Lbl(skip)});
    } else if (c.divergent) {
      emit(out_[size_t(bi)], "s_and_saveexec_b64", {R(c.else_lanes), mask_of(p)});
      emit(out_[size_t(bi)], "s_xor_b64", {R(c.else_lanes), Exec(), R(c.else_lanes)});
      emit(out_[size_t(bi)], "s_cbranch_execz", {Lbl(skip)});
    } else {
      emit_for(out_[size_t(bi)], p, skip_branch(p.cond), {Lbl(skip)});
    }
  }

  void lower_else(int bi, int ci) {
    const Construct& c = constructs_[size_t(ci)];
    if (c.divergent) {
      // logically the then-branch ends at the join
      out_[size_t(bi)].logical_override = true;
      out_[size_t(bi)].logical_labels = {c.join};
      MBlock& h = open_block(c.else_head);
      emit(h, "s_or_saveexec_b64", {R(c.then_rest), R(c.else_lanes)});
      emit(h, "s_xor_b64", {Exec(), Exec(), R(c.then_rest)});
      emit(h, "s_cbranch_execz", {Lbl(c.join)});
    } else {
      emit(out_[size_t(bi)], "s_branch", {Lbl(c.join)});
      open_block(c.else_head);
    }
  }

  void lower_end_if(int ci) {
    const Construct& c = constructs_[size_t(ci)];
    MBlock& j = open_block(c.join);
    if (plain(c)) emit(j, "s_mov_b64", {Exec(), R(c.else_lanes)});  // the EXEC saved at the head
    else if (c.divergent) emit(j, "s_or_b64", {Exec(), Exec(), R(c.else_head >= 0 ? c.then_rest : c.else_lanes)});
  }

  void lower_loop_head(int bi, int ci) {
    const Construct& c = constructs_[size_t(ci)];
    if (c.divergent) emit(out_[size_t(bi)], "s_mov_b64", {R(c.loop_exec), Exec()});
    MBlock& h = open_block(c.header);
    if (c.has_continue) emit(h, "s_mov_b64", {R(c.parked), Imm(0)});
  }

  void lower_exit(int bi, const MInst& p, const Exit& e, int next) {
    const Construct& loop = constructs_[size_t(e.loop)];
    const bool brk = p.pseudo == Pseudo::Break;
    MBlock& b = out_[size_t(bi)];
    if (!e.divergent) {
      emit_for(b, p, take_branch(p.cond), {Lbl(brk ? loop.exit : loop.latch)});
      return;
    }
    const Opnd m = p.cond == Cond::Lanes ? mask_of(p) : R(lanes_where(b, p, bi));
    // No lane left here: go on where lanes may still be waiting. Lanes parked
    // by continue_ come back at the latch, so a break_ goes there too.
    const int target = skip_target(e, brk && !loop.has_continue ? loop.exit : loop.latch);
    if (brk) {
      emit(b, "s_andn2_b64", {Exec(), Exec(), m});
    } else {
      VRef t = new_pair("continue" + std::to_string(bi) + "_lanes");
      emit(b, "s_and_b64", {R(t), Exec(), m});
      emit(b, "s_or_b64", {R(loop.parked), R(loop.parked), R(t)});
      emit(b, "s_andn2_b64", {Exec(), Exec(), R(t)});
    }
    emit(b, "s_cbranch_execz", {Lbl(target)});
    // Logically the lanes that leave go to the loop's exit (or its latch).
    if (next >= 0) {
      b.logical_override = true;
      b.logical_labels = {next, brk ? loop.exit : loop.latch};
    }
  }

  void lower_end_loop(int bi, int ci) {
    (void)bi;
    const Construct& c = constructs_[size_t(ci)];
    MBlock& l = open_block(c.latch);
    if (c.has_continue) emit(l, "s_or_b64", {Exec(), Exec(), R(c.parked)});
    if (c.divergent) emit(l, "s_cbranch_execnz", {Lbl(c.header)});
    else emit(l, "s_branch", {Lbl(c.header)});
    MBlock& x = open_block(c.exit);
    if (c.divergent) emit(x, "s_mov_b64", {Exec(), R(c.loop_exec)});
  }
};

}  // namespace

void lower_control_flow(MFunction& f) { Lowering(f).run(); }

}  // namespace k100::codegen
