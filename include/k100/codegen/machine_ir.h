// k100lc codegen: the machine IR a kernel is built in.
//
// A kernel is a list of basic blocks of instructions. Every instruction is an
// isa::Inst matched once, when it is written (its encoding chosen, constants
// folded), whose register operands may name virtual registers: the operand
// slot holds a placeholder code and `vref` says which virtual register view
// it stands for. What an instruction reads and writes comes only from
// isa::effects_of (accesses()), so one fact serves allocation, waits and
// wait states. Structured control flow is written as pseudo-instructions
// (if_, else_, end_if, loop_, break_, continue_, end_loop) that the
// lower_control_flow pass turns into branches and EXEC masks.
//
// The passes (passes.h) run over this form in order: lower control flow,
// check EXEC and the special registers, allocate (spilling when over budget),
// assign physical registers, insert waits and wait states, relax branches,
// encode. Each is testable alone on the text form (ir_text.h).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

#include "k100/codegen/registers.h"
#include "k100/isa/effects.h"
#include "k100/isa/hazards.h"
#include "k100/isa/inst.h"

namespace k100::codegen {

struct VirtualReg {
  RegFile file = RegFile::Vector;
  uint8_t width = 1;
  uint8_t align = 1;
  std::string name;
  int fixed = -1;            // physical index when the hardware places it (entry values)
  bool entry_value = false;  // written before the first instruction
  // A VGPR whose lanes are read or written regardless of EXEC (v_readlane,
  // v_writelane, spill slots): it follows the wave's linear control flow, not
  // each lane's.
  bool linear = false;
};

// A view of `width` dwords from dword `offset` of virtual register `id`.
struct VRef {
  int32_t id = -1;
  uint8_t offset = 0, width = 0;
  bool valid() const { return id >= 0; }
};

// What an instruction does to a register: a virtual one (reg >= 0, dwords
// offset..offset+width-1) or a special one (reg < 0: code = -1 - reg, e.g.
// SCC, VCC, EXEC, M0).
struct Access {
  int32_t reg = 0;
  uint8_t offset = 0, width = 1;
  bool read = false, write = false;
  bool masked = false;  // a VGPR write that changes only the lanes EXEC enables
  bool late = false;    // written when a memory operation returns
  bool is_virtual() const { return reg >= 0; }
  uint16_t code() const { return uint16_t(-1 - reg); }
};
constexpr int32_t special_reg(uint16_t code) { return -1 - int32_t(code); }

// Structured control flow, before lowering.
enum class Pseudo : uint8_t { None, If, Else, EndIf, Loop, Break, Continue, EndLoop, WholeWave };
// The condition of an if_/break_/continue_: uniform ones branch on a scalar
// condition; Lanes takes the lanes whose bit is set in a mask (vcc or an SGPR
// pair, in operand 0).
enum class Cond : uint8_t { None, Scc0, Scc1, Vccz, Vccnz, Lanes };
const char* pseudo_name(Pseudo p);
const char* cond_name(Cond c);

enum InstFlag : uint8_t {
  kGlued = 1,        // nothing may be inserted before it (a pc-relative sequence)
  kAuthorWait = 2,   // an s_waitcnt the author wrote
  kLayerMade = 4,    // inserted by a pass (waits, wait states, lowering, spills)
  kWaitGroup = 8,    // a wait for a load group: counts filled by the waits pass
};

constexpr int8_t kExecUnknown = -128;

// The accesses of one instruction: at most isa::kMaxReads + isa::kMaxWrites.
struct AccessList {
  std::array<Access, isa::kMaxReads + isa::kMaxWrites> items{};
  int count = 0;
  std::span<const Access> list() const { return {items.data(), size_t(count)}; }
};


struct MInst {
  isa::Inst inst;  // placeholder codes where vref is valid
  std::array<VRef, isa::kMaxOperands> vref{};
  VRef atomic_dst;
  Pseudo pseudo = Pseudo::None;
  Cond cond = Cond::None;
  int32_t label = -1;        // the branch target (a label id), -1 when none
  int8_t label_operand = -1; // operand of inst holding it
  uint8_t flags = 0;
  int32_t group = -1;        // load group it belongs to, or (kWaitGroup) waits for
  int32_t indirect = -1;     // MFunction::indirect entry: where a computed jump may go
  int32_t scope = -1;        // building block that emitted it (MFunction::scopes), -1: the author
  // An author's EXEC write: +1 narrows EXEC, -n widens it back to what it
  // was n narrowings earlier, kExecUnknown anything else (annotate_exec_changes).
  int8_t exec_change = 0;
  int32_t note = -1;         // WholeWave: what needs the whole wave (MFunction::notes)

  // what accesses() computed, until an operand changes (changed())
  mutable AccessList access_cache;
  mutable bool access_cached = false;
  // its isa::hazard_profile, once registers are physical (wait-state passes)
  mutable isa::HazardProfile hazard_cache;
  mutable bool hazard_cached = false;

  bool is_pseudo() const { return pseudo != Pseudo::None; }
  void changed() { access_cached = hazard_cached = false; }
  const isa::HazardProfile& hazard_profile() const {
    if (!hazard_cached) {
      hazard_cache = isa::hazard_profile(inst);
      hazard_cached = true;
    }
    return hazard_cache;
  }
  const isa::InstDesc& desc() const { return inst.desc(); }
  const std::string& name() const { return inst.desc().name; }
};

// Where a computed jump or a routine's return may go (labels), declared by
// the kernel so that every pass follows it.
struct IndirectTargets {
  std::vector<int> labels;
};

struct MBlock {
  int label = -1;  // the label bound at its start, -1 when none
  std::vector<MInst> insts;
  // The wave's control flow (what executes), and each lane's (VGPR liveness):
  // the same outside divergent regions; inside one, a lane that takes the
  // then-branch goes from its end to the join, not through the else-branch.
  std::vector<int> succ, pred;
  std::vector<int> logical_succ, logical_pred;
  // Set by the lowering of a divergent region: the labels of this block's
  // logical successors, when they are not its linear ones.
  std::vector<int> logical_labels;
  bool logical_override = false;
};

// A byte distance a pc-relative sequence relies on: label `to` lies `bytes`
// after label `from`.
struct PcDistance {
  int from = -1, to = -1, bytes = 0;
};

// A long jump made by branch relaxation: the s_add/s_addc at the start of
// block `from` add the distance from there to label `to` (patched at encoding).
struct FarJump {
  int from = -1, to = -1;
};

struct MFunction {
  std::string name;
  isa::Target target = isa::Target::gfx926;
  std::vector<VirtualReg> regs;  // names unique
  std::unordered_set<std::string> reg_name_set;
  std::vector<MBlock> blocks;
  std::vector<std::string> label_names;  // unique
  std::unordered_set<std::string> label_name_set;
  std::vector<int> label_block;  // label id -> block (-1: unbound)
  std::vector<IndirectTargets> indirect;
  std::vector<PcDistance> distances;
  std::vector<FarJump> far_jumps;
  std::vector<std::string> scopes;  // building blocks, by MInst::scope
  std::vector<std::string> groups;  // load groups, by MInst::group
  std::vector<std::string> notes;   // by MInst::note
  bool cfg_valid = false;

  int add_reg(VirtualReg r);
  int add_label(std::string name);
  // A new empty block (after `after`, or at the end), returning its index.
  int add_block(int after = -1);
  std::string reg_text(VRef r) const;  // %acc, %acc[2], %acc[2:3]
  size_t instruction_count() const;
};

// Every register access of an instruction, from the isa effects of its
// matched form (virtual registers through their placeholders). Computed once
// per instruction and kept with it (MInst::changed() forgets it).
const AccessList& accesses(const MFunction& f, const MInst& inst);
inline void accesses(const MFunction& f, const MInst& inst, AccessList& out) { out = accesses(f, inst); }

// Whether an instruction ends its block, and how: a branch to inst.label
// (conditional or not), the end of the program, or a computed jump.
bool is_terminator(const MInst& i);
bool is_conditional_branch(const MInst& i);
bool falls_through(const MInst& i);  // false after s_branch, s_endpgm, s_setpc
bool ends_program(const MInst& i);

// Placeholder codes: the register a virtual operand is matched with. Each
// distinct virtual register of an instruction gets its own (slot 0..5), so the
// matcher's checks (constant bus, alignment) see distinct registers.
uint16_t placeholder_code(RegFile file, int slot);
constexpr int kPlaceholderSlots = 6;

}  // namespace k100::codegen
