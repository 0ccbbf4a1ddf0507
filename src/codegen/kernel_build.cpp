// Kernel::build: the kernel's end and entry loads, the passes in order, then
// the code object with the signature's settings and metadata.
#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <type_traits>

#include "inst_factory.h"
#include "k100/base/error.h"
#include "k100/codegen/kernarg_loads.h"
#include "k100/codegen/kernel.h"
#include "k100/codegen/ir_text.h"
#include "k100/codegen/passes.h"
#include "k100/codeobj/kernel_builder.h"
#include "k100/codeobj/target.h"
#include "k100/isa/table.h"

namespace k100::codegen {

namespace {

thread_local BuildOverrides g_overrides;
thread_local BuildCache* g_cache = nullptr;

// Everything the passes read of a kernel's IR, field by field: equal bytes,
// equal result.
class Fingerprint {
 public:
  template <class T>
  Fingerprint& operator<<(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Fingerprint& operator<<(const std::string& v) { return *this << v.size(), out_.append(v), *this; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

void add_inst(Fingerprint& fp, const MInst& m) {
  const isa::Inst& i = m.inst;
  fp << i.id << i.encoding << i.num_operands;
  for (int k = 0; k < i.num_operands; ++k) fp << i.ops[size_t(k)].code << i.ops[size_t(k)].width << i.ops[size_t(k)].value;
  fp << i.atomic_dst.code << i.atomic_dst.width << i.atomic_dst.value;
  const isa::Modifiers& d = i.mods;
  fp << d.neg << d.abs << d.sext << d.op_sel << d.op_sel_hi << d.neg_hi << d.clamp << d.omod << d.dst_sel << d.src0_sel
     << d.src1_sel << d.dst_unused << d.dpp_ctrl << d.row_mask << d.bank_mask << d.bound_ctrl << d.offset << d.offset0
     << d.offset1 << d.glc << d.slc << d.lds << d.tfe << d.gds << d.offen << d.idxen << d.nv << d.dfmt << d.nfmt;
  for (const VRef& v : m.vref) fp << v.id << v.offset << v.width;
  fp << m.atomic_dst.id << m.atomic_dst.offset << m.atomic_dst.width << m.pseudo << m.cond << m.label
     << m.label_operand << m.flags << m.group << m.indirect << m.scope << m.note;
}

std::string fingerprint(const MFunction& f) {
  Fingerprint fp;
  fp << f.name << f.regs.size();
  for (const VirtualReg& r : f.regs) fp << r.file << r.width << r.align << r.fixed << r.entry_value << r.linear;
  fp << f.blocks.size();
  for (const MBlock& b : f.blocks) {
    fp << b.label << b.logical_override << b.logical_labels.size();
    for (int l : b.logical_labels) fp << l;
    fp << b.insts.size();
    for (const MInst& m : b.insts) add_inst(fp, m);
  }
  fp << f.label_block.size();
  for (int l : f.label_block) fp << l;
  fp << f.indirect.size();
  for (const IndirectTargets& it : f.indirect) {
    fp << it.labels.size();
    for (int l : it.labels) fp << l;
  }
  fp << f.distances.size();
  for (const PcDistance& d : f.distances) fp << d.from << d.to << d.bytes;
  fp << f.scopes.size() << f.groups.size() << f.notes.size();
  for (const std::string& n : f.notes) fp << n;
  return fp.take();
}

void set(codeobj::DescriptorSettings& s, const codeobj::Target& t, std::string_view key, int64_t value) {
  codeobj::set_amdhsa_directive(s, key, value, t);
}

codeobj::RegisterUsage usage_of(const MFunction& f) {
  codeobj::RegisterUsage u;
  auto note = [&](const isa::Operand& o) {
    if (o.is_vgpr()) u.max_vgpr = std::max(u.max_vgpr, int(o.vgpr_index() + o.width - 1));
    else if (o.code <= isa::code::kSgprLast) u.max_sgpr = std::max(u.max_sgpr, int(o.code + o.width - 1));
  };
  for (const MBlock& b : f.blocks)
    for (const MInst& m : b.insts) {
      for (int i = 0; i < m.inst.num_operands; ++i) note(m.inst.ops[size_t(i)]);
      if (m.inst.atomic_dst.present()) note(m.inst.atomic_dst);
    }
  return u;
}

// Whether running the waits and wait-states passes again would insert
// anything: inside a pc-relative sequence nothing may go, so what it would
// need there must already be before it.
void check_glued(const MFunction& f, bool waits, bool states) {
  bool glued = false;
  for (const MBlock& b : f.blocks)
    for (const MInst& m : b.insts) glued = glued || (m.flags & kGlued);
  if (!glued) return;
  MFunction again = f;
  if (waits) insert_waits(again);
  if (states) insert_wait_states(again);
  if (again.instruction_count() != f.instruction_count())
    throw Error("kernel '" + f.name + "': a wait or wait state is needed inside a computed jump's sequence");
}

}  // namespace

ScopedBuildOverrides::ScopedBuildOverrides(BuildOverrides o) : saved_(g_overrides) { g_overrides = o; }
ScopedBuildOverrides::~ScopedBuildOverrides() { g_overrides = saved_; }

std::shared_ptr<const Kernel::Compiled> BuildCache::find(const std::string& key) const {
  auto it = entries_.find(key);
  return it == entries_.end() ? nullptr : it->second;
}
void BuildCache::store(const std::string& key, std::shared_ptr<const Kernel::Compiled> c) { entries_[key] = std::move(c); }
ScopedBuildCache::ScopedBuildCache(BuildCache& c) : saved_(g_cache) { g_cache = &c; }
ScopedBuildCache::~ScopedBuildCache() { g_cache = saved_; }

const std::string& Kernel::assembly() const {
  if (assembly_.empty() && compiled_) assembly_ = assembly_text(*compiled_->final_ir);
  return assembly_;
}

void Kernel::plan_entry_loads() {
  if (loads_.empty()) return;
  // The kernarg dwords the body reads, through the registers arg() and
  // kernarg() handed out, then the loads that hold them (kernarg_loads.h); the
  // body's operands are moved onto the loads' destinations.
  std::vector<int> load_of_reg(fn_.regs.size(), -1);
  for (size_t l = 0; l < loads_.size(); ++l) load_of_reg[size_t(loads_[l].dst.id)] = int(l);
  std::vector<KernargUse> uses;
  for (const MBlock& b : fn_.blocks)
    for (const MInst& m : b.insts)
      for (const VRef& v : m.vref)
        if (v.valid() && load_of_reg[size_t(v.id)] >= 0)
          uses.push_back({loads_[size_t(load_of_reg[size_t(v.id)])].byte_offset / 4 + v.offset, v.width});
  const KernargPlan plan = plan_kernarg_loads(uses, sig_.kernarg_size() / 4, name());
  std::vector<SGPR> dst;
  for (const KernargLoad& l : plan.loads) dst.push_back(sgpr(l.dwords, "kernarg_" + std::to_string(4 * l.first)));
  size_t use = 0;
  for (MBlock& b : fn_.blocks)
    for (MInst& m : b.insts)
      for (VRef& v : m.vref)
        if (v.valid() && load_of_reg[size_t(v.id)] >= 0) {
          const int at = plan.load_of_use[use++];
          v.offset = uint8_t(uses[use - 1].first - plan.loads[size_t(at)].first);
          v.id = dst[size_t(at)].id;
          m.changed();
        }
  static const char* names[] = {"", "s_load_dword", "s_load_dwordx2", "", "s_load_dwordx4", "", "", "",
                                "s_load_dwordx8", "", "", "", "", "", "", "", "s_load_dwordx16"};
  MBlock entry;
  const SGPR base = kernarg_pointer();
  for (size_t i = 0; i < plan.loads.size(); ++i)
    entry.insts.push_back(make_inst(fn_, names[plan.loads[i].dwords],
                                    {PassOperand::v(VRef{dst[i].id, 0, dst[i].width}),
                                     PassOperand::v(VRef{base.id, 0, 2}), PassOperand::imm(4 * plan.loads[i].first)},
                                    -1, 0));
  fn_.blocks.insert(fn_.blocks.begin(), std::move(entry));
  for (int& lb : fn_.label_block)
    if (lb >= 0) ++lb;
}

codeobj::CodeObject Kernel::build(codeobj::CodeObjectVersion version) {
  if (built_) throw Error("kernel '" + name() + "': build() runs once");
  if (!open_.empty())
    throw Error("kernel '" + name() + "': " + pseudo_name(open_.back().kind) + " is never closed (" +
                (open_.back().kind == Pseudo::If ? "end_if" : "end_loop") + ")");
  if (open_group_ >= 0) throw Error("kernel '" + name() + "': load group '" + fn_.groups[size_t(open_group_)] + "' is never closed");
  if (exit_.id >= 0 && fn_.label_block[size_t(exit_.id)] < 0) {
    bind(exit_);
    s_endpgm();
  }
  // A kernel that runs off its last instruction ends there.
  {
    const MInst* last = nullptr;
    for (const MBlock& b : fn_.blocks)
      if (!b.insts.empty()) last = &b.insts.back();
    const bool empty_tail = fn_.blocks.back().insts.empty();
    if (!last || !empty_tail || falls_through(*last) || fn_.blocks.back().label >= 0) s_endpgm();
  }
  built_ = true;
  plan_entry_loads();
  const bool waits = options_.automatic_waits && !g_overrides.no_automatic_waits;
  const bool states = options_.automatic_wait_states && !g_overrides.no_automatic_wait_states;
  // K100_CODEGEN_RELAX_WAITS=0: every hand wait as written (to compare).
  static const bool relax_env_off = [] {
    const char* v = std::getenv("K100_CODEGEN_RELAX_WAITS");
    return v && std::string_view(v) == "0";
  }();
  const bool relax = waits && options_.relax_waits && !g_overrides.no_wait_relaxation && !relax_env_off;
  AllocationOptions ao;
  ao.vgpr_budget = vgpr_budget(options_.waves_per_simd);
  ao.sgpr_budget = sgpr_budget(options_.waves_per_simd);
  ao.spill = options_.spill;
  ao.lds_bytes = options_.lds_bytes;
  ao.max_workgroup = options_.max_workgroup;
  ao.waves_per_simd = options_.waves_per_simd;
  ao.workitem_dims = options_.workitem_dims;
  ao.scratch_offset_sgpr = group_code_ + options_.workgroup_dims;
  ao.avoid_sgpr_hazard_sharing = options_.avoid_sgpr_hazard_sharing;
  // gfx906 and gfx926 share one encoding: a kernel whose generator wrote the
  // same IR for both is compiled once per package build (BuildCache).
  std::string key;
  if (g_cache) {
    key = fingerprint(fn_) + "|" + std::to_string(ao.vgpr_budget) + "," + std::to_string(ao.sgpr_budget) + "," +
          std::to_string(ao.spill) + "," + std::to_string(ao.scratch_offset_sgpr) + "," + std::to_string(waits) + "," + std::to_string(relax) + "," +
          std::to_string(ao.lds_bytes) + "," + std::to_string(ao.max_workgroup) + "," +
          std::to_string(ao.workitem_dims) + "," + std::to_string(ao.waves_per_simd) + "," +
          std::to_string(states) + "," + std::to_string(ao.avoid_sgpr_hazard_sharing);
    if (auto hit = g_cache->find(key)) compiled_ = hit;
  }
  if (!compiled_) {
    dump_after(fn_, "writing");
    lower_control_flow(fn_);
    build_cfg(fn_);
    dump_after(fn_, "lower_control_flow");
    check_whole_wave(fn_);
    strip_whole_wave(fn_);
    check_special_registers(fn_);
    auto c = std::make_shared<Compiled>();
    c->allocation = allocate_registers(fn_, ao);
    build_cfg(fn_);
    dump_after(fn_, "allocate_registers");
    if (waits) {
      insert_waits(fn_, relax);
      dump_after(fn_, "insert_waits");
    }
    if (states) {
      insert_wait_states(fn_);
      dump_after(fn_, "insert_wait_states");
    }
    c->relaxed = relax_branches(fn_, c->allocation.allocation, ao.sgpr_budget);
    if (c->relaxed) {
      if (states) insert_wait_states(fn_);
      build_cfg(fn_);
      dump_after(fn_, "relax_branches");
    }
    check_glued(fn_, waits, states);
    c->code = encode(fn_).code;
    c->usage = usage_of(fn_);
    c->final_ir = std::make_shared<const MFunction>(std::move(fn_));
    fn_ = MFunction{};
    compiled_ = c;
    if (g_cache) g_cache->store(key, c);
  }
  const AllocationResult& ar = compiled_->allocation;
  report_.allocation = ar.allocation;
  report_.sgpr_spills = ar.sgpr_spills;
  report_.vgpr_spills = ar.vgpr_spills;
  report_.scratch_bytes = ar.scratch_bytes;
  report_.vgpr_spills_to_lds = ar.vgpr_spills_to_lds;
  report_.lds_spill_bytes = ar.lds_spill_bytes;
  report_.relaxed_branches = compiled_->relaxed;

  codeobj::CodeObject co;
  co.origin = "kernel builder '" + name() + "'";
  co.target = codeobj::default_target(isa::target_name(target_));
  co.version = version;
  co.text = compiled_->code;
  codeobj::KernelSpec spec;
  spec.name = name();
  const codeobj::Target& t = co.target;
  set(spec.settings, t, ".amdhsa_user_sgpr_private_segment_buffer", 1);
  if (options_.dispatch_ptr) set(spec.settings, t, ".amdhsa_user_sgpr_dispatch_ptr", 1);
  set(spec.settings, t, ".amdhsa_user_sgpr_kernarg_segment_ptr", 1);
  set(spec.settings, t, ".amdhsa_system_sgpr_workgroup_id_x", 1);
  if (options_.workgroup_dims > 1) set(spec.settings, t, ".amdhsa_system_sgpr_workgroup_id_y", 1);
  if (options_.workgroup_dims > 2) set(spec.settings, t, ".amdhsa_system_sgpr_workgroup_id_z", 1);
  if (ar.scratch_bytes) {
    set(spec.settings, t, ".amdhsa_system_sgpr_private_segment_wavefront_offset", 1);
    set(spec.settings, t, ".amdhsa_private_segment_fixed_size", ar.scratch_bytes);
  }
  if (options_.workitem_dims > 1) set(spec.settings, t, ".amdhsa_system_vgpr_workitem_id", options_.workitem_dims - 1);
  if (options_.f32_denormals) set(spec.settings, t, ".amdhsa_float_denorm_mode_32", 3);
  const uint32_t lds = ar.lds_spill_bytes ? ar.lds_spill_base + ar.lds_spill_bytes : options_.lds_bytes;
  if (lds) set(spec.settings, t, ".amdhsa_group_segment_fixed_size", lds);
  set(spec.settings, t, ".amdhsa_kernarg_size", sig_.kernarg_size());
  spec.args = sig_.explicit_args();
  spec.layout.hidden = sig_.hidden();
  spec.usage = compiled_->usage;
  spec.code_offset = 0;
  spec.code_size = co.text.size();
  spec.max_flat_workgroup_size = options_.max_workgroup;
  codeobj::Kernel k = codeobj::build_kernel(spec, co.target, version);
  if (k.meta && (ar.sgpr_spills || ar.vgpr_spills)) {
    k.meta->sgpr_spill_count = uint32_t(ar.sgpr_spills);
    k.meta->vgpr_spill_count = uint32_t(ar.vgpr_spills);
  }
  co.kernels.push_back(std::move(k));
  return co;
}

}  // namespace k100::codegen
