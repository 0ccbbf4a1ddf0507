// IR → codegen::Kernel: the signature, the kernel's variables, and
// structured control flow. Uniform `if`/loops branch on SCC, varying ones go
// through if_(lanes) / break_(lanes); the body is a loop_ when the kernel can
// `return` early, and a `return` inside loops records its lanes in a mask
// that each enclosing loop's end takes out with break_.
#include "lower.h"

#include "k100/base/error.h"

namespace k100::dsl {

namespace {

std::string element_name(Scalar s) {
  switch (s) {
    case Scalar::S32: return "i32";
    case Scalar::S8: return "i8";
    case Scalar::S16: return "i16";
    default: return scalar_name(s);
  }
}

bool region_returns(const ir::Region& r) {
  for (const auto& n : r) {
    if (n.kind == ir::NodeKind::Return) return true;
    if ((n.kind == ir::NodeKind::If || n.kind == ir::NodeKind::Loop) &&
        (region_returns(n.then) || region_returns(n.orelse)))
      return true;
  }
  return false;
}

}  // namespace

bool contains_return(const ir::Region& r) { return region_returns(r); }

namespace {

// Which pointer parameters the kernel reads and writes (bit 0 read, bit 1
// written), so the signature declares each buffer's access as a hand-written
// kernel's does.
void note_stores(const ir::Region& r, std::vector<int>& use) {
  for (const ir::Node& n : r) {
    if (n.kind == ir::NodeKind::Store && n.var >= 0 && size_t(n.var) < use.size()) use[size_t(n.var)] |= 2;
    note_stores(n.then, use);
    note_stores(n.orelse, use);
  }
}

}  // namespace

codegen::Signature signature_of(const TypedKernel& k, const ir::Function& f) {
  std::vector<int> use(k.param_count, 0);
  for (const ir::Value& v : f.values) {
    if (v.var < 0 || size_t(v.var) >= use.size()) continue;
    if (v.op == ir::Opcode::Load || v.op == ir::Opcode::Load16) use[size_t(v.var)] |= 1;
    if (v.op == ir::Opcode::Atomic) use[size_t(v.var)] |= 3;
  }
  note_stores(f.body, use);
  std::vector<codegen::Param> params;
  for (size_t i = 0; i < k.param_count; ++i) {
    const Variable& v = k.vars[i];
    if (v.type.kind != Type::Kind::Ptr) {
      params.push_back(codegen::value(v.name, element_name(v.type.scalar)));
      continue;
    }
    const std::string e = element_name(v.type.scalar);
    // A buffer the kernel never touches is declared read-only.
    params.push_back(use[i] == 3   ? codegen::inout(v.name, e)
                     : use[i] == 2 ? codegen::out(v.name, e)
                                   : codegen::in(v.name, e));
  }
  return codegen::Signature(k.name, std::move(params), codeobj::HiddenArgLayout::Compact);
}

Lowerer::Lowerer(Kernel& k, const ir::Function& f) : k_(k), f_(f) {}

void Lowerer::run() {
  const TypedKernel& tk = *f_.kernel;
  values_.assign(f_.values.size(), Reg{});
  vars_.assign(tk.vars.size(), Reg{});
  for (size_t i = 0; i < tk.vars.size(); ++i) {
    const Variable& var = tk.vars[i];
    if (!var.type.is_value()) continue;
    Reg r = new_reg(f_.var_varying[i], var.type.scalar, var.name.c_str());
    vars_[i] = r;
    if (var.param) {  // scalar parameters start as their argument
      if (r.vector)
        k_.v_mov_b32(r.v, k_.arg(var.name));
      else
        k_.s_mov_b32(r.s, k_.arg(var.name));
    }
  }
  if (f_.has_return) {
    returned_ = k_.sgpr(2, "returned lanes");
    k_.s_mov_b64(returned_, 0);
    k_.loop_();
    region(f_.body);
    always_scc();
    k_.break_(Cond::Scc1);
    k_.end_loop();
  } else {
    region(f_.body);
  }
}

void Lowerer::region(const ir::Region& r) {
  for (const auto& n : r) node(n);
}

// SCC = 1, for a break_/continue_ that always leaves (the layer lowers one
// inside a divergent branch as leaving for that branch's lanes).
void Lowerer::always_scc() { k_.s_cmp_eq_u32(0, 0); }

void Lowerer::leave_loop_for_return() {
  if (loop_depth_ > 0) k_.s_or_b64(returned_, returned_, exec);
  always_scc();
  k_.break_(Cond::Scc1);
}

void Lowerer::node(const ir::Node& n) {
  using ir::NodeKind;
  switch (n.kind) {
    case NodeKind::Compute: compute(n.value); break;
    case NodeKind::WriteVar: {
      Reg& dst = vars_[size_t(n.var)];
      if (val(n.value).type == Scalar::U64) {
        copy_wide(dst, n.value);
      } else if (dst.vector) {
        k_.v_mov_b32(dst.v, vec(n.value));
      } else {
        k_.s_mov_b32(dst.s, sop(n.value));
      }
      break;
    }
    case NodeKind::Store: store(n); break;
    case NodeKind::Barrier:
      // Global and LDS writes before it are visible to the workgroup after it.
      k_.s_waitcnt(as::waitcnt(0, 7, 0));
      k_.s_barrier();
      break;
    case NodeKind::If: {
      const bool uniform = !val(n.value).varying;
      // `if c: break` / `if c: continue`: the lanes (or the wave) leave directly.
      if (n.orelse.empty() && n.then.size() == 1 &&
          (n.then[0].kind == NodeKind::Break || n.then[0].kind == NodeKind::Continue)) {
        const bool brk = n.then[0].kind == NodeKind::Break;
        if (uniform) {
          scc_from(n.value);
          brk ? k_.break_(Cond::Scc1) : k_.continue_(Cond::Scc1);
        } else {
          SGPR m = mask(n.value);
          brk ? k_.break_(m) : k_.continue_(m);
        }
        break;
      }
      if (uniform) {
        scc_from(n.value);
        k_.if_(Cond::Scc1);
      } else {
        k_.if_(mask(n.value));
      }
      region(n.then);
      if (!n.orelse.empty()) {
        k_.else_();
        region(n.orelse);
      }
      k_.end_if();
      break;
    }
    case NodeKind::Loop: {
      const bool returns = f_.has_return && region_returns(n.then);
      ++loop_depth_;
      k_.loop_();
      region(n.then);
      k_.end_loop();
      --loop_depth_;
      // Lanes that returned inside leave the enclosing loop (or the body) too.
      if (returns) k_.break_(returned_);
      break;
    }
    case NodeKind::Break:
      always_scc();
      k_.break_(Cond::Scc1);
      break;
    case NodeKind::Continue:
      always_scc();
      k_.continue_(Cond::Scc1);
      break;
    case NodeKind::Return: leave_loop_for_return(); break;
  }
}

}  // namespace k100::dsl
