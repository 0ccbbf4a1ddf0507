// Host references of the sequence-model kernels, written from the formulas of
// the Gated DeltaNet layer (docs/SEQUENCE_KERNELS.md), in double precision and
// independent of how the kernels schedule their work.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace k100::kernels::seq {

// Row z of the carried sequence Z = prev (K-1 rows) followed by in (T rows),
// both [rows][C]: Z(z, c) = prev[z][c] for z < K-1, else in[z-(K-1)][c].
double carried_row(const std::vector<float>& prev, const std::vector<float>& in, int64_t C, int64_t K, int64_t z,
                   int64_t c);

// Causal depthwise convolution with carried state, then SiLU:
// out[t][c] = silu(sum_j w[c][j] * Z(t + j, c)), j < K, w [C][K], no bias.
std::vector<float> conv1d_silu_reference(const std::vector<float>& in, const std::vector<float>& w,
                                         const std::vector<float>& state, int64_t T, int64_t C, int64_t K);

// The conv state after the T rows of `in`: state[r][c] = Z(T + r, c), r < K-1;
// and the state after every token: snap[t][r][c] = Z(t + 1 + r, c).
std::vector<float> conv_state_reference(const std::vector<float>& prev, const std::vector<float>& in, int64_t T,
                                        int64_t C, int64_t K);
std::vector<float> conv_snap_reference(const std::vector<float>& prev, const std::vector<float>& in, int64_t T,
                                       int64_t C, int64_t K);

// The SSM gate for T tokens x [T][K] and Hv heads (wa, wb [Hv][K]):
// a = wa[h].x[t], b = wb[h].x[t]; gab[t][h] = a, beta[t][h] = sigmoid(b),
// gg[t][h] = -exp(alog[h]) * softplus(a + dt[h]).
struct GateOutputs {
  std::vector<float> gab, beta, gg;
};
double softplus(double x);
GateOutputs ssm_gate_reference(const std::vector<float>& wa, const std::vector<float>& wb, const std::vector<float>& x,
                               const std::vector<float>& dt, const std::vector<float>& alog, int64_t T, int64_t Hv,
                               int64_t K);

// Where element (i, col) of value head h's D x D delta-rule state lies:
// gdn_k's [Hv][col][i] or gdn_k2's [Hv][i][col].
enum class StateLayout { ColumnI, IColumn };
size_t state_index(StateLayout layout, int64_t D, int64_t h, int64_t i, int64_t col);

// The gated delta rule over T tokens, state updated in place (in `layout`):
// per token t and value head h (key head kh = key_head(h)), S the D x D state
// with S[i][col]:
//   S <- S * exp(g[t][h]);  u[col] = beta[t][h] * (v[t][h][col] - sum_i S[i][col] k[t][kh][i]);
//   S[i][col] += k[t][kh][i] * u[col];  out[t][h][col] = sum_i S[i][col] q[t][kh][i] / sqrt(D).
// q, k [T][Hk][D]; v, out [T][Hv][D]; g, beta [T][Hv]. With `snap`, the state
// after every token goes to snap[t] (Hv D x D blocks in `layout`).
struct GdnShape {
  int64_t T = 1, Hk = 1, Hv = 1, D = 128;
  std::function<int64_t(int64_t)> key_head;
};
std::vector<float> gdn_reference(const GdnShape& s, const std::vector<float>& q, const std::vector<float>& k,
                                 const std::vector<float>& v, const std::vector<float>& g,
                                 const std::vector<float>& beta, std::vector<float>& state, StateLayout layout,
                                 std::vector<float>* snap = nullptr);

// One decode step (one token) of a Gated DeltaNet layer with heads of 128,
// composed from the references above: the conv with SiLU over qkv and the
// carried rows, the roll of the conv state, the L2 norms of q and k
// (x / max(|x|, eps)), g = ssm_a softplus(a + dt), beta = sigmoid(b), and the
// delta rule on the [Hv][i][col] state (key head h % Hk when khmod, else h / rep).
struct DecodeInputs {
  std::vector<float> qkv, conv_in, conv_w, a, b, dt, ssm_a, state;
};
struct DecodeOutputs {
  std::vector<float> out, state, conv_out;
};
DecodeOutputs gdn_decode_reference(const DecodeInputs& in, int64_t Hk, int64_t Hv, int64_t K, int64_t rep, bool khmod,
                                   float eps);

// The gated RMSNorm of `rows` rows of D: y = x (sum x^2 / D + eps)^(-1/2) w silu(gate), silu(g) = g / (1 + e^-g).
std::vector<float> gated_rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& w,
                                           const std::vector<float>& gate, int64_t rows, int64_t D, float eps);

}  // namespace k100::kernels::seq
