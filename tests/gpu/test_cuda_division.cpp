// The compact update's means on the device: each cluster's divisor taken once, every coordinate's
// quotient from its correctly rounded reciprocal with two corrections (exact::MeanDivisor,
// exact_math.h), which must be the IEEE division bit for bit — the device's __ddiv_rn and the
// host's a / b — on random quotients and on the adversarial ones: quotients within 2⁻²¹ ulp of a
// double's rounding midpoint, at the top and bottom of a binade, divisors next to powers of two
// (whose reciprocals sit at a binade's edge), and the largest sums.
#include <gtest/gtest.h>

#if KMS_HAVE_CUDA
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "common/exact_math.h"
#include "cuda/kernels/exact_checks.cuh"
#include "gpu_test_support.h"

namespace kms {
namespace {

struct Quotients {
  std::vector<std::int64_t> sum_q, sum_w;
  std::vector<int> coord_exp;
  void add(std::int64_t q, int e, std::int64_t w) {
    sum_q.push_back(q);
    coord_exp.push_back(e);
    sum_w.push_back(w);
  }
};

std::uint64_t bits(double x) {
  std::uint64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

Quotients adversarialQuotients() {
  Quotients cases;
  std::mt19937_64 rng(2026);
  std::uniform_int_distribution<int> exponent(-120, 160);
  // Random sums and counts over the whole range.
  std::uniform_int_distribution<std::int64_t> any_sum(-(std::int64_t(1) << 62), std::int64_t(1)
                                                                                    << 62);
  for (int i = 0; i < 400000; ++i) {
    const int bits_w = 1 + static_cast<int>(rng() % 62);
    const std::int64_t w = 1 + static_cast<std::int64_t>(rng() >> (64 - bits_w));
    cases.add(any_sum(rng), exponent(rng), w);
  }
  // Quotients within 1/(2b) of an ulp of a double's rounding midpoint (2⁻²¹ ulp and closer), the
  // cases a division's last correction decides: for an odd b < 2^26, a ≡ ((b ± 1)/2)·2^−27
  // (mod b), so that a·2^27 / b has the fractional part 1/2 ± 1/(2b), and a/b in [2^25, 2^26) —
  // 27 bits past its binary point fill a double's 53 — with a < 2^52 exact in a double.
  for (int i = 0; i < 400000; ++i) {
    const std::uint64_t b =
        ((std::uint64_t(1) << 20) + rng() % ((std::uint64_t(1) << 26) - (1 << 20))) | 1u;
    std::uint64_t inverse = 1;  // 2^−27 mod b: (b + 1)/2 is 2's inverse
    for (int e = 0; e < 27; ++e)
      inverse = inverse * ((b + 1) / 2) % b;
    const std::uint64_t half = i % 2 ? (b + 1) / 2 : (b - 1) / 2;
    const std::uint64_t a0 = half * inverse % b;
    const std::uint64_t j = (std::uint64_t(1) << 25) + rng() % (std::uint64_t(1) << 25);
    const auto a = static_cast<std::int64_t>(a0 + j * b);
    cases.add(i % 4 < 2 ? a : -a, exponent(rng), static_cast<std::int64_t>(b));
  }
  // Divisors next to powers of two, quotients at the top and bottom of a binade.
  for (int k = 1; k < 62; ++k) {
    const std::int64_t p = std::int64_t(1) << k;
    for (const std::int64_t b : {p - 1, p, p + 1}) {
      if (b < 1) continue;
      for (int j = 0; j < 40; ++j) {
        const std::int64_t top = b * 2 - 1 - static_cast<std::int64_t>(rng() % 3);  // a/b → 2⁻
        const std::int64_t bottom = b + static_cast<std::int64_t>(rng() % 3);       // a/b → 1⁺
        const int e = exponent(rng);
        if (top < (std::int64_t(1) << 62)) cases.add(top, e, b);
        cases.add(bottom, e, b);
        cases.add(static_cast<std::int64_t>(rng() >> 2), e, b);
      }
    }
  }
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  for (const std::int64_t w : {std::int64_t(1), std::int64_t(3), big, big - 1, big / 3})
    for (const std::int64_t q : {std::int64_t(0), std::int64_t(1), -std::int64_t(1), big, -big})
      cases.add(q, 0, w);
  return cases;
}

TEST(CudaDivision, CorrectedReciprocalIsTheIeeeQuotient) {
  KMS_REQUIRE_CUDA();
  const Quotients cases = adversarialQuotients();
  std::vector<double> divided, corrected;
  std::vector<float> means;
  cuda::deviceMeanQuotients(cases.sum_q, cases.coord_exp, cases.sum_w, divided, corrected, means);
  ASSERT_EQ(corrected.size(), cases.sum_q.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < cases.sum_q.size() && wrong < 10; ++i) {
    const double num = static_cast<double>(cases.sum_q[i]) * std::ldexp(1.0, -cases.coord_exp[i]);
    const double host = num / static_cast<double>(cases.sum_w[i]);
    const float mean = exact::meanFromSums(cases.sum_q[i], cases.coord_exp[i], cases.sum_w[i], 0);
    const bool same = bits(corrected[i]) == bits(host) && bits(divided[i]) == bits(host) &&
                      std::memcmp(&means[i], &mean, sizeof mean) == 0;
    if (!same) {
      ++wrong;
      ADD_FAILURE() << "sum_q " << cases.sum_q[i] << ", coord_exp " << cases.coord_exp[i]
                    << ", sum_w " << cases.sum_w[i] << ": host " << host << ", __ddiv_rn "
                    << divided[i] << ", corrected " << corrected[i];
    }
  }
  EXPECT_EQ(wrong, 0u);
}

}  // namespace
}  // namespace kms
#endif
