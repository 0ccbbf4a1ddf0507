// The decoder of each block type (one factory per family).
#include "gemv_decoder.h"
#include "k100/base/error.h"

namespace k100::kernels::gguf_gemv {

std::unique_ptr<GemvDecoder> make_decoder(quant::TensorType type) {
  using quant::TensorType;
  switch (type) {
    case TensorType::Q4_0:
    case TensorType::Q4_1:
    case TensorType::Q5_0:
    case TensorType::Q5_1:
    case TensorType::Q8_0:
    case TensorType::Q2_0:
    case TensorType::IQ4_NL:
    case TensorType::MXFP4: return make_legacy_decoder(type);
    case TensorType::Q4_K:
    case TensorType::Q5_K:
    case TensorType::Q6_K: return make_kquant_decoder(type);
    case TensorType::Q2_K:
    case TensorType::Q3_K: return make_low_kquant_decoder(type);
    case TensorType::IQ4_XS:
    case TensorType::IQ2_XXS:
    case TensorType::IQ2_XS:
    case TensorType::IQ2_S:
    case TensorType::IQ3_S:
    case TensorType::IQ3_XXS: return make_iquant_decoder(type);
    case TensorType::IQ1_S:
    case TensorType::IQ1_M: return make_iq1_decoder(type);
    case TensorType::TQ2_0: return make_ternary_decoder(type);
    default: throw Error("gemv: no fast GEMV decoder for type " + quant::type_name(type));
  }
}

}  // namespace k100::kernels::gguf_gemv
