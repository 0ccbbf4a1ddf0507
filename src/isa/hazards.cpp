// The GFX9 required-wait-state table and the tracker that applies it.
#include "k100/isa/hazards.h"

#include <string_view>

namespace k100::isa {

namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
std::string_view name_of(const Inst& i) { return i.desc().name; }

// ------------------------------------------------------------ consumers ---

bool is_getreg(const Inst& i) { return name_of(i) == "s_getreg_b32"; }
bool is_setreg(const Inst& i) { return starts_with(name_of(i), "s_setreg"); }
bool is_getreg_mode(const Inst& i) {
  HwregField f;
  return is_getreg(i) && hwreg_of(i, &f) && f.id == kHwregMode;
}
bool is_vector_op(const Inst& i) {
  Unit u = unit_of(i);
  return u == Unit::Valu || u == Unit::Vmem || u == Unit::Lds;
}
bool reads_vccz_execz(const Inst& i) {
  if (!is_valu(i)) return false;
  for (int k = 0; k < i.num_operands; ++k)
    if (i.ops[size_t(k)].code == code::kVccz || i.ops[size_t(k)].code == code::kExecz) return true;
  return false;
}
bool is_rw_lane(const Inst& i) { return name_of(i) == "v_readlane_b32" || name_of(i) == "v_writelane_b32"; }
bool is_div_fmas(const Inst& i) { return starts_with(name_of(i), "v_div_fmas_"); }
bool is_valu_consumer(const Inst& i) { return is_valu(i); }
bool is_vmem_consumer(const Inst& i) { return is_vmem(i); }
bool is_gds_or_message(const Inst& i) {
  std::string_view n = name_of(i);
  if (starts_with(n, "s_sendmsg") || n == "s_ttracedata") return true;
  if (unit_of(i) != Unit::Lds) return false;
  if (n == "ds_nop" || n == "ds_permute_b32" || n == "ds_bpermute_b32") return false;
  return i.mods.gds || starts_with(n, "ds_gws") || n == "ds_ordered_count";
}
bool is_dpp(const Inst& i) { return i.encoding == Encoding::DPP; }
bool is_rfe(const Inst& i) { return starts_with(name_of(i), "s_rfe"); }
bool is_m0_lds_access(const Inst& i) {
  std::string_view n = name_of(i);
  if (unit_of(i) == Unit::Lds && n.find("addtid") != std::string_view::npos) return true;
  return is_vmem(i) && (i.mods.lds || i.desc().quirk(kQuirkLdsSyntax));
}
bool is_s_movrel(const Inst& i) { return starts_with(name_of(i), "s_movrel"); }
bool reads_lds_direct(const Inst& i) {
  if (!is_valu(i)) return false;
  for (int k = 0; k < i.num_operands; ++k)
    if (i.ops[size_t(k)].code == code::kLdsDirect) return true;
  return false;
}

constexpr const char* kManual = "Vega ISA manual, 4.5 Manually Inserted Wait States, table Required Software-inserted Wait States";

// One row per rule. The manual's row and the LLVM hazard recognizer function
// that implements the same rule for gfx9 are named in `source`.
const HazardRule kRules[] = {
    {"setreg_getreg", "S_SETREG <reg> -> S_GETREG <same reg>",
     "Vega ISA 4.5 (row 1); GCNHazardRecognizer::checkGetRegHazards (2)", HazardProducer::SetregWrite, is_getreg,
     HazardOperands::HwregOfConsumer, 2, true},
    {"setreg_setreg", "S_SETREG <reg> -> S_SETREG <same reg>",
     "Vega ISA 4.5 (row 2); GCNHazardRecognizer::checkSetRegHazards (getSetRegWaitStates = 2 on gfx9)",
     HazardProducer::SetregWrite, is_setreg, HazardOperands::HwregOfConsumer, 2, true},
    {"setvskip_getreg_mode", "S_SETVSKIP -> S_GETREG MODE (reads VSKIP)", "Vega ISA 4.5 (row 3)",
     HazardProducer::Setvskip, is_getreg_mode, HazardOperands::Whole, 2, true},
    {"setreg_vskip_vector", "S_SETREG MODE.vskip -> any vector instruction", "Vega ISA 4.5 (row 4)",
     HazardProducer::SetregVskip, is_vector_op, HazardOperands::Whole, 2, true},
    {"valu_vcc_exec_vccz_execz", "VALU writes VCC or EXEC -> VALU uses VCCZ or EXECZ as a data source",
     "Vega ISA 4.5 (row 5)", HazardProducer::ValuWrite, reads_vccz_execz, HazardOperands::VcczExeczData, 5, true},
    {"valu_sgpr_lane_select", "VALU writes SGPR/VCC -> V_READLANE/V_WRITELANE uses it as the lane select",
     "Vega ISA 4.5 (row 6); GCNHazardRecognizer::checkRWLaneHazards (4)", HazardProducer::ValuWrite, is_rw_lane,
     HazardOperands::LaneSelect, 4, true},
    {"valu_vcc_div_fmas", "VALU writes VCC (v_div_scale included) -> V_DIV_FMAS",
     "Vega ISA 4.5 (row 7); GCNHazardRecognizer::checkDivFMasHazards (4)", HazardProducer::ValuWrite, is_div_fmas,
     HazardOperands::Vcc, 4, true},
    {"wide_store_data", "store of more than 8 bytes (x3/x4, cmpswap_x2) -> VALU writes its data VGPRs",
     "Vega ISA 4.5 (row 8: FLAT/GLOBAL/SCRATCH always, BUFFER only without an SGPR offset); "
     "GCNHazardRecognizer::checkVALUHazards / createsVALUHazard (1)",
     HazardProducer::WideStoreData, is_valu_consumer, HazardOperands::VgprWrites, 1, true},
    {"valu_sgpr_vmem", "VALU writes SGPR -> VMEM reads that SGPR",
     "Vega ISA 4.5 (row 9); GCNHazardRecognizer::checkVMEMHazards (5, FLAT included)", HazardProducer::ValuWrite,
     is_vmem_consumer, HazardOperands::SgprReads, 5, true},
    {"salu_m0_gds_sendmsg", "SALU writes M0 -> GDS, S_SENDMSG or S_TTRACEDATA",
     "Vega ISA 4.5 (row 10); GCNHazardRecognizer::checkReadM0Hazards (hasReadM0SendMsgHazard, 1)",
     HazardProducer::SaluWrite, is_gds_or_message, HazardOperands::M0, 1, true},
    {"valu_vgpr_dpp", "VALU writes VGPR -> VALU DPP reads that VGPR",
     "Vega ISA 4.5 (row 11); GCNHazardRecognizer::checkDPPHazards (2)", HazardProducer::ValuWrite, is_dpp,
     HazardOperands::VgprReads, 2, true},
    {"valu_exec_dpp", "VALU writes EXEC -> VALU DPP op (EXEC is not forwarded to DPP)",
     "Vega ISA 4.5 (row 12); GCNHazardRecognizer::checkDPPHazards (5)", HazardProducer::ValuWrite, is_dpp,
     HazardOperands::Exec, 5, true},
    // Row 13 (mixed use of VCC: by name and by the logical SGPR that holds it)
    // has no rule: in gfx9 encodings VCC has one operand code (106/107), and
    // which s-number physically holds it depends on the wave's SGPR
    // allocation, which code cannot name, so no kernel can express the race.
    {"setreg_trapsts_rfe", "S_SETREG TRAPSTS -> S_RFE / S_RFE_RESTORE",
     "Vega ISA 4.5 (row 14); GCNHazardRecognizer::checkRFEHazards (1)", HazardProducer::SetregWrite, is_rfe,
     HazardOperands::Trapsts, 1, true},
    {"salu_m0_lds_addtid_dma", "SALU writes M0 -> LDS add-TID instruction, buffer_store_lds_dword, LDS DMA (lds=1)",
     "Vega ISA 4.5 (row 15); GCNHazardRecognizer::checkReadM0Hazards (hasReadM0LdsDmaHazard, "
     "hasReadM0MovRelInterpHazard for add-TID, 1)",
     HazardProducer::SaluWrite, is_m0_lds_access, HazardOperands::M0, 1, true},
    {"salu_m0_movrel", "SALU writes M0 -> S_MOVREL",
     "Vega ISA 4.5 (row 16); GCNHazardRecognizer::checkReadM0Hazards (hasReadM0MovRelInterpHazard, 1)",
     HazardProducer::SaluWrite, is_s_movrel, HazardOperands::M0, 1, true},
    {"salu_m0_lds_direct", "SALU writes M0 -> VALU reads lds_direct",
     "Vega ISA 4.5 (row 15, LDS_direct); GCNHazardRecognizer::checkReadM0Hazards (hasReadM0LdsDirectHazard, 1)",
     HazardProducer::SaluWrite, reads_lds_direct, HazardOperands::M0, 1, true},
};

// Offsets of each producer's registers in the tracker's stamp array.
constexpr size_t kSpaceSize[kHazardProducerCount] = {512, 128, 64, 1, 1, 256};
constexpr size_t space_offset(HazardProducer p) {
  size_t o = 0;
  for (size_t i = 0; i < size_t(p); ++i) o += kSpaceSize[i];
  return o;
}
constexpr size_t kStampCount = space_offset(HazardProducer(kHazardProducerCount));
// Index of register code `c` within its producer's space.
size_t slot_of(HazardProducer p, uint16_t c) { return p == HazardProducer::WideStoreData ? size_t(c - code::kVgprFirst) : c; }

// A store whose data the hardware may still read from VGPRs in the next
// instruction: more than 64 bits of data, and for MUBUF/MTBUF only when
// soffset is not an SGPR.
bool wide_store_data(const Inst& inst, const Effects& e, RegRange* data) {
  if (!is_vmem(inst)) return false;
  const InstDesc& d = inst.desc();
  bool writes_memory = is_store(inst) || d.has(kFlagAtomicRtn);
  if (!writes_memory) return false;
  for (const RegUse& u : e.read_list()) {
    if (u.role != Role::Data || u.regs.count <= 2) continue;
    if (d.family == Family::MUBUF || d.family == Family::MTBUF) {
      const Operand* so = inst.find(Field::soffset);
      if (so && so->code < 128) return false;
    }
    *data = u.regs;
    return true;
  }
  return false;
}

void add_probe(HazardProfile& p, uint8_t rule, RegRange r) {
  if (r.count == 0 || p.num_probes >= p.probes.size()) return;
  p.probes[p.num_probes++] = {rule, r};
  p.probe_producers = uint8_t(p.probe_producers | 1u << unsigned(kRules[rule].producer));
}
void add_stamp(HazardProfile& p, HazardProducer prod, RegRange r) {
  if (r.count == 0 || p.num_stamps >= p.stamps.size()) return;
  p.stamps[p.num_stamps++] = {prod, r};
}

}  // namespace

std::span<const HazardRule> hazard_rules() { return kRules; }

const HazardRule* find_hazard_rule(std::string_view id) {
  for (const HazardRule& r : kRules)
    if (id == r.id) return &r;
  return nullptr;
}

int wait_states_of(const Inst& inst) {
  if (name_of(inst) == "s_nop" && inst.num_operands > 0) return int(inst.ops[0].value & 0xf) + 1;
  return 1;
}

bool hwreg_of(const Inst& inst, HwregField* out) {
  if (!is_getreg(inst) && !is_setreg(inst)) return false;
  const Operand* o = inst.find(Field::simm16);
  if (!o) return false;
  uint32_t v = o->value;
  out->id = v & 0x3f;
  out->offset = (v >> 6) & 0x1f;
  out->size = ((v >> 11) & 0x1f) + 1;
  return true;
}

HazardProfile hazard_profile(const Inst& inst) { return hazard_profile(inst, effects_of(inst)); }

HazardProfile hazard_profile(const Inst& inst, const Effects& e) {
  HazardProfile p;
  p.wait_states = uint8_t(wait_states_of(inst));
  // Producers.
  bool valu = is_valu(inst), salu = is_salu(inst);
  if (valu || salu)
    for (const RegUse& w : e.write_list()) {
      if (w.regs.first == code::kScc) continue;
      if (salu && w.regs.is_vgpr()) continue;
      add_stamp(p, valu ? HazardProducer::ValuWrite : HazardProducer::SaluWrite, w.regs);
    }
  HwregField hw;
  bool has_hw = hwreg_of(inst, &hw);
  if (is_setreg(inst) && has_hw) {
    add_stamp(p, HazardProducer::SetregWrite, {uint16_t(hw.id), 1});
    if (hw.id == kHwregMode && hw.offset <= 28 && hw.offset + hw.size > 28) add_stamp(p, HazardProducer::SetregVskip, {0, 1});
  }
  if (name_of(inst) == "s_setvskip") add_stamp(p, HazardProducer::Setvskip, {0, 1});
  RegRange data;
  if (wide_store_data(inst, e, &data)) add_stamp(p, HazardProducer::WideStoreData, data);

  // Consumers.
  for (size_t ri = 0; ri < std::size(kRules); ++ri) {
    const HazardRule& r = kRules[ri];
    if (!r.observable || !r.consumer(inst)) continue;
    uint8_t idx = uint8_t(ri);
    switch (r.relation) {
      case HazardOperands::SgprReads:
        for (const RegUse& u : e.read_list())
          if (!u.regs.is_vgpr() && u.regs.first != code::kScc) add_probe(p, idx, u.regs);
        break;
      case HazardOperands::VgprReads:
        for (const RegUse& u : e.read_list())
          if (u.regs.is_vgpr()) add_probe(p, idx, u.regs);
        break;
      case HazardOperands::VgprWrites:
        for (const RegUse& u : e.write_list())
          if (u.regs.is_vgpr()) add_probe(p, idx, u.regs);
        break;
      case HazardOperands::LaneSelect:
        for (const RegUse& u : e.read_list())
          if (u.role == Role::LaneSelect && !u.regs.is_vgpr()) add_probe(p, idx, u.regs);
        break;
      case HazardOperands::Exec: add_probe(p, idx, kExecRange); break;
      case HazardOperands::Vcc: add_probe(p, idx, kVccRange); break;
      case HazardOperands::M0: add_probe(p, idx, kM0Range); break;
      case HazardOperands::VcczExeczData:
        for (int k = 0; k < inst.num_operands; ++k) {
          if (inst.ops[size_t(k)].code == code::kVccz) add_probe(p, idx, kVccRange);
          if (inst.ops[size_t(k)].code == code::kExecz) add_probe(p, idx, kExecRange);
        }
        break;
      case HazardOperands::HwregOfConsumer:
        if (has_hw) add_probe(p, idx, {uint16_t(hw.id), 1});
        break;
      case HazardOperands::Trapsts: add_probe(p, idx, {uint16_t(kHwregTrapsts), 1}); break;
      case HazardOperands::ModeHwreg: add_probe(p, idx, {uint16_t(kHwregMode), 1}); break;
      case HazardOperands::Whole: add_probe(p, idx, {0, 1}); break;
      case HazardOperands::None: break;
    }
  }
  return p;
}

// -------------------------------------------------------------- tracker ---

// The clock starts past the longest rule, so a never-written stamp (end 0)
// is always far enough back.
constexpr uint64_t kClockStart = 64;

HazardTracker::HazardTracker() : now_(kClockStart), stamps_(kStampCount) {}

void HazardTracker::reset() {
  // Moving the clock on makes every stamp old without clearing the array.
  now_ += kClockStart;
}

HazardTracker::Stamp* HazardTracker::space(HazardProducer p) { return stamps_.data() + space_offset(p); }
const HazardTracker::Stamp* HazardTracker::space(HazardProducer p) const { return stamps_.data() + space_offset(p); }

HazardHit HazardTracker::check(const HazardProfile& next) const {
  HazardHit best;
  for (int i = 0; i < next.num_probes; ++i) {
    const HazardProfile::Probe& pr = next.probes[size_t(i)];
    const HazardRule& rule = kRules[pr.rule];
    if (now_ - latest_[size_t(rule.producer)] >= rule.wait_states) continue;
    const Stamp* s = space(rule.producer);
    size_t size = kSpaceSize[size_t(rule.producer)];
    for (uint16_t c = pr.regs.first; c < pr.regs.end(); ++c) {
      size_t slot = slot_of(rule.producer, c);
      if (slot >= size) continue;
      uint64_t have = now_ - s[slot].end;
      int missing = int(rule.wait_states) - int(have);
      if (missing > best.missing) {
        best.rule = &rule;
        best.missing = missing;
        best.have = int(have);
        best.reg = c;
        best.producer_tag = s[slot].tag;
      }
    }
  }
  return best;
}

void HazardTracker::issue(const HazardProfile& p, uint64_t tag) {
  uint64_t end = now_ + p.wait_states;
  // A producer's window opens after the producer itself: the first
  // instruction after it has zero wait states in between.
  for (int i = 0; i < p.num_stamps; ++i) {
    const HazardProfile::Stamp& st = p.stamps[size_t(i)];
    latest_[size_t(st.producer)] = now_ + 1;
    Stamp* s = space(st.producer);
    size_t size = kSpaceSize[size_t(st.producer)];
    for (uint16_t c = st.regs.first; c < st.regs.end(); ++c) {
      size_t slot = slot_of(st.producer, c);
      if (slot < size) s[slot] = {now_ + 1, tag};
    }
  }
  now_ = end;
}

HazardHit check_window(std::span<const Inst> window, const Inst& next) {
  HazardTracker t;
  for (size_t i = 0; i < window.size(); ++i) t.issue(window[i], i);
  return t.check(next);
}

}  // namespace k100::isa
