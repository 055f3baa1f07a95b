// The principal axis the compact CUDA kernels sort centroids along: a unit vector along the
// data's direction of largest spread; degenerate data fall back to the first axis.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "common/principal_axis.h"

namespace kms {
namespace {

using Axis = std::array<float, kMaxAxisDims>;

float norm(const Axis& a) {
  float s = 0.0f;
  for (float v : a)
    s += v * v;
  return std::sqrt(s);
}

Axis firstAxis() {
  Axis a{};
  a[0] = 1.0f;
  return a;
}

TEST(PrincipalAxis, FollowsTheLongestSpreadOfAnElongatedCloud) {
  // Points along (1, 2, −2)/3 with small noise across it.
  std::mt19937 rng(3);
  std::normal_distribution<float> along(0.0f, 5.0f), across(0.0f, 0.1f);
  std::vector<float> p;
  for (int i = 0; i < 20000; ++i) {
    const float t = along(rng);
    p.insert(p.end(), {5.0f + t / 3.0f + across(rng), -1.0f + 2.0f * t / 3.0f + across(rng),
                       -2.0f * t / 3.0f + across(rng)});
  }
  const auto axis = principalAxis(p.data(), 20000, 3);
  EXPECT_NEAR(norm(axis), 1.0f, 1e-6f);
  const float cosine = std::fabs(axis[0] * 1.0f + axis[1] * 2.0f - axis[2] * 2.0f) / 3.0f;
  EXPECT_GT(cosine, 0.999f);
  EXPECT_EQ(axis[3], 0.0f);
}

TEST(PrincipalAxis, SamplesLargeDataEvenly) {
  // Only every m-th row is read for a sample of 1,000: the axis is still the spread's.
  std::vector<float> p;
  for (int i = 0; i < 100000; ++i)
    p.insert(p.end(), {0.5f, float(i % 1000) / 1000.0f});  // spread along y only
  const auto axis = principalAxis(p.data(), 100000, 2, 1000);
  EXPECT_NEAR(std::fabs(axis[1]), 1.0f, 1e-5f);
  EXPECT_NEAR(axis[0], 0.0f, 1e-5f);
}

TEST(PrincipalAxis, SixteenDimensions) {
  // Spread along coordinate 11 of 16.
  std::vector<float> p;
  for (int i = 0; i < 5000; ++i)
    for (int c = 0; c < 16; ++c)
      p.push_back(c == 11 ? float(i % 100) : 0.01f * float((i * 7 + c) % 3));
  const auto axis = principalAxis(p.data(), 5000, 16);
  EXPECT_GT(std::fabs(axis[11]), 0.999f);
  EXPECT_NEAR(norm(axis), 1.0f, 1e-6f);
}

TEST(PrincipalAxis, DegenerateDataGiveTheFirstAxis) {
  const std::vector<float> same(30, 0.25f);  // ten equal 3-D points
  EXPECT_EQ(principalAxis(same.data(), 10, 3), firstAxis());
  EXPECT_EQ(principalAxis(same.data(), 1, 3), firstAxis());
  EXPECT_EQ(principalAxis(same.data(), 5, 6), firstAxis());
  EXPECT_EQ(principalAxis(same.data(), 1, 30), firstAxis());  // beyond kMaxAxisDims
  const std::vector<float> line = {1.0f, 2.0f, 7.0f};
  const auto one_d = principalAxis(line.data(), 3, 1);
  EXPECT_NEAR(std::fabs(one_d[0]), 1.0f, 1e-6f);
}

}  // namespace
}  // namespace kms
