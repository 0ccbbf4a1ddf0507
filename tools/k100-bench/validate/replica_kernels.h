// Validation replicas: the lone-wave / few-wave kernels that PERFORMANCE_FACTS
// measured (sections 15 and 17), re-created on the codegen layer from their
// own description there and in KERNELS.md: rows per wave, loop structure,
// where they wait, the serial round trips they state, workgroup size and
// grid. They exist only so that `k100-bench validate` models the kernels
// that were measured; they are not package kernels (our own kernels of the
// same families are in kernels/ and keep their rows in the table).
//
// Each replica keeps the measured kernel's argument list (KERNELS.md) and
// computes its result, which the runner checks against a host reference, so
// the loops really run as described. Every wait is written by hand where the
// description puts it (`s_waitcnt vmcnt(0)`), the automatic waits of the
// layer only add what the data dependences need on top (nothing, as written).
// Reductions across the wave go through LDS (one value per lane, then a
// 6-step tree), the reference's reduction (section 14: "one value per lane +
// LDS tree").
#pragma once

#include <cstdint>

#include "k100/codeobj/code_object.h"

namespace k100::bench::validate {

// RMSNorm of one row per one-wave workgroup (grid = rows, wg = 64), args
// (y, x, w, dim, eps). Lane t takes elements t, t + 64, ... (dword loads:
// the section 17 table counts "loads per wait" and "one wait per element"
// for the original). Statistics pass: batches of `loads_per_wait` x loads,
// one wait per batch; output pass: batches of loads_per_wait / 2 elements
// (an x and a w load each), one wait per batch, stores not waited for (the
// 16-loads kernel taken to be v1.9.10's faster RMSNorm, section 16, after
// v1.9.3 stopped waiting after stores).
// What does not fill a whole batch goes through the tail path, one element
// per wait, the original kernel's structure. Kernel name "rmsnorm_rep<N>_k".
codeobj::CodeObject rmsnorm_replica(int loads_per_wait);

// Row softmax, one wave per row (grid = rows, wg = 64), args (y, x, rows,
// cols, group_size); `columns_per_lane` 1 (softmax_k) or 4 (softmax_vec_k:
// 4 consecutive columns per lane, 256 per step). Three passes (max, exp + sum
// written to y, normalise y), one load and one wait per step; measured at
// v1.7.8, when the compiler still waited after every store (section 16,
// v1.9.3), so every store is followed by a wait. The running max starts at
// 0, as KERNELS.md says of the measured generator. Name "softmax_rep<N>_k".
codeobj::CodeObject softmax_replica(int columns_per_lane);

// flash_dec_part_k as section 15 describes it, for head_dim `dh` (64 or
// 128) and per-lane batches of `batch` loads (4 before v1.9.8, 8 after).
// Args as KERNELS.md (po, pm, pl, q, kt, v, n_kv, dh, pad, max_len, cshift,
// inv, vstride); grid = heads << cshift, wg = 64; workgroup -> head, split,
// rows [s R, min(s R + R, n_kv)) with R = pad >> cshift (only rows that
// exist, v1.9.4). Score pass: per 64-row block (lane = row) the d loop over
// kt[h][d][j], `batch` loads per wait (16 waits per 64 rows at head_dim 64
// and batch 4, as stated); scores to LDS, max and exp-sum over LDS. Output
// pass: lane = d, the j loop over v[j], batch / 2 rows per wait (32 waits
// per 64 rows at batch 4, as stated), each row's p_j read from LDS with the
// row's loads. Name "flash_dec_part_rep<dh>_<batch>_k".
codeobj::CodeObject part_replica(int dh, int batch);

// flash_dec_comb_k of v1.9.6 for head_dim `dh` (a multiple of 64, at most
// 128): grid = heads, wg = 64, lanes over d; args (out, po, pm, pl, dh,
// nsplit, inv). Two passes over the splits (the max M, then the weighted
// sums), each in groups of 4 splits with one wait per group and a tail path
// of one split per wait for the last 1...3. Name "flash_dec_comb_rep<dh>_k".
codeobj::CodeObject combine_replica(int dh);

}  // namespace k100::bench::validate
