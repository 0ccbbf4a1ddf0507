#include "k100/kernels/test_support.h"

#include <algorithm>

#include "k100/base/error.h"

namespace k100::kernels {

std::vector<float> Rng::uniform(size_t n, float lo, float hi) {
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen_);
  return v;
}

std::vector<float> Rng::normal(size_t n, float mean, float stddev) {
  std::normal_distribution<float> d(mean, stddev);
  std::vector<float> v(n);
  for (auto& x : v) x = d(gen_);
  return v;
}

std::vector<int32_t> Rng::integers(size_t n, int32_t lo, int32_t hi) {
  std::uniform_int_distribution<int32_t> d(lo, hi);
  std::vector<int32_t> v(n);
  for (auto& x : v) x = d(gen_);
  return v;
}

std::vector<uint8_t> Rng::bytes(size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = uint8_t(gen_());
  return v;
}

uint64_t hash_bytes(const void* data, size_t bytes, uint64_t seed) {
  // FNV-1a, 64-bit
  uint64_t h = 1469598103934665603ull ^ seed;
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < bytes; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

CaseResult compare(const std::vector<float>& got, const std::vector<float>& want, const Tolerance& tol) {
  CaseResult r;
  r.tolerance = tol;
  r.pass = got.size() == want.size();
  if (!r.pass) r.note = "output has " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
  size_t n = std::min(got.size(), want.size());
  size_t first_bad = SIZE_MAX;
  for (size_t i = 0; i < n; ++i) {
    float g = got[i], w = want[i];
    ++r.compared;
    if (std::isnan(w) || std::isnan(g)) {
      if (std::isnan(w) != std::isnan(g) && first_bad == SIZE_MAX) first_bad = i;
      continue;
    }
    if (std::isinf(w) || std::isinf(g)) {
      if (g != w && first_bad == SIZE_MAX) first_bad = i;
      continue;
    }
    double d = std::fabs(double(g) - double(w));
    r.max_abs = std::max(r.max_abs, d);
    if (std::fabs(w) > 1e-30) r.max_rel = std::max(r.max_rel, d / std::fabs(double(w)));
    if (d > tol.abs + tol.rel * std::fabs(double(w)) && first_bad == SIZE_MAX) first_bad = i;
  }
  if (first_bad != SIZE_MAX) {
    r.pass = false;
    r.note = "element " + std::to_string(first_bad) + ": got " + std::to_string(got[first_bad]) + ", expected " +
             std::to_string(want[first_bad]);
  }
  r.output_hash = hash_bytes(got.data(), got.size() * sizeof(float));
  return r;
}

template <class T>
static CaseResult compare_ints(const std::vector<T>& got, const std::vector<T>& want) {
  CaseResult r;
  r.tolerance = Tolerance{};
  r.pass = got.size() == want.size();
  if (!r.pass) r.note = "output has " + std::to_string(got.size()) + " elements, expected " + std::to_string(want.size());
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    ++r.compared;
    double d = std::fabs(double(got[i]) - double(want[i]));
    r.max_abs = std::max(r.max_abs, d);
    if (got[i] != want[i] && r.pass) {
      r.pass = false;
      r.note = "element " + std::to_string(i) + ": got " + std::to_string(got[i]) + ", expected " +
               std::to_string(want[i]);
    }
  }
  r.output_hash = hash_bytes(got.data(), got.size() * sizeof(T));
  return r;
}

CaseResult compare_exact(const std::vector<int32_t>& got, const std::vector<int32_t>& want) {
  return compare_ints(got, want);
}
std::vector<uint32_t> bits_of(const std::vector<float>& v) {
  std::vector<uint32_t> out(v.size());
  std::memcpy(out.data(), v.data(), v.size() * 4);
  return out;
}

CaseResult compare_exact_u32(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) {
  return compare_ints(got, want);
}

CaseResult compare_bits(const std::vector<float>& got, const std::vector<float>& want) {
  auto canonical = [](const std::vector<float>& v) {
    std::vector<uint32_t> b = bits_of(v);
    for (size_t i = 0; i < v.size(); ++i)
      if (std::isnan(v[i])) b[i] = 0x7fc00000u;
    return b;
  };
  return compare_exact_u32(canonical(got), canonical(want));
}

int64_t dim(const Case& c, const std::string& key, int64_t fallback) {
  auto it = c.dims.find(key);
  return it == c.dims.end() ? fallback : it->second;
}

namespace {
constexpr uint32_t kGuardBits = 0x7fc0deadu;
}  // namespace

std::vector<float> guarded(size_t n) { return std::vector<float>(n + kOutputGuardWords, std::bit_cast<float>(kGuardBits)); }

CaseResult split_guard(std::vector<float>& got, size_t n) {
  std::vector<uint32_t> tail(kOutputGuardWords), want(kOutputGuardWords, kGuardBits);
  std::memcpy(tail.data(), got.data() + n, kOutputGuardWords * 4);
  got.resize(n);
  CaseResult r = compare_exact_u32(tail, want);
  if (!r.pass) r.note = "wrote past the output (" + std::to_string(n) + " words): " + r.note;
  return r;
}

std::optional<CaseResult> expect_contract_refusal(TestDevice& dev, const std::string& lookup,
                                                  const std::map<std::string, int64_t>& sizes,
                                                  const std::string& rule) {
  CaseResult bad;
  try {
    (void)dev.launch_contract(lookup).evaluate(sizes);
    bad.note = "the launch contract of " + lookup + " accepted a shape that breaks '" + rule + "'";
  } catch (const Error& e) {
    if (std::string(e.what()).find(rule) != std::string::npos) return std::nullopt;
    bad.note = "the launch contract of " + lookup + " refused without naming '" + rule + "': " + e.what();
  }
  return bad;
}

CaseResult combine(const std::vector<CaseResult>& parts) {
  CaseResult r;
  r.pass = true;
  for (const auto& p : parts) {
    r.max_abs = std::max(r.max_abs, p.max_abs);
    r.max_rel = std::max(r.max_rel, p.max_rel);
    r.compared += p.compared;
    if (p.tolerance) r.tolerance = r.tolerance ? Tolerance::loosest(*r.tolerance, *p.tolerance) : *p.tolerance;
    if (!p.pass && r.pass) {
      r.pass = false;
      r.note = p.note;
    }
    r.output_hash = hash_bytes(&p.output_hash, 8, r.output_hash);
  }
  return r;
}

Case make_case(std::map<std::string, int64_t> dims, uint32_t seed) {
  Case c;
  c.dims = std::move(dims);
  c.seed = seed;
  return c;
}

std::vector<Case> case_table(const std::vector<std::string>& names, const std::vector<std::vector<int64_t>>& rows) {
  std::vector<Case> cases;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].size() != names.size())
      throw Error("case table: row " + std::to_string(i) + " has " + std::to_string(rows[i].size()) +
                  " values for " + std::to_string(names.size()) + " columns");
    Case c;
    c.seed = uint32_t(i + 1);
    for (size_t j = 0; j < names.size(); ++j) {
      if (names[j] == "seed")
        c.seed = uint32_t(rows[i][j]);
      else
        c.dims[names[j]] = rows[i][j];
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

}  // namespace k100::kernels
