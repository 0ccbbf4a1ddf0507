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

class Rewriter {
 public:
  Rewriter(MFunction& f, SpillState& s) : f_(f), s_(s) {}

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

  // Every instruction touching r gets its own temporary: `before` fills it
  // from the spill slot (dwords the instruction reads), `after` writes it
  // back (dwords it writes).
  template <class Before, class After>
  void per_access(int r, const char* what, Before before, After after) {
    AccessList acc;
    for (MBlock& b : f_.blocks) {
      std::vector<MInst> out;
      out.reserve(b.insts.size());
      for (MInst& m : b.insts) {
        accesses(f_, m, acc);
        uint32_t read = 0, written = 0;
        for (const Access& a : acc.list())
          if (a.reg == r)
            for (int k = 0; k < a.width; ++k) (a.read ? read : written) |= 1u << (a.offset + k);
        if (!read && !written) {
          out.push_back(std::move(m));
          continue;
        }
        const int t = temp_like(r, what);
        for (int k = 0; k < 16; ++k)
          if (read >> k & 1) out.push_back(before(t, k));
        for (VRef& v : m.vref)
          if (v.id == r) v.id = t;
        if (m.atomic_dst.id == r) m.atomic_dst.id = t;
        m.changed();
        out.push_back(std::move(m));
        for (int k = 0; k < 16; ++k)
          if (written >> k & 1) out.push_back(after(t, k));
      }
      b.insts = std::move(out);
    }
  }

  void remat(int r, const MInst& def_copy) {
    AccessList acc;
    for (MBlock& b : f_.blocks) {
      std::vector<MInst> out;
      out.reserve(b.insts.size());
      for (MInst& m : b.insts) {
        accesses(f_, m, acc);
        bool reads = false, writes = false;
        for (const Access& a : acc.list())
          if (a.reg == r) (a.read ? reads : writes) = true;
        if (writes) continue;  // the constant's one definition
        if (reads) {
          const int t = temp_like(r, "remat");
          MInst d = def_copy;
          d.vref[0].id = t;
          d.changed();
          d.flags = uint8_t(d.flags | kLayerMade);
          d.scope = s_.scope;
          out.push_back(std::move(d));
          for (VRef& v : m.vref)
            if (v.id == r) v.id = t;
          m.changed();
        }
        out.push_back(std::move(m));
      }
      b.insts = std::move(out);
    }
    s_.remats++;
  }

  void to_lanes(int r) {
    const int width = f_.regs[size_t(r)].width;
    const int first = s_.lanes_used;
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
    auto lane = [&](int k) { return std::pair{s_.lanes_regs[size_t((first + k) / 64)], (first + k) % 64}; };
    per_access(
        r, "reload",
        [&](int t, int k) {
          auto [reg, l] = lane(k);
          return make_inst(f_, "v_readlane_b32",
                           {PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::v(VRef{reg, 0, 1}), PassOperand::imm(l)},
                           s_.scope);
        },
        [&](int t, int k) {
          auto [reg, l] = lane(k);
          return make_inst(f_, "v_writelane_b32",
                           {PassOperand::v(VRef{reg, 0, 1}), PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::imm(l)},
                           s_.scope);
        });
    s_.sgpr_spills += width;
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

  // A VGPR to LDS slots when they are free: true when it went there.
  bool to_lds(int r) {
    const int width = f_.regs[size_t(r)].width;
    if (s_.lds_end <= s_.lds_base || s_.lds_base + (s_.lds_slots + uint32_t(width)) * s_.lds_stride > s_.lds_end)
      return false;
    // the address is written once, before anything runs: not in a block
    // that is also a branch target
    if (s_.lds_address_reg < 0 && !f_.blocks.front().pred.empty()) return false;
    const int addr = lds_address();
    const uint32_t first = s_.lds_slots;
    s_.lds_slots += uint32_t(width);
    auto offset = [&](int k) { return int64_t(s_.lds_base + (first + uint32_t(k)) * s_.lds_stride); };
    per_access(
        r, "reload",
        [&](int t, int k) {
          return make_inst(f_, "ds_read_b32",
                           {PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::v(VRef{addr, 0, 1}),
                            PassOperand::mod(as::offset(offset(k)))},
                           s_.scope);
        },
        [&](int t, int k) {
          return make_inst(f_, "ds_write_b32",
                           {PassOperand::v(VRef{addr, 0, 1}), PassOperand::v(VRef{t, uint8_t(k), 1}),
                            PassOperand::mod(as::offset(offset(k)))},
                           s_.scope);
        });
    s_.vgpr_spills += width;
    s_.vgpr_spills_to_lds += width;
    return true;
  }

  bool to_scratch(int r) {
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
    const int width = f_.regs[size_t(r)].width;
    const uint32_t slot = s_.scratch_dwords;
    if (4 * (slot + uint32_t(width)) > 4096)
      throw Error("kernel '" + f_.name + "': more than 4 KiB of VGPR spills per lane (the buffer offset's reach)");
    s_.scratch_dwords += uint32_t(width);
    auto mem = [&](const char* op, int t, int k) {
      return make_inst(f_, op,
                       {PassOperand::v(VRef{t, uint8_t(k), 1}), PassOperand::phys(isa::code::kOff, 1),
                        PassOperand::v(VRef{s_.rsrc_reg, 0, 4}), PassOperand::v(VRef{s_.offset_reg, 0, 1}),
                        PassOperand::mod(as::offset(int64_t(4 * (slot + uint32_t(k)))))},
                       s_.scope);
    };
    per_access(
        r, "reload", [&](int t, int k) { return mem("buffer_load_dword", t, k); },
        [&](int t, int k) { return mem("buffer_store_dword", t, k); });
    s_.vgpr_spills += width;
    return true;
  }

 private:
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
    for (size_t p = 0; p < pressure.size(); ++p)
      if (std::find(ig.live_at[p].begin(), ig.live_at[p].end(), best) != ig.live_at[p].end())
        pressure[p] -= f.regs[size_t(best)].width;
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
  std::vector<MInst> remat_defs(f.regs.size());
  for (int r : order)
    if (constant[size_t(r)]) remat_defs[size_t(r)] = *constant[size_t(r)];
  Rewriter w(f, s);
  for (int r : order) {
    if (constant[size_t(r)]) {
      w.remat(r, remat_defs[size_t(r)]);
    } else if (file == RegFile::Scalar) {
      w.to_lanes(r);
    } else if (!w.to_lds(r) && !w.to_scratch(r)) {
      return false;
    }
  }
  f.cfg_valid = false;
  return true;
}

}  // namespace k100::codegen
