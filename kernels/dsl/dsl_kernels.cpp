// The package kernels written in the DSL (kernels/dsl/*.kkl) whose
// hand-written counterparts stay: each is registered as `<name>_dsl` beside
// the hand-written kernel, with its contract, tests and bench case, and the
// MODELED gap that keeps both (k100-bench kernels --only <name>,<name>_dsl).
// The DSL builds within 1.1x replaced their hand-written generators in their
// own families' entries (rope_apply_k, attn_pv_part, split_qkv_k).
#include "dsl/dsl_build.h"
#include "dsl/dsl_sources.h"

namespace k100::kernels {

void register_dsl_kernels(Registry& r) {
  struct Twin {
    const char* name;
    const char* gap;
  };
  // MODELED at each kernel's bench case (k100-bench kernels --only NAME,NAME_dsl).
  const Twin twins[] = {
      {"q4k_dequant", "MODELED 41.57 us against 20.03 us hand-written (2.08x): a 4-byte store per value and 2-byte "
                      "loads, 64-bit address arithmetic for each, where the hand-written kernel loads and stores 16 "
                      "bytes at a time."},
      {"q5k_dequant", "MODELED 52.48 us against 17.62 us hand-written (2.98x), for the same reasons as q4k_dequant_dsl."},
      {"q6k_dequant", "MODELED 78.11 us against 17.92 us hand-written (4.36x), for the same reasons as q4k_dequant_dsl."},
      {"embed_f16_k", "MODELED 16.21 us against 12.38 us hand-written (1.31x): 64-bit address arithmetic and a 2-byte "
                      "load per element where the hand-written kernel converts 4 halves per 8-byte load and stores 16 "
                      "bytes at a time."},
      {"vt_scatter_k", "MODELED 19.98 us against 14.43 us hand-written (1.38x): 64-bit address arithmetic per element "
                       "and 4-byte accesses."},
      {"vt_scatter_v_k", "MODELED 25.69 us against 15.78 us hand-written (1.63x): 64-bit address arithmetic per "
                         "element and 4-byte accesses."},
  };
  for (const Twin& t : twins) dsl_package::add_dsl_twin(r, t.name, t.name, t.gap);
  dsl_package::register_installed(r, dsl_package::installed_kernels_json());
}

}  // namespace k100::kernels
