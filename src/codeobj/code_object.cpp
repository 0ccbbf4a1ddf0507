#include "k100/codeobj/code_object.h"

#include <algorithm>

namespace k100::codeobj {

const Kernel* CodeObject::find_kernel(std::string_view name) const {
  for (const auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::span<const uint8_t> CodeObject::kernel_code(const Kernel& k) const {
  if (k.code_offset >= text.size()) return {};
  uint64_t n = std::min<uint64_t>(k.code_size, text.size() - k.code_offset);
  return std::span<const uint8_t>(text.data() + k.code_offset, size_t(n));
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
