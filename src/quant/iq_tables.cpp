// The i-quant tables, compiled in from the generated iq_tables_data.inc.
#include "k100/quant/iq_tables.h"

#include <array>

namespace k100::quant {
namespace {

#include "iq_tables_data.inc"

template <class T, size_t N>
std::span<const uint8_t> as_bytes_of(const T (&a)[N]) {
  return {reinterpret_cast<const uint8_t*>(a), sizeof a};
}

constexpr std::string_view kNames[] = {"iq2s_grid",    "iq3s_grid",   "iq3xxs_grid", "ksigns_iq2xs",
                                       "kmask_iq2xs",  "kvalues_iq4nl", "iq2xxs_grid", "iq2xs_grid",
                                       "iq1s_grid",    "kvalues_mxfp4"};

}  // namespace

std::span<const uint64_t, 1024> iq2s_grid() { return std::span<const uint64_t, 1024>(kIq2sGrid); }
std::span<const uint32_t, 512> iq3s_grid() { return std::span<const uint32_t, 512>(kIq3sGrid); }
std::span<const uint32_t, 256> iq3xxs_grid() { return std::span<const uint32_t, 256>(kIq3xxsGrid); }
std::span<const uint8_t, 128> ksigns_iq2xs() { return std::span<const uint8_t, 128>(kKsignsIq2xs); }
std::span<const uint8_t, 8> kmask_iq2xs() { return std::span<const uint8_t, 8>(kKmaskIq2xs); }
std::span<const int8_t, 16> kvalues_iq4nl() { return std::span<const int8_t, 16>(kKvaluesIq4nl); }
std::span<const uint64_t, 256> iq2xxs_grid() { return std::span<const uint64_t, 256>(kIq2xxsGrid); }
std::span<const uint64_t, 512> iq2xs_grid() { return std::span<const uint64_t, 512>(kIq2xsGrid); }
std::span<const uint64_t, 2048> iq1s_grid() { return std::span<const uint64_t, 2048>(kIq1sGrid); }
std::span<const int8_t, 16> kvalues_mxfp4() { return std::span<const int8_t, 16>(kKvaluesMxfp4); }

std::span<const uint8_t> table_bytes(std::string_view name) {
  if (name == kNames[0]) return as_bytes_of(kIq2sGrid);
  if (name == kNames[1]) return as_bytes_of(kIq3sGrid);
  if (name == kNames[2]) return as_bytes_of(kIq3xxsGrid);
  if (name == kNames[3]) return as_bytes_of(kKsignsIq2xs);
  if (name == kNames[4]) return as_bytes_of(kKmaskIq2xs);
  if (name == kNames[5]) return as_bytes_of(kKvaluesIq4nl);
  if (name == kNames[6]) return as_bytes_of(kIq2xxsGrid);
  if (name == kNames[7]) return as_bytes_of(kIq2xsGrid);
  if (name == kNames[8]) return as_bytes_of(kIq1sGrid);
  if (name == kNames[9]) return as_bytes_of(kKvaluesMxfp4);
  return {};
}

std::span<const std::string_view> table_names() { return kNames; }

}  // namespace k100::quant
