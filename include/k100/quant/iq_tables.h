// k100lc quant: the constant tables of the i-quant block types (data from
// ggml, MIT licence; see NOTICE and src/quant/data/README.md).
//
// Grid entries are packed little-endian: element j of an entry v is
// (v >> 8j) & 0xff, an unsigned magnitude whose sign comes from separate sign
// bits, except in the IQ1 grid, whose bytes are signed (-1, 0, 1). The
// device kernels receive these tables as raw buffers in exactly this form, so
// `table_bytes` hands out the bytes to upload.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace k100::quant {

std::span<const uint64_t, 1024> iq2s_grid();   // IQ2_S: 8 magnitudes from {8, 25, 43}
std::span<const uint32_t, 512> iq3s_grid();    // IQ3_S: 4 magnitudes from {1, 3, ..., 15}
std::span<const uint32_t, 256> iq3xxs_grid();  // IQ3_XXS: 4 magnitudes from {4, 12, ..., 62}
std::span<const uint8_t, 128> ksigns_iq2xs();  // 7 sign bits -> 8 with even parity (IQ3_XXS)
std::span<const uint8_t, 8> kmask_iq2xs();     // 1 << j
std::span<const int8_t, 16> kvalues_iq4nl();   // IQ4_NL / IQ4_XS codebook
std::span<const uint64_t, 256> iq2xxs_grid();  // IQ2_XXS: 8 magnitudes from {8, 25, 43}
std::span<const uint64_t, 512> iq2xs_grid();   // IQ2_XS: 8 magnitudes from {8, 25, 43}
std::span<const uint64_t, 2048> iq1s_grid();   // IQ1_S / IQ1_M: 8 signed bytes from {-1, 0, 1}
std::span<const int8_t, 16> kvalues_mxfp4();   // MXFP4: twice the E2M1 values, by 4-bit code

// The bytes of a table by its name ("iq2s_grid", "iq3s_grid", "iq3xxs_grid",
// "ksigns_iq2xs", "kmask_iq2xs", "kvalues_iq4nl", "iq2xxs_grid",
// "iq2xs_grid", "iq1s_grid", "kvalues_mxfp4"); empty for another name.
std::span<const uint8_t> table_bytes(std::string_view name);

// The table names above, in that order.
std::span<const std::string_view> table_names();

}  // namespace k100::quant
