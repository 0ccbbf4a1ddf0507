// The package kernels written in the DSL (kernels/dsl/*.kkl) whose
// hand-written counterparts stay: each is registered as `<name>_dsl` beside
// the hand-written kernel, with its contract, tests and bench case, and the
// MODELED gap that keeps both (k100-bench kernels --only <name>,<name>_dsl).
#include "dsl/dsl_build.h"

namespace k100::kernels {

void register_dsl_kernels(Registry& r) {
  using dsl_package::add_dsl_twin;
  for (const char* name : {"q4k_dequant", "q5k_dequant", "q6k_dequant", "rope_apply_k", "embed_f16_k", "vt_scatter_k",
                           "vt_scatter_v_k", "attn_pv_part", "split_qkv_k"})
    add_dsl_twin(r, name, name, "");
}

}  // namespace k100::kernels
