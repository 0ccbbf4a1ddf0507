// k100lc codegen: a kernel written with virtual registers.
//
//   Kernel k(sig, target, {.waves_per_simd = 8});
//   SGPR w = k.arg("w"), n = k.arg("nrows");   // loaded at entry (batched s_load_dwordx*)
//   VGPR acc = k.vgpr(4, "acc");
//   k.v_mov_b32(acc[0], 0);
//   k.global_load_dwordx4(acc, off_v, w);
//   ...
//   codeobj::CodeObject co = k.build();
//
// One method per instruction of the ISA table, as in as::KernelBuilder; the
// operands may be virtual registers (VGPR/SGPR from vgpr()/sgpr() or entry
// values), special registers (as::vcc, as::exec, as::m0), constants, labels
// and modifiers. General registers may not be named physically: the layer
// places every one of them. build() allocates registers (a budget that keeps
// `waves_per_simd` waves resident on a SIMD, or a k100::Error naming the
// kernel and what is live where it does not fit), then writes the code object
// with the descriptor settings, the kernarg size and the argument metadata of
// the signature.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <unordered_map>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "k100/asm/builder.h"
#include "k100/codegen/allocation.h"
#include "k100/codegen/machine_ir.h"
#include "k100/codegen/passes.h"
#include "k100/codeobj/descriptor_settings.h"
#include "k100/codegen/registers.h"
#include "k100/codegen/signature.h"
#include "k100/codeobj/code_object.h"

namespace k100::codegen {

// The hardware registers and the modifiers a generator names beside its
// virtual registers, so that `using namespace codegen` is all it needs.
using as::exec, as::exec_hi, as::exec_lo, as::m0, as::off, as::offset, as::sdwa_sel, as::vcc, as::vcc_hi, as::vcc_lo;
using codeobj::HiddenArgLayout;

struct Label {
  int id = -1;
};

// One operand of an instruction: a register view (with source modifiers), a
// label, or anything as::Arg takes (constants, as::off, waitcnt(), modifiers).
class Operand {
 public:
  Operand(VGPR r) : vreg_(r) {}
  Operand(SGPR r) : sreg_(r) {}
  Operand(Label l) : label_(l.id) {}
  Operand(as::SGPR special) : sreg_(SGPR(special)) {}
  Operand(as::Modifier m) : modifier_name_(m.name), plain_(as::Arg(std::move(m))) {}
  Operand(as::VGPR) = delete;  // VGPRs come from Kernel::vgpr()
  template <class T>
    requires std::constructible_from<as::Arg, T> && (!std::same_as<std::decay_t<T>, as::SGPR>) &&
             (!std::same_as<std::decay_t<T>, as::VGPR>) && (!std::same_as<std::decay_t<T>, as::Modifier>)
  Operand(T&& t) : plain_(as::Arg(std::forward<T>(t))) {
    if constexpr (std::is_arithmetic_v<std::decay_t<T>>) text_ = std::to_string(t);
  }

  Operand& neg() { return mod(1); }
  Operand& abs() { return mod(2); }
  Operand& sext() { return mod(4); }

  const std::optional<VGPR>& vreg() const { return vreg_; }
  const std::optional<SGPR>& sreg() const { return sreg_; }
  const std::optional<as::Arg>& plain() const { return plain_; }
  int label() const { return label_; }
  int mods() const { return mods_; }
  const std::string& modifier_name() const { return modifier_name_; }
  const std::string& text() const { return text_; }  // constants, for messages
  bool is_modifier() const { return plain_ && plain_->is_modifier(); }

 private:
  Operand& mod(int bit) {
    if (plain_) {
      if (bit == 1) plain_->neg();
      if (bit == 2) plain_->abs();
      if (bit == 4) plain_->sext();
    }
    mods_ |= bit;
    return *this;
  }
  std::string modifier_name_, text_;
  std::optional<VGPR> vreg_;
  std::optional<SGPR> sreg_;
  std::optional<as::Arg> plain_;
  int label_ = -1;
  int mods_ = 0;
};
inline Operand neg(Operand o) { return std::move(o.neg()); }
inline Operand abs(Operand o) { return std::move(o.abs()); }
inline Operand sext(Operand o) { return std::move(o.sext()); }

// A routine entered through s_swappc_b64 and left through the return address
// it wrote (Kernel::routine / call / ret).
struct Routine {
  int id = -1;
  SGPR address;  // the entry address, set where the routine is emitted
  SGPR ret;      // the return address each call writes
};

// Loads whose completion one wait asks for (Kernel::group / wait).
struct LoadGroup {
  int id = -1;
};

struct KernelOptions {
  int waves_per_simd = 8;       // occupancy asked for: the VGPR and SGPR budgets follow
  uint32_t lds_bytes = 0;
  uint32_t max_workgroup = 256;
  bool dispatch_ptr = false;    // the dispatch packet pointer (s[4:5]; the kernarg pointer moves up)
  int workgroup_dims = 1;       // workgroup ids x (, y (, z)) in SGPRs
  int workitem_dims = 1;        // local ids x (, y (, z)) in v0 (, v1 (, v2))
  bool f32_denormals = true;    // IEEE f32 denormals (no flushing)
  bool automatic_waits = true;        // s_waitcnt before every use of a pending load (passes.h: insert_waits)
  bool automatic_wait_states = true;  // s_nop where the GFX9 hazard table asks for wait states
  // Over budget: spill (SGPRs to VGPR lanes, VGPRs to LDS while the
  // workgroup's LDS has room, then to scratch) or fail with an error naming
  // what is live where it does not fit.
  bool spill = true;
  // Waits the author wrote are relaxed to what the instructions up to the
  // next wait need (passes.h: insert_waits), except where ordering the
  // scores cannot see may matter. false: every hand wait stays as written.
  bool relax_waits = true;
  // The allocator keeps an SGPR a VALU writes apart from one a VMEM
  // instruction or lane select reads within the GFX9 hazard's window (no
  // s_nop between them), where a free register allows. Off by default: the
  // s_nop it saves also paced some kernels' loads.
  bool avoid_sgpr_hazard_sharing = false;
};

// What a package build asks of every kernel built while it is in scope (on
// this thread), whatever the kernel's options say: the experiment of
// `k100-build-kernels --no-automatic-waits` (kernels without what the layer
// would insert, for the emulator's checks to report). Hand-placed waits stay.
struct BuildOverrides {
  bool no_automatic_waits = false;
  bool no_automatic_wait_states = false;
  bool no_wait_relaxation = false;  // every hand wait as written
};
class ScopedBuildOverrides {
 public:
  explicit ScopedBuildOverrides(BuildOverrides o);
  ~ScopedBuildOverrides();
  ScopedBuildOverrides(const ScopedBuildOverrides&) = delete;
  ScopedBuildOverrides& operator=(const ScopedBuildOverrides&) = delete;

 private:
  BuildOverrides saved_;
};

// What build() reports beside the code object.
struct BuildReport {
  Allocation allocation;
  int sgpr_spills = 0, vgpr_spills = 0;  // dwords spilled (to VGPR lanes, to scratch or LDS)
  int vgpr_spills_to_lds = 0;            // of vgpr_spills, the dwords in LDS (the rest in scratch)
  uint32_t scratch_bytes = 0;            // per lane
  uint32_t lds_spill_bytes = 0;          // per workgroup, after the kernel's own LDS
  int relaxed_branches = 0;
};

class BuildCache;

class Kernel {
 public:
  Kernel(Signature sig, isa::Target target, KernelOptions options = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const std::string& name() const { return sig_.kernel(); }
  const Signature& signature() const { return sig_; }
  isa::Target target() const { return target_; }
  const KernelOptions& options() const { return options_; }

  VGPR vgpr(int width = 1, std::string name = {});
  SGPR sgpr(int width = 1, std::string name = {});
  // A VGPR read or written regardless of EXEC (v_readlane/v_writelane
  // slots): it stays intact through divergent regions.
  VGPR linear_vgpr(int width = 1, std::string name = {});

  // Entry values. What the kernel reads of arg() and kernarg() is loaded at
  // the top of the kernel: the dwords its instructions use, in the loads that
  // cost the host link least (kernarg_loads.h), so an argument the kernel never
  // reads is never loaded. With automatic waits the layer waits for them
  // before the first use; without, the caller does (lgkmcnt).
  SGPR arg(std::string_view name);
  SGPR kernarg(uint32_t byte_offset, int dwords);  // e.g. hidden arguments at signature().layout().hidden_start
  SGPR workgroup_id(int dim = 0);
  VGPR local_id(int dim = 0);
  SGPR kernarg_pointer();
  SGPR dispatch_pointer();

  Label label(std::string hint = {});
  void bind(Label l);
  // The kernel's end: unless the kernel binds it itself, build() binds it
  // after the last instruction and ends the program there (s_endpgm). A
  // kernel that does not end in s_endpgm gets one.
  Label exit();

#define K100_INST(id, ...)                        \
  template <class... A>                           \
  void id(A&&... a) {                             \
    emit(#id, {Operand(std::forward<A>(a))...});  \
  }
#include "k100/isa/gfx9_table.inc"
#undef K100_INST

  // Structured control flow. Uniform conditions (Cond::Scc0/Scc1/Vccz/Vccnz)
  // branch the whole wave; a lane mask (vcc or an SGPR pair) makes the region
  // divergent: EXEC holds the lanes inside it, a region no lane enters is
  // skipped, and EXEC is what it was after end_if / end_loop (less the lanes
  // that left the loop by break_ while it ran are back too). A loop runs until
  // a break_ takes every lane out; continue_ goes to the next trip. These
  // write SCC (and, divergent, EXEC): a value the kernel keeps in SCC across
  // one is an error at build.
  void if_(Cond c);
  void if_(SGPR lanes);
  void else_();
  void end_if();
  void loop_();
  void break_(Cond c);
  void break_(SGPR lanes);
  void continue_(Cond c);
  void continue_(SGPR lanes);
  void end_loop();
  // The same with the bodies as functions.
  void if_(Cond c, const std::function<void()>& then, const std::function<void()>& otherwise = {});
  void if_(SGPR lanes, const std::function<void()>& then, const std::function<void()>& otherwise = {});
  void loop_(const std::function<void()>& body);
  // A building block that reads lanes EXEC may not enable (DPP, permutes,
  // lane reads) states it here; build() checks that no divergent region and
  // no narrowed EXEC encloses this point (`what` names it in the error).
  void require_whole_wave(std::string what);

  // Loads issued between begin_group(g) and end_group() belong to g; wait(g)
  // is one s_waitcnt with the weakest counts after which all of them have
  // returned (the waits pass computes them).
  LoadGroup group(std::string name);
  void begin_group(LoadGroup g);
  void end_group();
  void wait(LoadGroup g);

  // Instructions a building block emits are marked with its name, so errors
  // point at it and the special-register check knows whose SCC/VCC it is.
  class Scope {
   public:
    Scope(Kernel& k, std::string name);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Kernel& k_;
    int saved_;
  };

  // Indirect control flow, declared so that liveness, waits and wait states
  // follow it. routine() emits body here behind a branch over it and puts its
  // entry address in the returned Routine's `address` (s_getpc_b64 + 12); a
  // call (s_swappc_b64) goes to the entry and its ret (s_setpc_b64) back to
  // after any call of the routine. jump_table() is a computed jump (s_getpc,
  // s_add/s_addc of `offset`, s_setpc) into `count` entries of exactly
  // `entry_bytes` bytes that entry(i) emits; the offset of entry i is
  // table_offset(i, entry_bytes). Nothing is inserted inside these sequences
  // (waits and wait states go before them) and build() checks every byte
  // distance they rely on against the encoded code, a k100::Error otherwise.
  Routine routine(std::string name, const std::function<void(const Routine&)>& body);
  void call(const Routine& r);
  void ret(const Routine& r);
  SGPR table_offset(Operand index, int entry_bytes);
  void jump_table(SGPR offset, int count, int entry_bytes, const std::function<void(int)>& entry);

  // Any mnemonic, e.g. "v_add_f32_e64" to force VOP3.
  void emit(std::string_view mnemonic, std::initializer_list<Operand> operands);
  size_t size() const { return fn_.instruction_count(); }

  // Runs the passes, then builds the code object of this one kernel.
  codeobj::CodeObject build(codeobj::CodeObjectVersion version = codeobj::CodeObjectVersion::V5);
  // After build(): the allocation, spills and the kernel's text in llvm syntax.
  const Allocation& allocation() const { return report_.allocation; }
  const BuildReport& report() const { return report_; }
  const std::string& assembly() const;
  // The machine IR as written so far (before build()), or as built.
  const MFunction& function() const { return compiled_ ? *compiled_->final_ir : fn_; }

  // What the passes made of the IR: shared between kernels of one package
  // build whose IR is the same (BuildCache).
  struct Compiled {
    AllocationResult allocation;
    int relaxed = 0;
    std::vector<uint8_t> code;
    codeobj::RegisterUsage usage;
    std::shared_ptr<const MFunction> final_ir;
  };

 private:
  struct EntryLoad {
    uint32_t byte_offset;
    int dwords;
    SGPR dst;
  };
  struct Open {  // an open structured region
    Pseudo kind;
    bool has_else = false;
  };
  int new_reg(RegFile f, int width, std::string name, int fixed, bool entry, bool linear = false);
  MInst& record(std::string_view mnemonic, const std::vector<Operand>& ops);
  void append(MInst inst);
  void start_block();
  void pseudo(Pseudo p, Cond c, std::optional<SGPR> lanes);
  void glue_from(size_t block, size_t inst);
  void plan_entry_loads();
  std::string where(std::string_view what) const;

  Signature sig_;
  isa::Target target_;
  KernelOptions options_;
  MFunction fn_;
  int current_block_ = 0;
  int scope_ = -1;
  int open_group_ = -1;
  std::vector<Open> open_;
  std::vector<EntryLoad> loads_;
  std::vector<int> routine_entry_;                 // per routine: entry label
  std::vector<std::vector<int>> return_points_;    // per routine: label after each call
  std::vector<int> routine_returns_;               // per routine: its IndirectTargets entry
  Label exit_;
  std::optional<SGPR> arg_block_[4];
  int kernarg_code_ = 4, dispatch_code_ = -1, group_code_ = 6;
  std::optional<SGPR> entry_sgpr_[5];
  std::optional<VGPR> entry_vgpr_[3];
  bool built_ = false;
  BuildReport report_;
  std::shared_ptr<const Compiled> compiled_;
  mutable std::string assembly_;
};

// Compiled kernels by their IR, for the builds made while a ScopedBuildCache
// is in scope on this thread: k100-build-kernels builds both targets under
// one, so a kernel whose generator writes the same IR for gfx906 and gfx926
// runs the passes once.
class BuildCache {
 public:
  std::shared_ptr<const Kernel::Compiled> find(const std::string& key) const;
  void store(const std::string& key, std::shared_ptr<const Kernel::Compiled> c);

 private:
  std::unordered_map<std::string, std::shared_ptr<const Kernel::Compiled>> entries_;
};
class ScopedBuildCache {
 public:
  explicit ScopedBuildCache(BuildCache& c);
  ~ScopedBuildCache();
  ScopedBuildCache(const ScopedBuildCache&) = delete;
  ScopedBuildCache& operator=(const ScopedBuildCache&) = delete;

 private:
  BuildCache* saved_;
};

}  // namespace k100::codegen
