// Uniform/varying classification of the IR (DSL.md §3), computed from the IR
// (the loops' `varying` flag, which says a lane may leave a loop alone, is
// the front end's) and then compared with the front end's flags: the lowering puts a
// uniform value in an SGPR, which is only right when every lane agrees on it.
#include <string>

#include "k100/dsl/ir.h"

namespace k100::dsl::ir {

namespace {

bool inherently_varying(const Value& v) {
  switch (v.op) {
    case Opcode::Load:
    case Opcode::Load16:
    case Opcode::Atomic: return true;
    case Opcode::Const: return false;
    case Opcode::Call:
      if (v.builtin == BuiltinId::Bid) return false;
      if (v.builtin == BuiltinId::Gid || v.builtin == BuiltinId::Lid || v.builtin == BuiltinId::Tid ||
          v.builtin == BuiltinId::Lane || v.builtin == BuiltinId::Shuffle ||
          v.builtin == BuiltinId::PackF16)  // f16 values are per lane (DSL.md §3), literals included
        return true;
      break;
    default: break;
  }
  return is_float(v.type);
}

// broadcast(), ballot() and the wave reductions give one value per wave
// whatever their operand (an f32 result is still per lane, DSL.md §3).
bool wave_wide(const Value& v) {
  return v.op == Opcode::Call && (v.builtin == BuiltinId::Broadcast || v.builtin == BuiltinId::Ballot ||
                                  v.builtin == BuiltinId::WaveSum ||
                                  v.builtin == BuiltinId::WaveMax || v.builtin == BuiltinId::WaveMin);
}

// One pass over a region: values from their operands, variables from what
// is written to them. Returns whether anything turned varying.
bool propagate(Function& f, const Region& r) {
  bool changed = false;
  for (const Node& n : r) {
    switch (n.kind) {
      case NodeKind::Compute: {
        Value& v = f.values[size_t(n.value)];
        bool var = inherently_varying(v);
        if (v.op == Opcode::ReadVar && f.var_varying[size_t(v.var)]) var = true;
        if (!wave_wide(v))
          for (int a : v.args) var = var || f.values[size_t(a)].varying;
        if (var && !v.varying) v.varying = changed = true;
        break;
      }
      case NodeKind::WriteVar:
        if ((n.varying || f.values[size_t(n.value)].varying) && !f.var_varying[size_t(n.var)])
          f.var_varying[size_t(n.var)] = changed = true;
        break;
      case NodeKind::If:
      case NodeKind::Loop:
        changed = propagate(f, n.then) || changed;
        changed = propagate(f, n.orelse) || changed;
        break;
      default: break;
    }
  }
  return changed;
}

// Variables written in another varying region than the one that created
// them (the branches of a varying `if` and the body of a varying loop are
// regions): lanes outside the region keep their own value, so the variable
// is per lane. The front end refuses this for uniform variables the source
// names; it happens to helper results and loop counters.
struct Regions {
  Function& f;
  std::vector<int> created;
  int next = 0;
  bool changed = false;

  void walk(const Region& r, int region) {
    for (const Node& n : r) {
      if (n.kind == NodeKind::WriteVar) {
        int& c = created[size_t(n.var)];
        if (c < 0) c = region;
        else if (c != region && !f.var_varying[size_t(n.var)]) f.var_varying[size_t(n.var)] = changed = true;
      } else if (n.kind == NodeKind::If) {
        const bool v = f.values[size_t(n.value)].varying;
        walk(n.then, v ? ++next : region);
        walk(n.orelse, v ? ++next : region);
      } else if (n.kind == NodeKind::Loop) {
        walk(n.then, n.varying ? ++next : region);
      }
    }
  }
};

void fixed_point(Function& f) {
  for (;;) {
    while (propagate(f, f.body)) {
    }
    Regions r{f, std::vector<int>(f.var_varying.size(), -1)};
    r.walk(f.body, 0);
    if (!r.changed) return;
  }
}

}  // namespace

void classify(Function& f) {
  const TypedKernel& k = *f.kernel;
  f.var_varying.assign(k.vars.size(), false);
  for (size_t i = 0; i < k.vars.size(); ++i)
    if (k.vars[i].type.is_value() && is_float(k.vars[i].type.scalar)) f.var_varying[i] = true;
  for (auto& v : f.values) v.varying = false;
  fixed_point(f);

  // Compare with the front end, then take the union: a value either side
  // calls varying lives in a VGPR, which is right for uniform values too.
  f.disagreements.clear();
  bool widened = false;
  for (size_t i = 0; i < k.vars.size(); ++i) {
    if (!k.vars[i].type.is_value()) continue;
    if (f.var_varying[i] != k.vars[i].varying) {
      f.disagreements.push_back("variable '" + k.vars[i].name + "': IR " + (f.var_varying[i] ? "varying" : "uniform") +
                                ", front end " + (k.vars[i].varying ? "varying" : "uniform"));
      if (!f.var_varying[i]) f.var_varying[i] = widened = true;
    }
  }
  for (size_t i = 0; i < f.values.size(); ++i) {
    Value& v = f.values[i];
    if (v.front_end < 0 || bool(v.front_end) == v.varying) continue;
    f.disagreements.push_back("value %" + std::to_string(i) + " at line " + std::to_string(v.loc.line) + ":" +
                              std::to_string(v.loc.col) + ": IR " + (v.varying ? "varying" : "uniform") +
                              ", front end " + (v.front_end ? "varying" : "uniform"));
    if (!v.varying) v.varying = widened = true;
  }
  if (widened) fixed_point(f);
}

}  // namespace k100::dsl::ir
