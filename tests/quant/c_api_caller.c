/* A plain C99 caller of libk100_quant.so (the header must be C): opens a
 * GGUF file, reads one string key and decodes every tensor that has a host
 * codec, summing the values, the way a C program would. */
#include <stdlib.h>
#include <string.h>

#include "k100/quant/k100_quant.h"

int c_caller_summary(const char* path, const char* key, char* text, size_t text_size, int64_t* tensors,
                     double* sum) {
  k100q_file* f = NULL;
  int64_t i, k;
  const char* s = NULL;
  uint64_t len = 0;
  int rc = k100q_open(path, &f);
  if (rc < 0) {
    strncpy(text, k100q_last_error(), text_size - 1);
    text[text_size - 1] = '\0';
    return rc;
  }
  text[0] = '\0';
  k = k100q_find_kv(f, key);
  if (k >= 0 && k100q_value_string(k100q_kv(f, k, NULL), &s, &len) == 0) {
    if (len >= text_size) len = text_size - 1;
    memcpy(text, s, (size_t)len);
    text[len] = '\0';
  }
  *tensors = k100q_tensor_count(f);
  *sum = 0.0;
  for (i = 0; i < *tensors; ++i) {
    k100q_tensor_info info;
    int has_codec = 0;
    float* values;
    uint64_t j;
    if (k100q_tensor_info_at(f, i, &info) < 0) break;
    k100q_type_info(info.type, NULL, NULL, NULL, &has_codec);
    if (!has_codec) continue;
    values = (float*)malloc((size_t)info.elements * sizeof(float));
    rc = k100q_tensor_dequantize_rows(f, i, 0, info.elements / info.dims[0], values, info.elements);
    if (rc == 0)
      for (j = 0; j < info.elements; ++j) *sum += values[j];
    free(values);
    if (rc < 0) break;
  }
  k100q_close(f);
  return rc < 0 ? rc : 0;
}
