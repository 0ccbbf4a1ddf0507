// Host references of the sequence-model kernels (seq_reference.h).
#include "seq_reference.h"

#include <algorithm>
#include <cmath>

namespace k100::kernels::seq {

double carried_row(const std::vector<float>& prev, const std::vector<float>& in, int64_t C, int64_t K, int64_t z,
                   int64_t c) {
  return z < K - 1 ? double(prev[size_t(z * C + c)]) : double(in[size_t((z - (K - 1)) * C + c)]);
}

std::vector<float> conv1d_silu_reference(const std::vector<float>& in, const std::vector<float>& w,
                                         const std::vector<float>& state, int64_t T, int64_t C, int64_t K) {
  std::vector<float> out(size_t(T * C));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t c = 0; c < C; ++c) {
      double acc = 0;
      for (int64_t j = 0; j < K; ++j) acc += double(w[size_t(c * K + j)]) * carried_row(state, in, C, K, t + j, c);
      out[size_t(t * C + c)] = float(acc / (1.0 + std::exp(-acc)));
    }
  return out;
}

std::vector<float> conv_state_reference(const std::vector<float>& prev, const std::vector<float>& in, int64_t T,
                                        int64_t C, int64_t K) {
  std::vector<float> state(size_t((K - 1) * C));
  for (int64_t r = 0; r < K - 1; ++r)
    for (int64_t c = 0; c < C; ++c) state[size_t(r * C + c)] = float(carried_row(prev, in, C, K, T + r, c));
  return state;
}

std::vector<float> conv_snap_reference(const std::vector<float>& prev, const std::vector<float>& in, int64_t T,
                                       int64_t C, int64_t K) {
  std::vector<float> snap(size_t(T * (K - 1) * C));
  for (int64_t t = 0; t < T; ++t)
    for (int64_t r = 0; r < K - 1; ++r)
      for (int64_t c = 0; c < C; ++c)
        snap[size_t((t * (K - 1) + r) * C + c)] = float(carried_row(prev, in, C, K, t + 1 + r, c));
  return snap;
}

double softplus(double x) { return x > 20 ? x : std::log1p(std::exp(x)); }

GateOutputs ssm_gate_reference(const std::vector<float>& wa, const std::vector<float>& wb, const std::vector<float>& x,
                               const std::vector<float>& dt, const std::vector<float>& alog, int64_t T, int64_t Hv,
                               int64_t K) {
  GateOutputs o;
  o.gab.resize(size_t(T * Hv));
  o.beta.resize(o.gab.size());
  o.gg.resize(o.gab.size());
  for (int64_t t = 0; t < T; ++t)
    for (int64_t h = 0; h < Hv; ++h) {
      double a = 0, b = 0;
      for (int64_t i = 0; i < K; ++i) {
        a += double(wa[size_t(h * K + i)]) * x[size_t(t * K + i)];
        b += double(wb[size_t(h * K + i)]) * x[size_t(t * K + i)];
      }
      const size_t o_i = size_t(t * Hv + h);
      o.gab[o_i] = float(a);
      o.beta[o_i] = float(1.0 / (1.0 + std::exp(-b)));
      o.gg[o_i] = float(-std::exp(double(alog[size_t(h)])) * softplus(a + dt[size_t(h)]));
    }
  return o;
}

size_t state_index(StateLayout layout, int64_t D, int64_t h, int64_t i, int64_t col) {
  return size_t(h * D * D + (layout == StateLayout::ColumnI ? col * D + i : i * D + col));
}

std::vector<float> gdn_reference(const GdnShape& s, const std::vector<float>& q, const std::vector<float>& k,
                                 const std::vector<float>& v, const std::vector<float>& g,
                                 const std::vector<float>& beta, std::vector<float>& state, StateLayout layout,
                                 std::vector<float>* snap) {
  const int64_t D = s.D;
  std::vector<float> out(size_t(s.T * s.Hv * D));
  if (snap) snap->assign(size_t(s.T * s.Hv * D * D), 0.f);
  std::vector<double> S(static_cast<size_t>(D * D)), u(static_cast<size_t>(D));  // S[i * D + col]
  const double inv_sqrt_d = 1.0 / std::sqrt(double(D));
  for (int64_t h = 0; h < s.Hv; ++h) {
    const int64_t kh = s.key_head(h);
    for (int64_t i = 0; i < D; ++i)
      for (int64_t col = 0; col < D; ++col) S[size_t(i * D + col)] = state[state_index(layout, D, h, i, col)];
    for (int64_t t = 0; t < s.T; ++t) {
      const float* kt = &k[size_t((t * s.Hk + kh) * D)];
      const float* qt = &q[size_t((t * s.Hk + kh) * D)];
      const float* vt = &v[size_t((t * s.Hv + h) * D)];
      const double decay = std::exp(double(g[size_t(t * s.Hv + h)])), b = beta[size_t(t * s.Hv + h)];
      for (double& e : S) e *= decay;
      for (int64_t col = 0; col < D; ++col) {
        double kv = 0;
        for (int64_t i = 0; i < D; ++i) kv += S[size_t(i * D + col)] * kt[i];
        u[size_t(col)] = b * (vt[col] - kv);
      }
      for (int64_t i = 0; i < D; ++i)
        for (int64_t col = 0; col < D; ++col) S[size_t(i * D + col)] += double(kt[i]) * u[size_t(col)];
      for (int64_t col = 0; col < D; ++col) {
        double o = 0;
        for (int64_t i = 0; i < D; ++i) o += S[size_t(i * D + col)] * qt[i];
        out[size_t((t * s.Hv + h) * D + col)] = float(o * inv_sqrt_d);
      }
      if (snap)
        for (int64_t i = 0; i < D; ++i)
          for (int64_t col = 0; col < D; ++col)
            (*snap)[size_t(t * s.Hv * D * D) + state_index(layout, D, h, i, col)] = float(S[size_t(i * D + col)]);
    }
    for (int64_t i = 0; i < D; ++i)
      for (int64_t col = 0; col < D; ++col) state[state_index(layout, D, h, i, col)] = float(S[size_t(i * D + col)]);
  }
  return out;
}

DecodeOutputs gdn_decode_reference(const DecodeInputs& in, int64_t Hk, int64_t Hv, int64_t K, int64_t rep, bool khmod,
                                   float eps) {
  const int64_t D = 128, C = 2 * Hk * D + Hv * D;
  DecodeOutputs o;
  const std::vector<float> conv = conv1d_silu_reference(in.qkv, in.conv_w, in.conv_in, 1, C, K);
  o.conv_out = conv_state_reference(in.conv_in, in.qkv, 1, C, K);
  std::vector<float> q(conv.begin(), conv.begin() + Hk * D), kk(conv.begin() + Hk * D, conv.begin() + 2 * Hk * D),
      v(conv.begin() + 2 * Hk * D, conv.end());
  for (auto* x : {&q, &kk})
    for (int64_t r = 0; r < Hk; ++r) {
      double ss = 0;
      for (int64_t i = 0; i < D; ++i) ss += double((*x)[size_t(r * D + i)]) * (*x)[size_t(r * D + i)];
      const double scale = 1.0 / std::max(std::sqrt(ss), double(eps));
      for (int64_t i = 0; i < D; ++i) (*x)[size_t(r * D + i)] = float((*x)[size_t(r * D + i)] * scale);
    }
  std::vector<float> g(static_cast<size_t>(Hv)), beta(static_cast<size_t>(Hv));
  for (int64_t h = 0; h < Hv; ++h) {
    g[size_t(h)] = float(double(in.ssm_a[size_t(h)]) * softplus(double(in.a[size_t(h)]) + in.dt[size_t(h)]));
    beta[size_t(h)] = float(1.0 / (1.0 + std::exp(-double(in.b[size_t(h)]))));
  }
  o.state = in.state;
  const GdnShape shape{1, Hk, Hv, D, [=](int64_t h) { return khmod ? h % Hk : h / rep; }};
  o.out = gdn_reference(shape, q, kk, v, g, beta, o.state, StateLayout::IColumn);
  return o;
}

std::vector<float> gated_rmsnorm_reference(const std::vector<float>& x, const std::vector<float>& w,
                                           const std::vector<float>& gate, int64_t rows, int64_t D, float eps) {
  std::vector<float> y(size_t(rows * D));
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < D; ++i) ss += double(x[size_t(r * D + i)]) * x[size_t(r * D + i)];
    const double scale = 1.0 / std::sqrt(ss / double(D) + double(eps));
    for (int64_t i = 0; i < D; ++i) {
      const double g = gate[size_t(r * D + i)];
      y[size_t(r * D + i)] = float(double(x[size_t(r * D + i)]) * scale * w[size_t(i)] * (g / (1.0 + std::exp(-g))));
    }
  }
  return y;
}

}  // namespace k100::kernels::seq
