#include "gemv_decoder.h"
#include "k100/base/error.h"
namespace k100::kernels::gguf_gemv {
std::unique_ptr<GemvDecoder> make_grid_decoder(quant::TensorType type) { throw Error("gemv: no decoder for " + quant::type_name(type)); }
}
