/* k100lc quant: the C ABI of the GGUF reader and the host block codecs
 * (libk100_quant.so), for C programs and for Python through ctypes.
 *
 * Functions returning int give 0 (or a non-negative count/index) on success
 * and a negative K100Q_ERR_* code on failure; k100q_last_error() then holds
 * the message (per thread, naming the file, key, tensor or argument).
 * Nothing here aborts on bad input. Pointers returned by the library stay
 * valid until the file they came from is closed.
 *
 * Tensor shapes are in GGUF order: dims[0] is the number of elements per row.
 * Type ids are ggml's (see include/k100/quant/tensor_type.h); metadata value
 * type codes are GGUF's (0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32,
 * 7 bool, 8 string, 9 array, 10 u64, 11 i64, 12 f64).
 */
#ifndef K100_QUANT_K100_QUANT_H
#define K100_QUANT_K100_QUANT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define K100Q_ERR (-1)          /* the operation failed; see k100q_last_error() */
#define K100Q_ERR_ARG (-2)      /* a null pointer, an index out of range, a buffer too small */
#define K100Q_ERR_NOCODEC (-3)  /* the tensor type has no host codec */

typedef struct k100q_file k100q_file;
typedef struct k100q_value k100q_value; /* one metadata value inside an open file */

typedef struct k100q_tensor_info {
  const char* name;       /* NUL-terminated, valid while the file is open */
  uint32_t type;          /* ggml type id */
  uint32_t n_dims;        /* 1 to 4 */
  uint64_t dims[4];       /* GGUF order; unused entries are 1 */
  uint64_t offset;        /* from the start of the data section */
  uint64_t file_offset;   /* from the start of the file */
  uint64_t size;          /* bytes */
  uint64_t elements;
} k100q_tensor_info;

const char* k100q_last_error(void);

/* Types: name, block geometry, codec availability. Returns 0, or
 * K100Q_ERR_ARG for an id ggml does not define. Any out pointer may be NULL. */
int k100q_type_info(uint32_t type, const char** name, uint32_t* block_elems, uint32_t* block_bytes,
                    int* has_host_codec);
/* The id of a type name ("q4_K", case-insensitive), or K100Q_ERR_ARG. */
int k100q_type_from_name(const char* name);

/* Files. */
int k100q_open(const char* path, k100q_file** out);
void k100q_close(k100q_file* f);
uint32_t k100q_version(const k100q_file* f);
uint32_t k100q_alignment(const k100q_file* f);
uint64_t k100q_data_offset(const k100q_file* f);
uint64_t k100q_file_size(const k100q_file* f);

/* Metadata: count, then each entry's key and value; or a key's index. */
int64_t k100q_kv_count(const k100q_file* f);
const k100q_value* k100q_kv(const k100q_file* f, int64_t index, const char** key);
int64_t k100q_find_kv(const k100q_file* f, const char* key); /* index, or -1 when absent */

/* Values: the GGUF type code; a scalar's raw little-endian bytes (1, 2, 4 or
 * 8) copied to out (out_size must be at least that; returns the byte count);
 * a string's bytes (not NUL-terminated) and length. */
int k100q_value_type(const k100q_value* v);
int k100q_value_scalar(const k100q_value* v, void* out, size_t out_size);
int k100q_value_string(const k100q_value* v, const char** data, uint64_t* length);
/* Arrays: element type code and count; the raw bytes of a fixed-size element
 * array; string element i; nested array element i. */
int k100q_value_array(const k100q_value* v, int* elem_type, uint64_t* count);
int k100q_value_array_data(const k100q_value* v, const void** data, uint64_t* bytes);
int k100q_value_array_string(const k100q_value* v, uint64_t i, const char** data, uint64_t* length);
const k100q_value* k100q_value_array_item(const k100q_value* v, uint64_t i);

/* Tensors: count, info by index, index by name (-1 when absent), raw bytes. */
int64_t k100q_tensor_count(const k100q_file* f);
int k100q_tensor_info_at(const k100q_file* f, int64_t index, k100q_tensor_info* out);
int64_t k100q_find_tensor(const k100q_file* f, const char* name);
int k100q_tensor_data(const k100q_file* f, int64_t index, const void** data, uint64_t* bytes);
/* Decodes rows [first_row, first_row + row_count) of a tensor with the host
 * codecs into out, which holds out_count floats (row_count * dims[0]). */
int k100q_tensor_dequantize_rows(const k100q_file* f, int64_t index, uint64_t first_row, uint64_t row_count,
                                 float* out, uint64_t out_count);

/* Codecs on caller memory: n elements (a multiple of the block size);
 * src_bytes / dst_bytes must be at least the row's byte size. */
int k100q_dequantize(uint32_t type, const void* src, uint64_t src_bytes, float* dst, int64_t n);
int k100q_quantize(uint32_t type, const float* src, int64_t n, void* dst, uint64_t dst_bytes);
/* Bytes of a row of n elements of a type, or K100Q_ERR_ARG. */
int64_t k100q_row_bytes(uint32_t type, int64_t n);

/* The i-quant tables as raw bytes ("iq2s_grid", "iq3s_grid", "iq3xxs_grid",
 * "ksigns_iq2xs", "kmask_iq2xs", "kvalues_iq4nl", "iq2xxs_grid", "iq2xs_grid",
 * "iq1s_grid", "kvalues_mxfp4"), for device uploads. */
int k100q_table(const char* name, const void** data, uint64_t* bytes);

/* The GEMV layout of the fast decode GEMVs (k100/quant/gemv_layout.h): the
 * bytes of a rows x cols matrix of a type in it (K100Q_ERR_ARG for a type
 * without a fast GEMV, cols not a whole number of blocks, an empty matrix),
 * and the repack of the matrix's GGUF bytes (src_bytes exactly rows x the row
 * size) into dst (dst_bytes at least k100q_gemv_layout_bytes). */
int64_t k100q_gemv_layout_bytes(uint32_t type, int64_t rows, int64_t cols);
int k100q_repack_for_gemv(uint32_t type, int64_t rows, int64_t cols, const void* src, uint64_t src_bytes, void* dst,
                          uint64_t dst_bytes);

#ifdef __cplusplus
}
#endif

#endif /* K100_QUANT_K100_QUANT_H */
