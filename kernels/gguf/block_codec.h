// The device decoding of the GGUF block types, emitted into kernels.
//
// Each block type has one emitter (blocks/<type>.cpp): given the
// per-lane address of a block, it loads the block's bytes, decodes every
// element with the float operations of ggml's reference dequantiser in the
// same order (so a decoder kernel is bit-exact with ggml), and hands the
// values on in runs of four consecutive elements. The type's decoder kernel
// (gguf_decode_kernels.cpp) stores the runs, and for the eleven types of
// KERNELS.md its fused dot kernel (gguf_dot_kernels.cpp) multiplies them with
// the activations; both call the same emitter, so they cannot decode
// differently.
//
// Every lane owns one block; blocks may sit at any byte address (the loads
// are unaligned dword loads, which GFX9 serves in the unaligned memory mode
// the KFD driver sets for compute queues), and no load reaches past the
// block's last byte.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "k100/codegen/codegen.h"
#include "k100/quant/tensor_type.h"

namespace k100::kernels::gguf {

// Four consecutive decoded f32 values of a block: elements first .. first+3.
struct ValueRun {
  int first = 0;
  codegen::VGPR values;  // 4 dwords
};

// What happens to the decoded values. The emitter works in batches of at
// most 16 values: it announces a batch's element positions first (`expect`:
// the dot kernel issues the activation loads there, so they travel while the
// block is decoded), then passes the runs (`take`).
struct BlockSink {
  std::function<void(const std::vector<int>& firsts)> expect;
  std::function<void(const std::vector<ValueRun>& runs)> take;
};

// The lane's block and the type's lookup tables (KERNELS.md 4.2). With
// `resident`, the whole block was loaded into registers first (dword j =
// bytes 4j .. 4j + 3; an odd half dword at the end is zero-extended), and the
// emitter's loads read from there: every line of a lane's block is then
// requested in one burst, so it is fetched from memory once even when the
// decode takes long and the caches are under pressure (the i-quants, whose
// table gathers stretch the decode).
struct ResidentBlock {
  std::vector<codegen::VGPR> parts;  // 16 dwords each (a register holds at most 16)
  codegen::VGPR dword(int j) const { return parts[size_t(j / 16)][j % 16]; }
};
struct BlockInput {
  codegen::VGPR addr;                 // per-lane 64-bit address of the block (2 VGPRs)
  std::vector<codegen::SGPR> tables;  // the type's table arguments, in signature order
  std::optional<ResidentBlock> resident;
};

// The block's bytes (a multiple of 2) loaded into ceil(bytes / 4) dwords.
ResidentBlock load_resident(codegen::Kernel& k, codegen::VGPR addr, int bytes);

// A lookup-table argument of a kernel (grid, sign patterns).
struct TableParam {
  std::string name;     // argument name: "grid", "ksigns"
  std::string element;  // "u64", "u32", "u8"
  std::string source;   // quant::table_bytes name: "iq2s_grid", ...
};

using BlockEmitter = void (*)(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);

// One block type as the kernels see it.
struct BlockFormat {
  quant::TensorType type;
  std::string prefix;  // lookup prefix: "q4_0" -> q4_0_dot_k, q4_0_dequant_k
  std::string title;   // "Q4_0", "IQ3_XXS"
  int elems = 0, bytes = 0;
  std::vector<TableParam> tables;
  BlockEmitter decode = nullptr;
  std::string decoding;  // one sentence for the docs: how the kernel decodes it
  bool resident = false;  // the kernels load the whole block first (BlockInput::resident)
  bool dot = true;        // a fused dot kernel (`<prefix>_dot_k`): the eleven types of KERNELS.md
};

// Occupancy asked for by a kernel that keeps the block resident: up to 28
// dwords fit beside the decode's registers at 3 waves per SIMD, larger
// blocks (Q5_K, Q6_K) at 2.
int resident_waves(const BlockFormat& f);

// The types in catalog order (the eleven of KERNELS.md, then the others);
// lookup by type (k100::Error for others).
const std::vector<BlockFormat>& block_formats();
const BlockFormat& block_format(quant::TensorType type);

// The emitters, one per type.
void decode_q4_0(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q8_0(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q2_0(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq4nl(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq4xs(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q4k(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q5k(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q6k(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq2s(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq3s(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq3xxs(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q4_1(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q5_0(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q5_1(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_mxfp4(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q2k(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_q3k(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq2xxs(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq2xs(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq1s(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_iq1m(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_tq1_0(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);
void decode_tq2_0(codegen::Kernel& k, const BlockInput& in, const BlockSink& sink);

// IQ4_NL as int8 codebook values (iq4nl_to_i8_k and decode_iq4nl share it):
// the block's scale as f32 and, per qs dword j (bytes 4j .. 4j+3), the int8
// codebook values of its low nibbles (elements 4j ..) and high nibbles
// (elements 16 + 4j ..), four per dword.
struct Iq4nlCodes {
  codegen::VGPR scale;
  codegen::VGPR low[4], high[4];
};
Iq4nlCodes iq4nl_codes(codegen::Kernel& k, const BlockInput& in);

}  // namespace k100::kernels::gguf
