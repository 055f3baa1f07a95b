// Principal components for the views (core/principal_components.h): the axes of known data,
// their order, signs and shares of the variance; the same bits every time; the projected data
// set the views draw; what is refused.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/principal_components.h"

namespace kms::app::test {
namespace {

/// n points along the direction u in d = 5 (spread 10), with noise 0.1 in every coordinate.
DatasetPtr alongALine(std::size_t n) {
  auto data = std::make_shared<Dataset>();
  data->n = n;
  data->d = 5;
  const double u[5] = {1, 2, 0, -1, 3};
  const double norm = std::sqrt(15.0);
  std::mt19937 rng{7};
  std::normal_distribution<double> along(0.0, 10.0), noise(0.0, 0.1);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = along(rng);
    for (int c = 0; c < 5; ++c)
      data->values.push_back(float(4.0 + t * u[c] / norm + noise(rng)));
  }
  return data;
}

TEST(PrincipalComponents, FindTheLineItsShareAndAFixedSign) {
  const DatasetPtr data = alongALine(20000);
  const PrincipalComponents pcs = principalComponents(*data, 3);
  ASSERT_EQ(pcs.m, 3);
  ASSERT_EQ(pcs.axes.size(), 15u);
  const double u[5] = {1, 2, 0, -1, 3};
  double dot = 0.0;
  for (int c = 0; c < 5; ++c)
    dot += pcs.axes[std::size_t(c)] * u[c] / std::sqrt(15.0);
  EXPECT_GT(dot, 0.9999) << "PC1 is the line, its largest coordinate (the fifth) positive";
  EXPECT_GT(pcs.explained[0], 0.99);
  EXPECT_GE(pcs.explained[0], pcs.explained[1]);
  EXPECT_GE(pcs.explained[1], pcs.explained[2]);
  for (int a = 0; a < 3; ++a) {
    double norm = 0.0, largest = 0.0;
    for (int c = 0; c < 5; ++c) {
      const double v = pcs.axes[std::size_t(a) * 5 + c];
      norm += v * v;
      if (std::fabs(v) > std::fabs(largest)) largest = v;
    }
    EXPECT_NEAR(norm, 1.0, 1e-12);
    EXPECT_GT(largest, 0.0) << "axis " << a;
  }
  EXPECT_NEAR(pcs.mean[0], 4.0, 0.2);
  const PrincipalComponents again = principalComponents(*data, 3);
  EXPECT_EQ(again.axes, pcs.axes) << "the same bits every time";
  EXPECT_EQ(again.explained, pcs.explained);
}

TEST(PrincipalComponents, ProjectedDataSetForTheViews) {
  const DatasetPtr data = alongALine(3000);
  const PrincipalComponents pcs = principalComponents(*data, 3);
  const DatasetPtr shown = projectedDataset(*data, pcs);
  EXPECT_TRUE(shown->displayOnly);
  EXPECT_EQ(shown->d, 3);
  EXPECT_EQ(shown->n, data->n);
  ASSERT_EQ(shown->dimensionNames.size(), 3);
  EXPECT_TRUE(shown->dimensionNames[0].startsWith(QStringLiteral("PC1 (")));
  EXPECT_TRUE(shown->dimensionNames[0].endsWith(QStringLiteral(" %)")));
  float one[3];
  pcs.project(&data->values[5 * 17], one);
  for (int a = 0; a < 3; ++a)
    EXPECT_EQ(shown->values[17 * 3 + std::size_t(a)], one[a]);
  const std::vector<float> centroids(data->values.begin(), data->values.begin() + 10);
  EXPECT_EQ(pcs.project(centroids).size(), 6u);
}

TEST(PrincipalComponents, RefusesPicturesNoDataAndTooManyDimensions) {
  Dataset picture;
  picture.kind = DatasetKind::Image;
  picture.n = 4;
  picture.d = 3;
  picture.values.assign(12, 0.5f);
  EXPECT_THROW(principalComponents(picture), std::invalid_argument);
  Dataset empty;
  empty.d = 4;
  EXPECT_THROW(principalComponents(empty), std::invalid_argument);
  Dataset wide;
  wide.n = 2;
  wide.d = kMaxPrincipalDims + 1;
  wide.values.assign(std::size_t(2 * wide.d), 1.0f);
  EXPECT_THROW(principalComponents(wide), std::invalid_argument);
}

}  // namespace
}  // namespace kms::app::test
