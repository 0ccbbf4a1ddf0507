#include "spilling.h"

#include <algorithm>

#include "inst_factory.h"
#include "k100/base/error.h"

namespace k100::codegen {

namespace {

// Per register: the one instruction that writes it, when that is a move of
// a constant (it can be written again where it is read).
std::vector<const MInst*> constant_defs(const MFunction& f) {
  std::vector<const MInst*> def(f.regs.size(), nullptr);
  std::vector<int> writes(f.regs.size(), 0);
  AccessList acc;
  for (const MBlock& b : f.blocks)
    for (const MInst& m : b.insts) {
      accesses(f, m, acc);
      for (const Access& a : acc.list())
        if (a.write && a.is_virtual() && writes[size_t(a.reg)]++ == 0) def[size_t(a.reg)] = &m;
    }
  for (size_t r = 0; r < f.regs.size(); ++r) {
    const MInst* d = def[r];
    if (!d) continue;
    def[r] = nullptr;
    if (writes[r] != 1 || (d->flags & kGlued) || f.regs[r].entry_value) continue;
    const std::string& n = d->name();
    if (n != "v_mov_b32" && n != "s_mov_b32" && n != "s_mov_b64" && n != "s_movk_i32") continue;
    if (d->inst.encoding == isa::Encoding::SDWA || d->inst.encoding == isa::Encoding::DPP) continue;
    const VRef& dst = d->vref[0];
    if (!dst.valid() || dst.id != int(r) || dst.offset || dst.width != f.regs[r].width) continue;
    const isa::Operand& src = d->inst.ops[1];
    if (d->vref[1].valid() || !(src.is_inline() || src.is_literal() || src.is_imm())) continue;
    def[r] = d;
  }
  return def;
}

// Registers no spill may touch: linear VGPRs, what a pc-relative sequence or
// a terminator writes.
std::vector<char> unspillable(const MFunction& f, const SpillState& s) {
  std::vector<char> no(f.regs.size(), 0);
  for (size_t r = 0; r < f.regs.size(); ++r)
    no[r] = (r < s.no_spill.size() && s.no_spill[r]) || f.regs[r].linear || f.regs[r].fixed >= 0 || f.regs[r].entry_value;
  AccessList acc;
  for (const MBlock& b : f.blocks)
    for (const MInst& m : b.insts) {
      const bool fixed_place = (m.flags & kGlued) || (is_terminator(m) && !m.is_pseudo());
      if (!fixed_place) continue;
      accesses(f, m, acc);
      for (const Access& a : acc.list())
        if (a.is_virtual() && ((m.flags & kGlued) || a.write)) no[size_t(a.reg)] = 1;
    }
  return no;
}

// How the accesses of one spilled register are rewritten: each instruction
// touching it gets a temporary of its own (temps, in program order), filled
// before the instruction (a reload of the dwords it reads, or the constant
// written again) and written back after it (the dwords it writes).
struct SpillPlan {
  enum class Kind { Remat, Lanes, Lds, Scratch } kind = Kind::Remat;
  int reg = -1;
  MInst remat_def;   // Remat: the constant's definition
  uint32_t first = 0;  // Lanes: first lane; Lds: first slot; Scratch: first dword
  int addr = -1;     // Lds: the address register
  std::vector<int> temps;
  size_t next = 0;
};

class Rewriter {
 public:
  Rewriter(MFunction& f, SpillState& s) : f_(f), s_(s) {}

  // Instructions touching each register of `order` (for a rematerialised
  // one: those reading it; its definition is dropped).
  std::vector<int> touching(const std::vector<int>& order, const std::vector<char>& remat) {
    std::vector<int> index(f_.regs.size(), -1), count(order.size(), 0);
    for (size_t i = 0; i < order.size(); ++i) index[size_t(order[i])] = int(i);
    AccessList acc;
    std::vector<char> seen(order.size(), 0), wrote(order.size(), 0);
    for (const MBlock& b : f_.blocks)
      for (const MInst& m : b.insts) {
        accesses(f_, m, acc);
        std::vector<int> hit;
        for (const Access& a : acc.list()) {
          if (a.reg < 0 || size_t(a.reg) >= index.size() || index[size_t(a.reg)] < 0) continue;
          const int i = index[size_t(a.reg)];
          if (!seen[size_t(i)]) seen[size_t(i)] = 1, hit.push_back(i);
          if (a.write) wrote[size_t(i)] = 1;
        }
        for (int i : hit) {
          if (!(remat[size_t(i)] && wrote[size_t(i)])) ++count[size_t(i)];
          seen[size_t(i)] = wrote[size_t(i)] = 0;
        }
      }
    return count;
  }

  void plan_remat(SpillPlan& p, const MInst& def, int uses) {
    p.kind = SpillPlan::Kind::Remat;
    p.remat_def = def;
    temps(p, "remat", uses);
    s_.remats++;
  }

  void plan_lanes(SpillPlan& p, int uses) {
    const int width = f_.regs[size_t(p.reg)].width;
    p.kind = SpillPlan::Kind::Lanes;
    p.first = uint32_t(s_.lanes_used);
    s_.lanes_used += width;
    const int regs_needed = (s_.lanes_used + 63) / 64;
    while (int(s_.lanes_regs.size()) < regs_needed) {
      VirtualReg l;
      l.file = RegFile::Vector;
      l.name = "sgpr_spill_lanes" + std::to_string(s_.lanes_regs.size());
      l.linear = true;
      l.entry_value = true;  // its lanes are only ever written one by one
      s_.lanes_regs.push_back(f_.add_reg(std::move(l)));
      s_.no_spill.resize(f_.regs.size(), 0);
      s_.no_spill[size_t(s_.lanes_regs.back())] = 1;
    }
    temps(p, "reload", uses);
    s_.sgpr_spills += width;
  }

  // A VGPR to LDS slots when they are free: true when it goes there.
  bool plan_lds(SpillPlan& p, int uses) {
    const int width = f_.regs[size_t(p.reg)].width;
    if (s_.lds_end <= s_.lds_base || s_.lds_base + (s_.lds_slots + uint32_t(width)) * s_.lds_stride > s_.lds_end)
      return false;
    // the address is written once, before anything runs: not in a block
    // that is also a branch target
    if (s_.lds_address_reg < 0 && !f_.blocks.front().pred.empty()) return false;
    p.kind = SpillPlan::Kind::Lds;
    p.addr = lds_address();
    p.first = s_.lds_slots;
    s_.lds_slots += uint32_t(width);
    temps(p, "reload", uses);
    s_.vgpr_spills += width;
    s_.vgpr_spills_to_lds += width;
    return true;
  }

  bool plan_scratch(SpillPlan& p, int uses) {
    if (s_.scratch_offset_code < 0) return false;
    if (s_.rsrc_reg < 0) {
      VirtualReg rsrc;
      rsrc.file = RegFile::Scalar;
      rsrc.width = 4;
      rsrc.align = 4;
      rsrc.name = "scratch_resource";
      rsrc.fixed = 0;  // the private segment buffer, s[0:3]
      rsrc.entry_value = true;
      s_.rsrc_reg = f_.add_reg(std::move(rsrc));
      VirtualReg off;
      off.file = RegFile::Scalar;
      off.name = "scratch_offset";
      off.fixed = s_.scratch_offset_code;
      off.entry_value = true;
      s_.offset_reg = f_.add_reg(std::move(off));
      s_.no_spill.resize(f_.regs.size(), 0);
      s_.no_spill[size_t(s_.rsrc_reg)] = s_.no_spill[size_t(s_.offset_reg)] = 1;
    }
    const int width = f_.regs[size_t(p.reg)].width;
    const uint32_t slot = s_.scratch_dwords;
    if (4 * (slot + uint32_t(width)) > 4096)
      throw Error("kernel '" + f_.name + "': more than 4 KiB of VGPR spills per lane (the buffer offset's reach)");
    s_.scratch_dwords += uint32_t(width);
    p.kind = SpillPlan::Kind::Scratch;
    p.first = slot;
    temps(p, "reload", uses);
    s_.vgpr_spills += width;
    return true;
  }

  // One pass over the function for every plan: around an instruction, the
  // fills in plan order before it and the write-backs in reverse plan order
  // after it (as if each register had been rewritten on its own, in order).
  void rewrite(std::vector<SpillPlan>& plans) {
    std::vector<int> index(f_.regs.size(), -1);
    for (size_t i = 0; i < plans.size(); ++i) index[size_t(plans[i].reg)] = int(i);
    struct Touch {
      int plan;
      uint32_t read, written;
      int temp;
    };
    AccessList acc;
    std::vector<Touch> touch;
    for (MBlock& b : f_.blocks) {
      std::vector<MInst> out;
      out.reserve(b.insts.size() * 2);
      for (MInst& m : b.insts) {
        accesses(f_, m, acc);
        touch.clear();
        for (const Access& a : acc.list()) {
          if (a.reg < 0 || size_t(a.reg) >= index.size() || index[size_t(a.reg)] < 0) continue;
          const int i = index[size_t(a.reg)];
          auto it = std::find_if(touch.begin(), touch.end(), [&](const Touch& t) { return t.plan == i; });
          if (it == touch.end()) it = touch.insert(touch.end(), Touch{i, 0, 0, -1});
          for (int k = 0; k < a.width; ++k) (a.read ? it->read : it->written) |= 1u << (a.offset + k);
        }
        if (touch.empty()) {
          out.push_back(std::move(m));
          continue;
        }
        bool drop = false;  // a rematerialised constant's definition
        for (const Touch& t : touch)
          if (plans[size_t(t.plan)].kind == SpillPlan::Kind::Remat && t.written) drop = true;
        if (drop) continue;
        std::sort(touch.begin(), touch.end(), [](const Touch& a, const Touch& b) { return a.plan < b.plan; });
        for (Touch& t : touch) {
          SpillPlan& p = plans[size_t(t.plan)];
          t.temp = p.temps.at(p.next++);
          if (p.kind == SpillPlan::Kind::Remat) {
            MInst d = p.remat_def;
            d.vref[0].id = t.temp;
            d.changed();
            d.flags = uint8_t(d.flags | kLayerMade);
            d.scope = s_.scope;
            out.push_back(std::move(d));
          } else {
            for (int k = 0; k < 16; ++k)
              if (t.read >> k & 1) out.push_back(fill(p, t.temp, k));
          }
          for (VRef& v : m.vref)
            if (v.id == p.reg) v.id = t.temp;
          if (p.kind != SpillPlan::Kind::Remat && m.atomic_dst.id == p.reg) m.atomic_dst.id = t.temp;
        }
        m.changed();
        out.push_back(std::move(m));
        for (auto t = touch.rbegin(); t != touch.rend(); ++t) {
          const SpillPlan& p = plans[size_t(t->plan)];
          if (p.kind == SpillPlan::Kind::Remat) continue;
          for (int k = 0; k < 16; ++k)
            if (t->written >> k & 1) out.push_back(write_back(p, t->temp, k));
        }
      }
      b.insts = std::move(out);
    }
  }

 private:
  int temp_like(int r, const std::string& what) {
    VirtualReg t = f_.regs[size_t(r)];
    t.name = t.name + "_" + what + std::to_string(f_.regs.size());
    t.fixed = -1;
    t.entry_value = false;
    const int id = f_.add_reg(std::move(t));
    s_.no_spill.resize(f_.regs.size(), 0);
    s_.no_spill[size_t(id)] = 1;
    return id;
  }

  void temps(SpillPlan& p, const char* what, int uses) {
    p.temps.reserve(size_t(uses));
    for (int u = 0; u < uses; ++u) p.temps.push_back(temp_like(p.reg, what));
  }

  std::pair<int, int> lane(const SpillPlan& p, int k) const {
    const uint32_t at = p.first + uint32_t(k);
    return {s_.lanes_regs[at / 64], int(at % 64)};
  }

  MInst scratch_access(const char* op, const SpillPlan& p, int t, int k) const {
    return make_inst(f_, op,
                     {PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::phys(isa::code::kOff, 1),
                      PassOperand::v(VRef{s_.rsrc_reg, 0, 4}), PassOperand::v(VRef{s_.offset_reg, 0, 1}),
                      PassOperand::mod(as::offset(int64_t(4 * (p.first + uint32_t(k)))))},
                     s_.scope);
  }

  int64_t lds_offset(const SpillPlan& p, int k) const {
    return int64_t(s_.lds_base + (p.first + uint32_t(k)) * s_.lds_stride);
  }

  // Dword k of the temporary t filled from the register's spill place.
  MInst fill(const SpillPlan& p, int t, int k) const {
    switch (p.kind) {
      case SpillPlan::Kind::Lanes: {
        auto [reg, l] = lane(p, k);
        return make_inst(f_, "v_readlane_b32",
                         {PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::v(VRef{reg, 0, 1}), PassOperand::imm(l)},
                         s_.scope);
      }
      case SpillPlan::Kind::Lds:
        return make_inst(f_, "ds_read_b32",
                         {PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::v(VRef{p.addr, 0, 1}),
                          PassOperand::mod(as::offset(lds_offset(p, k)))},
                         s_.scope);
      default:
        return scratch_access("buffer_load_dword", p, t, k);
    }
  }

  // Dword k of the temporary t written back to the register's spill place.
  MInst write_back(const SpillPlan& p, int t, int k) const {
    switch (p.kind) {
      case SpillPlan::Kind::Lanes: {
        auto [reg, l] = lane(p, k);
        return make_inst(f_, "v_writelane_b32",
                         {PassOperand::v(VRef{reg, 0, 1}), PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::imm(l)},
                         s_.scope);
      }
      case SpillPlan::Kind::Lds:
        return make_inst(f_, "ds_write_b32",
                         {PassOperand::v(VRef{p.addr, 0, 1}), PassOperand::v(VRef{t, uint8_t(k), 1}),
                          PassOperand::mod(as::offset(lds_offset(p, k)))},
                         s_.scope);
      default:
        return scratch_access("buffer_store_dword", p, t, k);
    }
  }

  // The register holding 4 x the flat local id, written first thing: the
  // local id x, or in a one-wave workgroup of more dimensions the lane's
  // index in the wave (v_mbcnt of all lanes below it).
  int lds_address() {
    if (s_.lds_address_reg >= 0) return s_.lds_address_reg;
    VirtualReg a;
    a.file = RegFile::Vector;
    a.name = "lds_spill_address";
    a.linear = true;  // read by spill code wherever it is, whatever EXEC holds
    s_.lds_address_reg = f_.add_reg(std::move(a));
    s_.no_spill.resize(f_.regs.size(), 0);
    s_.no_spill[size_t(s_.lds_address_reg)] = 1;
    const VRef addr{s_.lds_address_reg, 0, 1};
    std::vector<MInst> code;
    if (s_.lds_by_lane) {
      code.push_back(make_inst(f_, "v_mbcnt_lo_u32_b32", {PassOperand::v(addr), PassOperand::imm(-1), PassOperand::imm(0)},
                               s_.scope));
      code.push_back(make_inst(f_, "v_mbcnt_hi_u32_b32",
                               {PassOperand::v(addr), PassOperand::imm(-1), PassOperand::v(addr)}, s_.scope));
      code.push_back(make_inst(f_, "v_lshlrev_b32", {PassOperand::v(addr), PassOperand::imm(2), PassOperand::v(addr)},
                               s_.scope));
    } else {
      int local = -1;
      for (size_t r = 0; r < f_.regs.size(); ++r)
        if (f_.regs[r].file == RegFile::Vector && f_.regs[r].fixed == 0 && f_.regs[r].entry_value) local = int(r);
      if (local < 0) {
        VirtualReg l;
        l.file = RegFile::Vector;
        l.name = "local_id_x";
        l.fixed = 0;
        l.entry_value = true;
        local = f_.add_reg(std::move(l));
        s_.no_spill.resize(f_.regs.size(), 0);
      }
      s_.no_spill[size_t(local)] = 1;
      code.push_back(make_inst(f_, "v_lshlrev_b32",
                               {PassOperand::v(addr), PassOperand::imm(2), PassOperand::v(VRef{local, 0, 1})},
                               s_.scope));
    }
    std::vector<MInst>& entry = f_.blocks.front().insts;
    entry.insert(entry.begin(), std::make_move_iterator(code.begin()), std::make_move_iterator(code.end()));
    return s_.lds_address_reg;
  }

  MFunction& f_;
  SpillState& s_;
};

}  // namespace

void plan_lds_spills(const AllocationOptions& o, SpillState& s) {
  s.lds_base = s.lds_end = s.lds_stride = 0;
  if (o.max_workgroup == 0 || o.lds_bytes >= 65536) return;
  constexpr uint32_t kLds = 65536, kGranule = 512, kMaxGroupsPerCu = 16;
  const uint32_t waves = (o.max_workgroup + 63) / 64;
  // The flat id: the local id x of a one-dimensional workgroup, the lane of a
  // one-wave one; otherwise it takes the workgroup's sizes, which the code
  // does not have.
  if (o.workitem_dims != 1 && waves != 1) return;
  s.lds_by_lane = o.workitem_dims != 1;
  // Workgroups one CU holds at the occupancy asked for (4 SIMDs), and as
  // many as the kernel's own LDS lets in: the spill area may not lower that.
  uint32_t groups = std::max(1u, uint32_t(4 * std::max(1, o.waves_per_simd)) / waves);
  if (waves > 1) groups = std::min(groups, kMaxGroupsPerCu);
  const uint32_t own = (o.lds_bytes + kGranule - 1) / kGranule * kGranule;
  if (own) groups = std::max(1u, std::min(groups, kLds / own));
  const uint32_t limit = kLds / groups / kGranule * kGranule;
  s.lds_base = (o.lds_bytes + 3) & ~3u;
  s.lds_stride = 4 * 64 * waves;
  s.lds_end = std::max(s.lds_base, limit);
}

bool spill_registers(MFunction& f, const Interference& ig, RegFile file, int budget, int failing, SpillState& s) {
  if (s.scope < 0) {
    f.scopes.push_back("spilling");
    s.scope = int(f.scopes.size() - 1);
  }
  s.no_spill.resize(f.regs.size(), 0);
  const std::vector<char> no = unspillable(f, s);
  const std::vector<int>& pressure0 = file == RegFile::Vector ? ig.pressure_v : ig.pressure_s;
  std::vector<int> pressure = pressure0;
  std::vector<char> chosen(f.regs.size(), 0);
  const std::vector<const MInst*> constant = constant_defs(f);
  auto eligible = [&](int r) {
    return f.regs[size_t(r)].file == file && !no[size_t(r)] && !chosen[size_t(r)] &&
           (file == RegFile::Scalar || s.scratch_offset_code >= 0 || s.lds_end > s.lds_base || constant[size_t(r)]);
  };
  auto cost = [&](int r) {
    const double c = double(ig.uses[size_t(r)]) / double(std::max(1, ig.live_points[size_t(r)]));
    return constant[size_t(r)] ? c * 0.01 : c;  // a constant is cheapest: no memory
  };
  // The points where each register lives (the inverse of live_at), made on first use.
  std::vector<std::vector<uint32_t>> live_points;
  auto points_of = [&](int r) -> const std::vector<uint32_t>& {
    if (live_points.empty()) {
      live_points.resize(f.regs.size());
      for (size_t p = 0; p < std::min(ig.live_at.size(), pressure.size()); ++p)
        for (int v : ig.live_at[p])
          if (v >= 0 && size_t(v) < live_points.size() && (live_points[size_t(v)].empty() || live_points[size_t(v)].back() != p))
            live_points[size_t(v)].push_back(uint32_t(p));
    }
    return live_points[size_t(r)];
  };
  std::vector<int> order;
  auto choose_at = [&](size_t pt) -> bool {
    int best = -1;
    double best_cost = 0;
    for (int r : ig.live_at[pt]) {
      if (!eligible(r)) continue;
      const double c = cost(r) / f.regs[size_t(r)].width;
      if (best < 0 || c < best_cost) best = r, best_cost = c;
    }
    if (best < 0) return false;
    chosen[size_t(best)] = 1;
    order.push_back(best);
    for (uint32_t p : points_of(best)) pressure[p] -= f.regs[size_t(best)].width;
    return true;
  };
  for (;;) {
    size_t worst = 0;
    for (size_t p = 1; p < pressure.size(); ++p)
      if (pressure[p] > pressure[worst]) worst = p;
    if (pressure.empty() || pressure[worst] <= budget) break;
    if (!choose_at(worst)) break;
  }
  if (order.empty()) {
    // It fits in count but not in place: free the most crowded point where `failing` lives.
    size_t at = pressure.size();
    for (size_t p = 0; p < pressure.size(); ++p)
      if (std::find(ig.live_at[p].begin(), ig.live_at[p].end(), failing) != ig.live_at[p].end() &&
          (at == pressure.size() || pressure[p] > pressure[at]))
        at = p;
    if (at == pressure.size() || !choose_at(at)) return false;
  }
  Rewriter w(f, s);
  std::vector<char> remat(order.size(), 0);
  for (size_t i = 0; i < order.size(); ++i) remat[i] = constant[size_t(order[i])] != nullptr;
  const std::vector<int> uses = w.touching(order, remat);
  std::vector<SpillPlan> plans(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    SpillPlan& p = plans[i];
    p.reg = order[i];
    if (remat[i]) {
      w.plan_remat(p, *constant[size_t(p.reg)], uses[i]);
    } else if (file == RegFile::Scalar) {
      w.plan_lanes(p, uses[i]);
    } else if (!w.plan_lds(p, uses[i]) && !w.plan_scratch(p, uses[i])) {
      return false;
    }
  }
  w.rewrite(plans);
  f.cfg_valid = false;
  return true;
}

}  // namespace k100::codegen
