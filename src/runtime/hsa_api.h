// k100lc runtime: the HSA functions the HSA backend uses, resolved with dlsym.
//
// One X-macro list drives the function-pointer table, the symbol-name list
// (hsa_required_symbols) and the loader, so the test that checks the installed
// library resolves exactly what the backend calls. The types come from
// Debian's libhsa-runtime-dev headers.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <string>

#define K100_HSA_FUNCTIONS(X)                  \
  X(hsa_init)                                  \
  X(hsa_shut_down)                             \
  X(hsa_status_string)                         \
  X(hsa_system_get_info)                       \
  X(hsa_iterate_agents)                        \
  X(hsa_agent_get_info)                        \
  X(hsa_amd_agent_iterate_memory_pools)        \
  X(hsa_amd_memory_pool_get_info)              \
  X(hsa_amd_memory_pool_allocate)              \
  X(hsa_amd_memory_pool_free)                  \
  X(hsa_amd_agents_allow_access)               \
  X(hsa_amd_memory_async_copy)                 \
  X(hsa_memory_copy)                           \
  X(hsa_signal_create)                         \
  X(hsa_signal_destroy)                        \
  X(hsa_signal_store_relaxed)                  \
  X(hsa_signal_store_screlease)                \
  X(hsa_signal_load_scacquire)                 \
  X(hsa_signal_wait_scacquire)                 \
  X(hsa_amd_signal_async_handler)              \
  X(hsa_queue_create)                          \
  X(hsa_queue_destroy)                         \
  X(hsa_queue_add_write_index_screlease)       \
  X(hsa_queue_load_read_index_scacquire)       \
  X(hsa_code_object_reader_create_from_memory) \
  X(hsa_code_object_reader_destroy)            \
  X(hsa_executable_create_alt)                 \
  X(hsa_executable_load_agent_code_object)     \
  X(hsa_executable_freeze)                     \
  X(hsa_executable_destroy)                    \
  X(hsa_executable_get_symbol_by_name)         \
  X(hsa_executable_symbol_get_info)

namespace k100::runtime {

struct HsaApi {
#define K100_HSA_POINTER(name) decltype(&::name) name = nullptr;
  K100_HSA_FUNCTIONS(K100_HSA_POINTER)
#undef K100_HSA_POINTER
  void* handle = nullptr;
  std::string path;  // the library that was loaded

  // Loads the first library of hsa_library_candidates(explicit_path) that opens
  // and resolves every symbol. Throws RuntimeError(Backend) listing what was tried.
  static HsaApi load(const std::string& explicit_path);
  // "HSA_STATUS_ERROR_OUT_OF_RESOURCES: ..." for a status code.
  std::string status_text(hsa_status_t s) const;
};

}  // namespace k100::runtime
