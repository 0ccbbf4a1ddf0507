// Registration of the packed-KV attention kernels (query quantiser, KV append, prefill flash attention) and the head/row layout kernels.
#include "attention/packed_kv_kernels.h"

#include "k100/base/error.h"

namespace k100::kernels {

namespace attention {

std::optional<CaseResult> expect_refusal(TestDevice& dev, const std::string& lookup,
                                         const std::map<std::string, int64_t>& sizes, const std::string& rule) {
  CaseResult bad;
  try {
    (void)dev.launch_contract(lookup).evaluate(sizes);
    bad.note = "the launch contract accepted a shape that breaks '" + rule + "'";
  } catch (const Error& e) {
    if (std::string(e.what()).find(rule) != std::string::npos) return std::nullopt;
    bad.note = "refused without naming '" + rule + "': " + e.what();
  }
  return bad;
}

}  // namespace attention

void register_packed_kv_kernels(Registry& r) {
  attention::register_packed_kv_writers(r);
  attention::register_fa_prefill(r);
  attention::register_head_layout(r);
}

}  // namespace k100::kernels
