// k100lc asm: an instruction-level C++ builder for kernels.
//
// Kernel generators write GFX9 code with typed registers and labels, one
// method per instruction (generated from the ISA table), instead of pasting
// strings:
//
//   KernelBuilder b("scale");
//   b.s_load_dwordx2(s(0, 2), s(4, 2), 0x0);
//   b.v_mul_f32(v(2), s(2), v(2));
//   b.global_store_dword(v(1), v(2), s(0, 2), offset(16));
//   Label done = b.label();
//   b.s_cbranch_execz(done);
//   ...
//   b.bind(done);
//   b.s_endpgm();
//
// Operands and modifiers take the same meaning as in the assembler (the same
// matcher chooses the encoding and applies llvm's rules), so an instruction
// the builder accepts is one k100-as accepts in text form. Errors throw
// k100::Error naming the kernel, the instruction and the problem.
#pragma once

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "k100/codeobj/arg_layout.h"
#include "k100/codeobj/code_object.h"
#include "k100/codeobj/descriptor_settings.h"
#include "k100/isa/codec.h"

namespace k100::as {

struct SynOperand;
struct SynModifier;

// A VGPR or a range of VGPRs.
struct VGPR {
  uint16_t index = 0;
  uint8_t width = 1;
  VGPR operator[](int i) const { return VGPR{uint16_t(index + i), 1}; }
  VGPR sub(int first, int count) const { return VGPR{uint16_t(index + first), uint8_t(count)}; }
};
// An SGPR, a range of SGPRs, or a special scalar register (by operand code).
struct SGPR {
  uint16_t code = 0;
  uint8_t width = 1;
  SGPR operator[](int i) const { return SGPR{uint16_t(code + i), 1}; }
  SGPR sub(int first, int count) const { return SGPR{uint16_t(code + first), uint8_t(count)}; }
};
inline VGPR v(int n, int width = 1) { return VGPR{uint16_t(n), uint8_t(width)}; }
inline SGPR s(int n, int width = 1) { return SGPR{uint16_t(n), uint8_t(width)}; }

inline constexpr SGPR vcc{isa::code::kVccLo, 2}, vcc_lo{isa::code::kVccLo, 1}, vcc_hi{isa::code::kVccHi, 1};
inline constexpr SGPR exec{isa::code::kExecLo, 2}, exec_lo{isa::code::kExecLo, 1}, exec_hi{isa::code::kExecHi, 1};
inline constexpr SGPR m0{isa::code::kM0, 1};

struct Label {
  int id = -1;
};
// The word `off` (MUBUF/GLOBAL/SCRATCH address or base).
struct Off {};
inline constexpr Off off{};

// An already-encoded 16-bit immediate with symbolic meaning.
struct Symbolic {
  uint32_t value;
};
Symbolic waitcnt(int vmcnt = 63, int expcnt = 7, int lgkmcnt = 15);
Symbolic hwreg(unsigned id, unsigned offset = 0, unsigned size = 32);
Symbolic sendmsg(unsigned msg, unsigned op = 0, unsigned stream = 0);

// A modifier (clamp, offset:N, glc, op_sel:[..], row_shr:N, ...).
struct Modifier {
  std::string name;
  bool has_value = false;
  int64_t value = 0;
  std::vector<int64_t> list;
  std::string ident;
};
Modifier clamp();
Modifier glc();
Modifier slc();
Modifier lds();
Modifier gds();
Modifier offen();
Modifier idxen();
Modifier offset(int64_t bytes);
Modifier offset0(int64_t value);
Modifier offset1(int64_t value);
Modifier mul(int factor);
Modifier div(int factor);
Modifier op_sel(std::initializer_list<int64_t> bits);
Modifier op_sel_hi(std::initializer_list<int64_t> bits);
Modifier neg_lo(std::initializer_list<int64_t> bits);
Modifier neg_hi(std::initializer_list<int64_t> bits);
Modifier quad_perm(int a, int b, int c, int d);
Modifier row_shl(int n);
Modifier row_shr(int n);
Modifier row_ror(int n);
Modifier row_bcast(int n);
Modifier row_mirror();
Modifier row_half_mirror();
Modifier wave_shl();
Modifier wave_shr();
Modifier wave_rol();
Modifier wave_ror();
Modifier row_mask(int mask);
Modifier bank_mask(int mask);
Modifier bound_ctrl();
Modifier sdwa_sel(const char* which, const char* sel);  // ("dst_sel", "WORD_1"), ...
Modifier swizzle_offset(uint16_t raw);                   // ds_swizzle_b32 offset (raw encoding)

// One operand or modifier of a builder call. Integers and floating-point values
// are constants, folded into inline constants or literals like in assembly.
class Arg {
 public:
  Arg(VGPR r);
  Arg(SGPR r);
  Arg(int v);
  Arg(unsigned v);
  Arg(long v);
  Arg(unsigned long v);
  Arg(long long v);
  Arg(unsigned long long v);
  Arg(float v);
  Arg(double v);
  Arg(Label l);
  Arg(Off);
  Arg(Symbolic s);
  Arg(Modifier m);
  Arg(const Arg&);
  Arg& operator=(const Arg&);
  ~Arg();

  Arg& neg();   // -x
  Arg& abs();   // |x|
  Arg& sext();  // sext(x)

  bool is_modifier() const { return modifier_ != nullptr; }
  const SynOperand& operand() const { return *operand_; }
  const SynModifier& modifier() const { return *modifier_; }
  int label() const { return label_; }

 private:
  std::unique_ptr<SynOperand> operand_;
  std::unique_ptr<SynModifier> modifier_;
  int label_ = -1;
};
inline Arg neg(Arg a) { return std::move(a.neg()); }
inline Arg abs(Arg a) { return std::move(a.abs()); }
inline Arg sext(Arg a) { return std::move(a.sext()); }

class KernelBuilder {
 public:
  explicit KernelBuilder(std::string name, isa::Target target = isa::Target::gfx926);
  ~KernelBuilder();
  KernelBuilder(const KernelBuilder&) = delete;
  KernelBuilder& operator=(const KernelBuilder&) = delete;

  const std::string& name() const { return name_; }
  isa::Target target() const { return target_; }

  // Labels: create, then bind at the position they stand for.
  Label label(std::string hint = {});
  void bind(Label l);

  // One method per instruction of the table: b.v_add_f32(v(0), v(1), v(2)).
#define K100_INST(id, ...) \
  template <class... A>    \
  void id(A&&... a) {      \
    emit(#id, {Arg(std::forward<A>(a))...}); \
  }
#include "k100/isa/gfx9_table.inc"
#undef K100_INST

  // Any mnemonic the assembler accepts, e.g. "v_add_f32_e64" to force VOP3.
  void emit(std::string_view mnemonic, std::initializer_list<Arg> args);

  // Kernel interface: `.amdhsa_*` settings and explicit arguments (as in the
  // compact `.k100_arg` form), and the hidden-argument layout.
  KernelBuilder& setting(std::string_view amdhsa_key, int64_t value);
  KernelBuilder& arg(std::string name, std::string value_kind, std::string type, std::string access = {});
  KernelBuilder& hidden_args(codeobj::HiddenArgLayout layout);
  KernelBuilder& max_flat_workgroup_size(uint32_t n);

  // Results. code() resolves labels; it throws on an unbound label or a
  // branch out of range.
  std::vector<uint8_t> code() const;
  size_t instruction_count() const;
  // llvm syntax of the whole kernel (labels included), e.g. for `.s` emission.
  std::string assembly() const;
  // A code object holding this one kernel (descriptor, metadata, register
  // counts from the code when the settings do not give them).
  codeobj::CodeObject code_object(codeobj::CodeObjectVersion version = codeobj::CodeObjectVersion::V5) const;

 private:
  struct Item;
  std::string name_;
  isa::Target target_;
  std::vector<Item> items_;
  std::vector<int64_t> label_pos_;  // instruction index a label is bound to, -1 unbound
  std::deque<std::string> label_names_;
  codeobj::DescriptorSettings settings_;
  std::vector<codeobj::ExplicitArg> args_;
  codeobj::ArgLayoutOptions layout_;
  uint32_t max_flat_workgroup_size_ = 256;
  codeobj::Target codeobj_target_;
};

}  // namespace k100::as
