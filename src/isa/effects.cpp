// Registers read and written per instruction: the operand lists of the table
// say where each operand lives; the few behaviours they do not express
// (implicit VCC/EXEC/SCC/M0, destinations that are also read, modifiers that
// change widths) are decided here from the family, the name and the modifiers.
#include "k100/isa/effects.h"

#include <string_view>

namespace k100::isa {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// A register operand: SGPRs/special registers and VGPRs (constants, literals,
// immediates and `off` are not registers).
bool is_register(const Operand& o) { return o.present() && (o.code < 128 || o.is_vgpr()); }

struct Builder {
  Effects e;
  void read(RegRange r, Role role) {
    if (r.count == 0) return;
    for (int i = 0; i < e.num_reads; ++i)
      if (e.reads[size_t(i)].regs == r) return;
    if (e.num_reads < kMaxReads) e.reads[e.num_reads++] = {r, role};
  }
  void write(RegRange r, Role role) {
    if (r.count == 0) return;
    for (int i = 0; i < e.num_writes; ++i)
      if (e.writes[size_t(i)].regs == r) return;
    if (e.num_writes < kMaxWrites) e.writes[e.num_writes++] = {r, role};
  }
  // A source operand: registers, plus what the special source codes stand for.
  void source(const Operand& o, Role role) {
    if (is_register(o)) return read({o.code, o.width}, role);
    switch (o.code) {
      case code::kVccz: read(kVccRange, role); break;
      case code::kExecz: read(kExecRange, role); break;
      case code::kScc: read(kSccRange, role); break;
      case code::kLdsDirect: read(kM0Range, Role::Implicit); break;
      default: break;
    }
  }
};

RegRange range_of(const Operand& o) { return is_register(o) ? RegRange{o.code, o.width} : RegRange{}; }

// Scalar ALU instructions that leave SCC alone (everything else of SOP1/SOP2/
// SOPK writes it, every SOPC compares into it).
bool salu_writes_scc(const InstDesc& d) {
  std::string_view n = d.name;
  switch (d.family) {
    case Family::SOPC:
      return n != "s_setvskip" && n != "s_set_gpr_idx_on";
    case Family::SOP2:
      return !(starts_with(n, "s_cselect") || n == "s_mul_i32" || starts_with(n, "s_mul_hi") ||
               starts_with(n, "s_bfm_") || starts_with(n, "s_pack_") || n == "s_rfe_restore_b64" ||
               n == "s_cbranch_g_fork");
    case Family::SOP1:
      return starts_with(n, "s_not_") || starts_with(n, "s_wqm_") || starts_with(n, "s_bcnt") ||
             starts_with(n, "s_quadmask") || n == "s_abs_i32" || contains(n, "saveexec") || contains(n, "wrexec");
    case Family::SOPK:
      return starts_with(n, "s_cmpk_") || n == "s_addk_i32";
    default:
      return false;
  }
}

bool salu_reads_scc(const InstDesc& d) {
  std::string_view n = d.name;
  return starts_with(n, "s_cselect") || starts_with(n, "s_cmov") || starts_with(n, "s_addc_") ||
         starts_with(n, "s_subb_") || starts_with(n, "s_cbranch_scc");
}

// SOPK instructions whose sdst field is a source (compares, s_setreg, fork),
// or a source and destination (s_addk, s_mulk).
bool sopk_sdst_read(std::string_view n) {
  return starts_with(n, "s_cmpk_") || starts_with(n, "s_setreg") || n == "s_cbranch_i_fork" ||
         n == "s_addk_i32" || n == "s_mulk_i32" || n == "s_cmovk_i32";
}
// SOP1 rows that keep part of their destination: s_bitset0/1 change one bit
// of it, s_cmov writes it only when SCC is set. Its old value is a source
// (an allocator that took the destination for dead would give its register
// to another value).
bool sop1_sdst_read(std::string_view n) { return starts_with(n, "s_bitset") || starts_with(n, "s_cmov_"); }
bool sopk_sdst_written(std::string_view n) {
  return !(starts_with(n, "s_cmpk_") || starts_with(n, "s_setreg") || n == "s_cbranch_i_fork");
}

void scalar(const Inst& inst, Builder& b) {
  const InstDesc& d = inst.desc();
  std::string_view n = d.name;
  const auto& specs = inst.specs();
  for (size_t i = 0; i < specs.size() && i < size_t(inst.num_operands); ++i) {
    const Operand& o = inst.ops[i];
    const OperandSpec& s = specs[i];
    if (s.is_immediate() && s.type != OpType::GprIdx) continue;
    switch (s.field) {
      case Field::sdst:
        if (d.family == Family::SOPK) {
          if (sopk_sdst_read(n)) b.read(range_of(o), Role::Source);
          if (sopk_sdst_written(n)) b.write(range_of(o), Role::Dest);
        } else {
          if (d.family == Family::SOP1 && sop1_sdst_read(n)) b.read(range_of(o), Role::Source);
          b.write(range_of(o), Role::Dest);
        }
        break;
      case Field::ssrc0:
      case Field::ssrc1:
        b.source(o, Role::Source);
        break;
      default:
        break;
    }
  }
  if (salu_reads_scc(d)) b.read(kSccRange, Role::Implicit);
  if (salu_writes_scc(d)) b.write(kSccRange, Role::Implicit);
  if (contains(n, "saveexec") || contains(n, "wrexec")) {
    b.read(kExecRange, Role::Implicit);
    b.write(kExecRange, Role::Implicit);
  }
  if (n == "s_cbranch_vccz" || n == "s_cbranch_vccnz") b.read(kVccRange, Role::Implicit);
  if (n == "s_cbranch_execz" || n == "s_cbranch_execnz") b.read(kExecRange, Role::Implicit);
  if (starts_with(n, "s_movrel")) {
    b.read(kM0Range, Role::Implicit);
    b.e.indexed = true;
  }
  if (starts_with(n, "s_sendmsg") || n == "s_ttracedata") b.read(kM0Range, Role::Implicit);
  if (n == "s_set_gpr_idx_on" || n == "s_set_gpr_idx_idx") b.write(kM0Range, Role::Implicit);
  if (n == "s_set_gpr_idx_on") b.read(kM0Range, Role::Implicit);  // keeps M0[31:8]
}

// VOP2 rows whose destination is also an accumulator source.
bool vop_accumulates(std::string_view n) {
  return starts_with(n, "v_mac_") || starts_with(n, "v_fmac_");
}

void vector_alu(const Inst& inst, Builder& b) {
  const InstDesc& d = inst.desc();
  std::string_view n = d.name;
  const auto& specs = inst.specs();
  bool seen_source = false;
  const Operand* vdst = nullptr;
  for (size_t i = 0; i < specs.size() && i < size_t(inst.num_operands); ++i) {
    const Operand& o = inst.ops[i];
    const OperandSpec& s = specs[i];
    switch (s.field) {
      case Field::vdst:
        vdst = &o;
        b.write(range_of(o), Role::Dest);
        break;
      case Field::sdst:
      case Field::sdst_vop3b:
        b.write(range_of(o), Role::Dest);
        break;
      case Field::vcc:
        if (seen_source) b.read(kVccRange, Role::Implicit);
        else b.write(kVccRange, Role::Implicit);
        break;
      case Field::src0:
      case Field::src1:
      case Field::src2:
      case Field::vsrc1: {
        seen_source = true;
        bool lane_select = s.field == Field::src1 && (n == "v_readlane_b32" || n == "v_writelane_b32");
        b.source(o, lane_select ? Role::LaneSelect : Role::Source);
        break;
      }
      default:
        break;
    }
  }
  // VOPC in SDWA form may name an SGPR pair destination; without one it writes VCC.
  if (d.family == Family::VOPC && inst.encoding == Encoding::SDWA) {
    bool named = false;
    for (int i = 0; i < b.e.num_writes; ++i) named |= b.e.writes[size_t(i)].role == Role::Dest;
    if (!named) b.write(kVccRange, Role::Implicit);
  }
  if (d.family == Family::VOPC && starts_with(n, "v_cmpx")) b.write(kExecRange, Role::Implicit);
  if (d.quirk(kQuirkReadsVcc)) b.read(kVccRange, Role::Implicit);
  if (vdst && vdst->is_vgpr()) {
    // Destinations merged with their old value: accumulators, v_writelane
    // (other lanes kept), SDWA with UNUSED_PRESERVE, VOP3 op_sel[3] (high half).
    // (With dst_sel:DWORD an SDWA result fills the whole register: nothing is preserved.)
    bool merges = vop_accumulates(n) || n == "v_writelane_b32" ||
                  (inst.encoding == Encoding::SDWA && inst.mods.dst_unused == SdwaUnused::UNUSED_PRESERVE &&
                   inst.mods.dst_sel != SdwaSel::DWORD);
    if (merges) b.read(range_of(*vdst), Role::Source);
  }
  if (n == "v_swap_b32")  // both operands are read and written
    for (size_t i = 0; i < size_t(inst.num_operands); ++i) {
      b.read(range_of(inst.ops[i]), Role::Source);
      b.write(range_of(inst.ops[i]), Role::Dest);
    }
  if (starts_with(n, "v_movrel")) {
    b.read(kM0Range, Role::Implicit);
    b.e.indexed = true;
  }
  b.read(kExecRange, Role::Implicit);
}

void smem(const Inst& inst, Builder& b) {
  const InstDesc& d = inst.desc();
  std::string_view n = d.name;
  bool store = starts_with(n, "s_store") || starts_with(n, "s_buffer_store") || starts_with(n, "s_scratch_store");
  bool atomic = starts_with(n, "s_atomic") || starts_with(n, "s_buffer_atomic");
  bool returns = atomic && inst.mods.glc;
  const auto& specs = inst.specs();
  for (size_t i = 0; i < specs.size() && i < size_t(inst.num_operands); ++i) {
    const Operand& o = inst.ops[i];
    switch (specs[i].field) {
      case Field::sdata: {
        RegRange r = range_of(o);
        if (store || atomic) b.read(r, Role::Data);
        if (returns) {
          if (d.quirk(kQuirkCmpswap)) r.count = uint8_t(r.count / 2);
          b.write(r, Role::MemDest);
        } else if (!store && !atomic) {
          b.write(r, Role::MemDest);
        }
        break;
      }
      case Field::sbase:
      case Field::offset:
        b.source(o, Role::Address);
        break;
      default:
        break;
    }
  }
}

void ds(const Inst& inst, Builder& b) {
  const InstDesc& d = inst.desc();
  std::string_view n = d.name;
  const auto& specs = inst.specs();
  for (size_t i = 0; i < specs.size() && i < size_t(inst.num_operands); ++i) {
    const Operand& o = inst.ops[i];
    switch (specs[i].field) {
      case Field::vdst: b.write(range_of(o), Role::MemDest); break;
      case Field::addr: b.read(range_of(o), Role::Address); break;
      case Field::data0:
      case Field::data1: b.read(range_of(o), Role::Data); break;
      default: break;
    }
  }
  // gfx9 LDS instructions ignore M0, except those that take their address or
  // GDS window from it.
  if (inst.mods.gds || starts_with(n, "ds_gws") || n == "ds_append" || n == "ds_consume" ||
      contains(n, "addtid") || n == "ds_ordered_count")
    b.read(kM0Range, Role::Implicit);
  if (n != "ds_nop") b.read(kExecRange, Role::Implicit);
}

void vector_memory(const Inst& inst, Builder& b) {
  const InstDesc& d = inst.desc();
  Family f = d.family;
  bool store = is_store(inst);
  bool atomic = d.has(kFlagAtomicRtn);
  bool returns = atomic && inst.mods.glc;
  const auto& specs = inst.specs();
  for (size_t i = 0; i < specs.size() && i < size_t(inst.num_operands); ++i) {
    const Operand& o = inst.ops[i];
    switch (specs[i].field) {
      case Field::vdata:
      case Field::vdst: {
        RegRange r = range_of(o);
        if (r.count == 0) break;
        bool is_data = specs[i].field == Field::vdata && (store || atomic);
        if (is_data) b.read(r, Role::Data);
        bool loads = !store && !atomic && !inst.mods.lds;
        if (f == Family::FLAT || f == Family::GLOBAL || f == Family::SCRATCH) {
          // FLAT families name the loaded data vdst and store data vdata.
          if (specs[i].field == Field::vdst) loads = true;
          else if (!atomic) loads = false;
        }
        if (returns && !(f == Family::FLAT || f == Family::GLOBAL || f == Family::SCRATCH)) {
          if (d.quirk(kQuirkCmpswap)) r.count = uint8_t(r.count / 2);
          b.write(r, Role::MemDest);
        } else if (loads) {
          if (inst.mods.tfe) r.count = uint8_t(r.count + 1);
          b.write(r, Role::MemDest);
        }
        break;
      }
      case Field::vaddr:
      case Field::srsrc:
      case Field::soffset:
      case Field::saddr:
        b.source(o, Role::Address);
        break;
      default:
        break;
    }
  }
  // The returning destination of a FLAT-family atomic with glc.
  if (returns && (f == Family::FLAT || f == Family::GLOBAL || f == Family::SCRATCH))
    b.write(range_of(inst.atomic_dst), Role::MemDest);
  if (inst.mods.lds || d.quirk(kQuirkLdsSyntax)) b.read(kM0Range, Role::Implicit);
  if (f == Family::FLAT || f == Family::SCRATCH) b.read(kFlatScratchRange, Role::Implicit);
  if (!(f == Family::MUBUF && (d.name == "buffer_wbinvl1" || d.name == "buffer_wbinvl1_vol")))
    b.read(kExecRange, Role::Implicit);
}

}  // namespace

std::string reg_range_name(RegRange r) {
  if (r.count == 0) return "(none)";
  if (r.first == code::kScc) return "scc";
  if (r.is_vgpr()) {
    unsigned v = r.first - code::kVgprFirst;
    if (r.count == 1) return "v" + std::to_string(v);
    return "v[" + std::to_string(v) + ":" + std::to_string(v + r.count - 1) + "]";
  }
  if (r == kVccRange) return "vcc";
  if (r == kExecRange) return "exec";
  if (r == kFlatScratchRange) return "flat_scratch";
  if (r.count == 1) {
    std::string s = scalar_reg_name(r.first);
    return s.empty() ? "s" + std::to_string(r.first) : s;
  }
  if (r.end() <= code::kSgprLast + 1)
    return "s[" + std::to_string(r.first) + ":" + std::to_string(r.first + r.count - 1) + "]";
  std::string out;
  for (unsigned c = r.first; c < r.end(); ++c) out += (out.empty() ? "" : ",") + reg_range_name({uint16_t(c), 1});
  return "[" + out + "]";
}

const char* role_name(Role r) {
  static const char* names[] = {"source", "lane select", "address", "data", "destination",
                                "memory destination", "implicit"};
  return names[size_t(r)];
}

Unit unit_of(const Inst& inst) {
  switch (inst.family()) {
    case Family::SMEM: return Unit::Smem;
    case Family::VOP1: case Family::VOP2: case Family::VOPC: case Family::VOP3: case Family::VOP3P:
      return Unit::Valu;
    case Family::DS: return Unit::Lds;
    case Family::MUBUF: case Family::MTBUF: case Family::FLAT: case Family::GLOBAL: case Family::SCRATCH:
      return Unit::Vmem;
    default: return Unit::Salu;
  }
}
bool is_valu(const Inst& inst) { return unit_of(inst) == Unit::Valu; }
bool is_salu(const Inst& inst) { return unit_of(inst) == Unit::Salu; }
bool is_vmem(const Inst& inst) { return unit_of(inst) == Unit::Vmem; }

bool is_store(const Inst& inst) {
  const InstDesc& d = inst.desc();
  std::string_view n = d.name;
  switch (d.family) {
    case Family::MUBUF: case Family::MTBUF: case Family::FLAT: case Family::GLOBAL: case Family::SCRATCH:
      return contains(n, "_store") || (d.has(kFlagAtomicRtn) && !inst.mods.glc);
    case Family::SMEM:
      return contains(n, "_store") || ((starts_with(n, "s_atomic") || starts_with(n, "s_buffer_atomic")) && !inst.mods.glc);
    case Family::DS: {
      // A DS instruction that takes data and returns nothing: writes and
      // non-returning atomics.
      bool writes_vgpr = false, has_data = false;
      for (const OperandSpec& s : inst.specs()) {
        writes_vgpr |= s.field == Field::vdst;
        has_data |= s.field == Field::data0;
      }
      return has_data && !writes_vgpr;
    }
    default:
      return false;
  }
}

bool Effects::reads_reg(uint16_t c) const {
  for (const RegUse& u : read_list())
    if (u.regs.contains(c)) return true;
  return false;
}
bool Effects::writes_reg(uint16_t c) const {
  for (const RegUse& u : write_list())
    if (u.regs.contains(c)) return true;
  return false;
}
const RegUse* Effects::read_overlapping(RegRange r) const {
  for (const RegUse& u : read_list())
    if (u.regs.overlaps(r)) return &u;
  return nullptr;
}
const RegUse* Effects::write_overlapping(RegRange r) const {
  for (const RegUse& u : write_list())
    if (u.regs.overlaps(r)) return &u;
  return nullptr;
}

Effects effects_of(const Inst& inst) {
  Builder b;
  switch (unit_of(inst)) {
    case Unit::Salu: scalar(inst, b); break;
    case Unit::Smem: smem(inst, b); break;
    case Unit::Valu: vector_alu(inst, b); break;
    case Unit::Lds: ds(inst, b); break;
    case Unit::Vmem: vector_memory(inst, b); break;
  }
  return b.e;
}

}  // namespace k100::isa
