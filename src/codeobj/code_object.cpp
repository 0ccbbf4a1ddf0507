#include "k100/codeobj/code_object.h"

namespace k100::codeobj {

const Kernel* CodeObject::find_kernel(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

void sync_metadata(CodeObject& co) {
  std::vector<KernelMeta> metas;
  for (const auto& k : co.kernels)
    if (k.meta) metas.push_back(*k.meta);
  MetaNode fresh = make_metadata_document(co.version, co.target, metas);
  if (!co.metadata.is_map()) {
    co.metadata = std::move(fresh);
    return;
  }
  co.metadata.set("amdhsa.kernels", *fresh.find("amdhsa.kernels"));
}

}  // namespace k100::codeobj
