// k100lc dsl: the lowering of one kernel's IR onto codegen::Kernel (private
// to the dsl module; compiler.h is the public entry).
//
// Uniform values live in SGPRs, varying ones in VGPRs; a uniform bool is an
// SGPR holding 0 or 1 (SCC is set from it right before the branch that reads
// it, since the layer's structured flow clobbers SCC), a varying bool a lane
// mask in an SGPR pair. A u64 value takes a register pair; an f16 or bf16
// value the low half of a VGPR (what the high half holds is unspecified: every
// instruction reading it takes the low half only). Every register is virtual: allocation, spilling, waits
// and wait states are the layer's.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/dsl/ir.h"

namespace k100::dsl {

// The layer's names the lowering files use (this header is theirs alone).
using codegen::Cond;
using codegen::exec;
using codegen::Kernel;
using codegen::off;
using codegen::Operand;
using codegen::SGPR;
using codegen::VGPR;

// The kernel's signature: its parameters in order, each buffer declared
// read-only, write-only or read-write by what the IR does with it.
codegen::Signature signature_of(const TypedKernel& k, const ir::Function& f);

class Lowerer {
 public:
  Lowerer(codegen::Kernel& k, const ir::Function& f);
  void run();

 private:
  struct Reg {
    bool vector = false;
    codegen::VGPR v;
    codegen::SGPR s;
    std::optional<uint32_t> constant;  // a Const not yet materialised
    uint32_t constant_hi = 0;          // a u64 constant's high word
  };

  // lower.cpp: control flow
  void region(const ir::Region& r);
  void node(const ir::Node& n);
  void always_scc();
  void leave_loop_for_return();

  // lower_values.cpp: values
  void compute(int id);
  codegen::VGPR vec(int id);                  // the value in a VGPR (copied if uniform)
  codegen::Operand sop(int id);               // a uniform value as a scalar operand
  codegen::SGPR sreg(int id);                 // a uniform value in an SGPR
  std::pair<codegen::Operand, codegen::Operand> sops(int a, int b);  // two, at most one a literal
  codegen::SGPR mask(int id);                 // a bool as a lane mask
  void scc_from(int id);                      // SCC = uniform bool
  const ir::Value& val(int id) const { return f_.values[size_t(id)]; }
  Reg unary(const ir::Value& v);
  Reg binary(const ir::Value& v);
  Reg compare(const ir::Value& v);
  Reg convert(const ir::Value& v, int arg, Scalar from);
  Reg call(const ir::Value& v);
  Reg load(const ir::Value& v);
  Reg atomic(const ir::Value& v);      // lower_atomics.cpp
  Reg half_atomic_add(const ir::Value& v);
  Reg cross_lane(const ir::Value& v);  // lower_cross_lane.cpp
  void store(const ir::Node& n);
  codegen::VGPR global_address(int ptr_var, int index, uint32_t scale);
  codegen::SGPR group_size(int dim);
  Reg new_vreg(const char* name);
  // A VGPR computed for a value: itself when the value is varying, else read
  // from the first active lane into an SGPR (every active lane holds it).
  Reg as_value(codegen::VGPR x, bool varying);
  Reg new_sreg(const char* name);
  Reg new_reg(bool vector, Scalar type, const char* name);  // a register pair for u64

  // lower_half.cpp: f16 and bf16 values (f16 arithmetic natively; the rest
  // through f32, rounded back to nearest even)
  codegen::VGPR widen(int id, Scalar from);   // any number as f32
  codegen::VGPR narrow(codegen::VGPR x, Scalar to);  // f32 → f16/bf16 (or f32 itself)
  codegen::VGPR float_math(BuiltinId id, codegen::VGPR x);  // exp, sqrt, ... on an f32
  codegen::VGPR float_divide(codegen::VGPR a, int b, Scalar type);  // a / b in f32
  Reg half_binary(const ir::Value& v);
  Reg bf16_call(const ir::Value& v);  // fma, min, max of bf16 values
  Reg convert_float(const ir::Value& v, int arg, Scalar from);

  // lower_u64.cpp: u64 values (ballot masks) in SGPR or VGPR pairs
  codegen::VGPR vec64(int id);
  codegen::SGPR sreg64(int id);
  Reg ballot(const ir::Value& v);
  Reg wide_unary(const ir::Value& v);
  Reg wide_binary(const ir::Value& v);
  Reg wide_compare(const ir::Value& v);
  Reg wide_convert(const ir::Value& v, int arg, Scalar from);
  Reg wide_select(const ir::Value& v);
  void copy_wide(const Reg& dst, int value);

  // lower_division.cpp: exact per-lane integer division
  void divide(codegen::VGPR q, codegen::VGPR r, codegen::VGPR x, codegen::VGPR d, bool is_signed);
  Reg division(const ir::Value& v);

  codegen::Kernel& k_;
  const ir::Function& f_;
  std::vector<Reg> values_;
  std::vector<Reg> vars_;
  std::optional<codegen::SGPR> group_size_[3];
  codegen::SGPR returned_;  // lanes that executed `return` inside a loop
  int loop_depth_ = 0;      // loops open inside the kernel body
};

// Whether a region contains a Return (at any depth).
bool contains_return(const ir::Region& r);

}  // namespace k100::dsl
