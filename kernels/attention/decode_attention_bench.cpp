// The attention group's decode attention benchmark: 32 query heads of 128
// over 8 KV heads (4 query heads per KV head) at 4096 and 32768 cached rows,
// f32 and f16 caches, one launch each of the one-launch grouped-query
// attention (flash_dec_gqa_k, flash_dec_gqa_f16_k; their tests and sizes are
// in kernels/model/flash_dec_gqa_entries.cpp) with the split count the
// decoder picks for that context.
#include "k100/kernels/group_bench_cases.h"
#include "k100/kernels/test_support.h"

namespace k100::kernels {

namespace {

// One launch (passes 1) of rows n_kv in 2^cshift splits.
Case decode_case(int64_t n_kv, int64_t cshift) {
  return make_case({{"heads", 32}, {"kv_heads", 8}, {"dh", 128}, {"n_kv", n_kv}, {"max_len", n_kv},
                    {"cshift", cshift}, {"rpad", 0}, {"wg", 64}, {"gate", 0}, {"passes", 1}},
                   1);
}

}  // namespace

std::vector<GroupBenchCase> group_bench_cases(const std::string& family) {
  if (family != "attention") return {};
  return {{"flash_dec_gqa_k", decode_case(4096, 4)},
          {"flash_dec_gqa_f16_k", decode_case(4096, 5)},
          {"flash_dec_gqa_k", decode_case(32768, 5)},
          {"flash_dec_gqa_f16_k", decode_case(32768, 5)}};
}

}  // namespace k100::kernels
