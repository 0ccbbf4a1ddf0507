// Test operands of the packed-KV decode attention kernels: random caches and
// queries laid out per KERNELS.md §4.6 (the attention over codes needs no
// quantiser), the launch of a kernel through its contract with named
// arguments, and the comparison of split partials.
#pragma once

#include <map>
#include <string>

#include "attention/flash_decode_reference.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels::flash_decode {

// A cache of kv_heads x kv_cap keys: codes uniform in [-127, 127], K scales
// and V scales positive (scores of a few units, values of about 1). K scales
// of keys >= n_kv and V scales of tiles past n_kv are NaN: a kernel that let
// them into its result would show it.
PackedCache random_cache(int64_t kv_heads, int64_t kv_cap, int64_t n_kv, uint32_t seed);

// Queries of n_heads heads with `rows` rows: codes [h][dw_stride] words with
// row r at r row_stride, scales at h sc_stride + g sc_row + r sc_row_step;
// padding words / scales are random too.
struct QueryLayout {
  int64_t n_heads, rows, dw_pad = 0, sc_pad = 0, sc_row_step = 1;
};
PackedQueries random_queries(const QueryLayout& l, uint32_t seed);

// Evaluates a kernel's launch contract and launches it; `given` names the
// arguments the contract does not derive.
Launch contract_launch(TestDevice& dev, const std::string& lookup, const std::map<std::string, int64_t>& sizes,
                       const std::map<std::string, int64_t>& choices, const std::map<std::string, uint64_t>& given);

// Split partials normalised for comparison: pout / psum_ref per slot, psum /
// psum_ref, pmax; slots whose reference is empty compare raw (they must be
// exactly 0, 0 and -inf).
CaseResult compare_partials(const SplitPartials& got, const SplitPartials& want, const Tolerance& tol);

}  // namespace k100::kernels::flash_decode
