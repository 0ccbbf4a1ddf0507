// Generators and signatures of the gated delta-rule kernels gdn_k and gdn_k2<32>.
#pragma once

#include "k100/codegen/codegen.h"
#include "k100/codeobj/code_object.h"

namespace k100::kernels::seq {

const codegen::Signature& gdn_signature();   // gdn_k: state [Hv][col][i], full hidden block
const codegen::Signature& gdn2_signature();  // gdn_k2<32>: state [Hv][i][col], no hidden arguments
codeobj::CodeObject build_gdn(isa::Target target);
codeobj::CodeObject build_gdn2(isa::Target target);

}  // namespace k100::kernels::seq
