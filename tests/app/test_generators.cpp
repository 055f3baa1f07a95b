// Generators: shape, determinism, ground truth, layout, parameter checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "core/random.h"
#include "io/generators.h"

namespace kms::app {
namespace {

GeneratorParams params(GeneratorKind kind, std::size_t n = 1000, int groups = 4, int d = 2) {
  GeneratorParams p;
  p.kind = kind;
  p.n = n;
  p.groups = groups;
  p.d = d;
  p.seed = 7;
  return p;
}

TEST(Random, SameSeedSameSequenceDifferentSeedDifferentSequence) {
  Random a(42), b(42), c(43);
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
  }
}

TEST(Random, UniformAndNormalHaveTheRightMoments) {
  Random rng(1);
  constexpr int kCount = 200000;
  double sumU = 0, sumN = 0, sumN2 = 0;
  for (int i = 0; i < kCount; ++i) {
    const double u = rng.uniform();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sumU += u;
    const double z = rng.normal();
    sumN += z;
    sumN2 += z * z;
  }
  EXPECT_NEAR(sumU / kCount, 0.5, 0.01);
  EXPECT_NEAR(sumN / kCount, 0.0, 0.01);
  EXPECT_NEAR(sumN2 / kCount, 1.0, 0.02);
}

TEST(Generators, BlobsHaveTheRequestedShapeAndMetadata) {
  const DatasetPtr data = generateDataset(params(GeneratorKind::Blobs, 10000, 5, 2));
  EXPECT_EQ(data->n, 10000u);
  EXPECT_EQ(data->d, 2);
  EXPECT_EQ(data->values.size(), 20000u);
  EXPECT_EQ(data->groundTruth.size(), 10000u);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y"}));
  EXPECT_EQ(data->displayName, QStringLiteral("Blobs — 10,000 points, 5 groups"));
  EXPECT_EQ(data->source, QStringLiteral("generator:blobs"));
  EXPECT_EQ(data->kind, DatasetKind::Points);
  EXPECT_TRUE(data->weights.empty());
}

TEST(Generators, SameSeedGivesIdenticalDataDifferentSeedDoesNot) {
  for (GeneratorKind kind :
       {GeneratorKind::Blobs, GeneratorKind::Rings, GeneratorKind::Moons, GeneratorKind::Uniform}) {
    GeneratorParams p = params(kind);
    const DatasetPtr a = generateDataset(p);
    const DatasetPtr b = generateDataset(p);
    EXPECT_EQ(a->values, b->values) << toString(kind).toStdString();
    EXPECT_EQ(a->groundTruth, b->groundTruth);
    p.seed = 8;
    EXPECT_NE(generateDataset(p)->values, a->values) << toString(kind).toStdString();
  }
}

TEST(Generators, GroupsAreBalancedAndEveryGroupIsUsed) {
  const DatasetPtr data = generateDataset(params(GeneratorKind::Blobs, 1003, 4));
  std::vector<int> counts(4, 0);
  for (std::int32_t g : data->groundTruth) {
    ASSERT_GE(g, 0);
    ASSERT_LT(g, 4);
    ++counts[std::size_t(g)];
  }
  EXPECT_EQ(counts, (std::vector<int>{251, 251, 251, 250}));
}

TEST(Generators, BlobsInFiveDimensionsAreNamedAndSeparated) {
  GeneratorParams p = params(GeneratorKind::Blobs, 2000, 3, 5);
  p.noise = 0.02;
  const DatasetPtr data = generateDataset(p);
  EXPECT_EQ(data->d, 5);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y", "z", "x4", "x5"}));
  EXPECT_EQ(data->displayName, QStringLiteral("Blobs — 2,000 points, 3 groups, 5-D"));
  // With little noise, every point is much closer to its own group's mean than to the others'.
  std::vector<double> means(15, 0.0);
  for (std::size_t i = 0; i < data->n; ++i)
    for (int j = 0; j < 5; ++j)
      means[std::size_t(data->groundTruth[i] * 5 + j)] += data->values[i * 5 + std::size_t(j)];
  for (double& m : means)
    m /= double(data->n / 3);
  for (std::size_t i = 0; i < data->n; i += 37) {
    int nearest = -1;
    double best = INFINITY;
    for (int g = 0; g < 3; ++g) {
      double sq = 0;
      for (int j = 0; j < 5; ++j) {
        const double diff = data->values[i * 5 + std::size_t(j)] - means[std::size_t(g * 5 + j)];
        sq += diff * diff;
      }
      if (sq < best) best = sq, nearest = g;
    }
    EXPECT_EQ(nearest, data->groundTruth[i]) << "point " << i;
  }
}

TEST(Generators, RingsLieOnTheirRadius) {
  GeneratorParams p = params(GeneratorKind::Rings, 3000, 3);
  p.noise = 0.0;
  const DatasetPtr data = generateDataset(p);
  EXPECT_EQ(data->d, 2);
  EXPECT_EQ(data->displayName, QStringLiteral("Rings — 3,000 points, 3 rings"));
  for (std::size_t i = 0; i < data->n; ++i) {
    const double r = std::hypot(data->values[2 * i], data->values[2 * i + 1]);
    EXPECT_NEAR(r, (data->groundTruth[i] + 1) / 3.0, 1e-6);
  }
}

TEST(Generators, MoonsAreTwoInterleavedHalfCircles) {
  GeneratorParams p = params(GeneratorKind::Moons, 2000, 9, 7);  // groups and d are ignored
  p.noise = 0.0;
  const DatasetPtr data = generateDataset(p);
  EXPECT_EQ(data->d, 2);
  EXPECT_EQ(data->displayName, QStringLiteral("Moons — 2,000 points"));
  for (std::size_t i = 0; i < data->n; ++i) {
    const bool upper = data->groundTruth[i] == 0;
    ASSERT_TRUE(data->groundTruth[i] == 0 || data->groundTruth[i] == 1);
    // Undo the centring shift, then each moon is a half circle around its own centre.
    const double x = data->values[2 * i] + 0.5, y = data->values[2 * i + 1] + 0.25;
    const double cx = upper ? 0.0 : 1.0, cy = upper ? 0.0 : 0.5;
    EXPECT_NEAR(std::hypot(x - cx, y - cy), 1.0, 1e-5);
    EXPECT_TRUE(upper ? y >= -1e-6 : y <= 0.5 + 1e-6);
  }
}

TEST(Generators, UniformFillsTheCube) {
  const DatasetPtr data = generateDataset(params(GeneratorKind::Uniform, 5000, 1, 3));
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->displayName, QStringLiteral("Uniform — 5,000 points, 3-D"));
  EXPECT_EQ(std::set<std::int32_t>(data->groundTruth.begin(), data->groundTruth.end()),
            std::set<std::int32_t>{0});
  float lo = 1, hi = -1;
  for (float v : data->values)
    lo = std::min(lo, v), hi = std::max(hi, v);
  EXPECT_GE(lo, -1.0f);
  EXPECT_LE(hi, 1.0f);
  EXPECT_LT(lo, -0.99f);
  EXPECT_GT(hi, 0.99f);
}

TEST(Generators, RejectsImpossibleParameters) {
  GeneratorParams p = params(GeneratorKind::Blobs);
  p.n = 0;
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
  p = params(GeneratorKind::Blobs);
  p.groups = 0;
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
  p = params(GeneratorKind::Blobs);
  p.d = 0;
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
  p = params(GeneratorKind::Blobs);
  p.noise = -0.1;
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
  p.noise = NAN;
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
  p = params(GeneratorKind::Rings, 3, 4);
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
  p = params(GeneratorKind::Uniform, std::size_t(1) << 40, 1, 4);
  EXPECT_THROW(generateDataset(p), std::invalid_argument);
}

TEST(Generators, KindNamesRoundTrip) {
  for (GeneratorKind kind :
       {GeneratorKind::Blobs, GeneratorKind::Rings, GeneratorKind::Moons, GeneratorKind::Uniform,
        GeneratorKind::Photo, GeneratorKind::Anisotropic, GeneratorKind::UnequalVariances,
        GeneratorKind::UnequalSizes})
    EXPECT_EQ(parseGeneratorKind(toString(kind)), kind);
  EXPECT_EQ(parseGeneratorKind(QStringLiteral("MOONS")), GeneratorKind::Moons);
  EXPECT_EQ(parseGeneratorKind(QStringLiteral("spirals")), std::nullopt);
}

/// Per group: point count and the spread (root mean squared distance to the group mean) along
/// the group's longest and shortest axis (eigenvalues of its 2 × 2 covariance).
struct GroupShape {
  std::size_t count = 0;
  double longAxis = 0.0, shortAxis = 0.0;
};
std::vector<GroupShape> groupShapes(const Dataset& data, int groups) {
  std::vector<GroupShape> shapes(static_cast<std::size_t>(groups));
  std::vector<double> mx(static_cast<std::size_t>(groups)), my(static_cast<std::size_t>(groups));
  for (std::size_t i = 0; i < data.n; ++i) {
    const auto g = std::size_t(data.groundTruth[i]);
    ++shapes[g].count;
    mx[g] += data.values[2 * i];
    my[g] += data.values[2 * i + 1];
  }
  std::vector<double> sxx(static_cast<std::size_t>(groups)), syy(static_cast<std::size_t>(groups)),
      sxy(static_cast<std::size_t>(groups));
  for (std::size_t i = 0; i < data.n; ++i) {
    const auto g = std::size_t(data.groundTruth[i]);
    const double x = data.values[2 * i] - mx[g] / double(shapes[g].count);
    const double y = data.values[2 * i + 1] - my[g] / double(shapes[g].count);
    sxx[g] += x * x;
    syy[g] += y * y;
    sxy[g] += x * y;
  }
  for (std::size_t g = 0; g < shapes.size(); ++g) {
    const double c = double(shapes[g].count);
    const double a = sxx[g] / c, b = syy[g] / c, h = sxy[g] / c;
    const double mid = (a + b) / 2.0, r = std::sqrt((a - b) * (a - b) / 4.0 + h * h);
    shapes[g].longAxis = std::sqrt(mid + r);
    shapes[g].shortAxis = std::sqrt(std::max(0.0, mid - r));
  }
  return shapes;
}

TEST(Generators, TeachingCasesHaveTheirShapesAndExplanations) {
  GeneratorParams p;
  p.n = 6000;
  p.groups = 3;
  p.noise = 0.05;
  p.seed = 2;
  p.kind = GeneratorKind::Anisotropic;
  for (const GroupShape& s : groupShapes(*generateDataset(p), 3))
    EXPECT_GT(s.longAxis, 3.0 * s.shortAxis) << "stretched into ellipses";
  p.kind = GeneratorKind::UnequalVariances;
  const auto spreads = groupShapes(*generateDataset(p), 3);
  EXPECT_NEAR(spreads[0].longAxis, 0.4 * 0.05, 0.004);
  EXPECT_NEAR(spreads[1].longAxis, 1.0 * 0.05, 0.006);
  EXPECT_NEAR(spreads[2].longAxis, 2.5 * 0.05, 0.015);
  p.kind = GeneratorKind::UnequalSizes;
  const DatasetPtr sized = generateDataset(p);
  const auto sizes = groupShapes(*sized, 3);
  // Shares 1, 1/4, 1/9 of 49/36: 4408, 1102, 490.
  EXPECT_EQ(sizes[0].count, 4408u);
  EXPECT_EQ(sizes[1].count, 1102u);
  EXPECT_EQ(sizes[2].count, 490u);
  EXPECT_EQ(sized->d, 2);
  EXPECT_EQ(sized->displayName, QStringLiteral("Unequal sizes — 6,000 points, 3 groups"));
  EXPECT_EQ(generateDataset(p)->values, sized->values) << "deterministic";
  for (GeneratorKind kind :
       {GeneratorKind::Rings, GeneratorKind::Moons, GeneratorKind::Uniform,
        GeneratorKind::Anisotropic, GeneratorKind::UnequalVariances, GeneratorKind::UnequalSizes})
    EXPECT_FALSE(explanation(kind).isEmpty()) << toString(kind).toStdString();
  EXPECT_TRUE(explanation(GeneratorKind::Blobs).isEmpty());
}

TEST(Generators, PhotoIsASquareDeterministicImage) {
  GeneratorParams p;
  p.kind = GeneratorKind::Photo;
  p.n = 100 * 100 + 7;  // rounded to the nearest square
  p.seed = 4;
  const DatasetPtr a = generateDataset(p);
  ASSERT_TRUE(a->isImage());
  EXPECT_EQ(a->width, 100);
  EXPECT_EQ(a->height, 100);
  EXPECT_EQ(a->n, 10000u);
  EXPECT_EQ(a->d, 3);
  EXPECT_EQ(a->dimensionNames, (QStringList{"R", "G", "B"}));
  ASSERT_EQ(a->values.size(), 30000u);
  float lo = 1, hi = 0;
  std::set<float> reds;
  for (std::size_t i = 0; i < a->values.size(); ++i) {
    lo = std::min(lo, a->values[i]);
    hi = std::max(hi, a->values[i]);
    if (i % 3 == 0) reds.insert(a->values[i]);
  }
  EXPECT_GE(lo, 0.0f);
  EXPECT_LE(hi, 1.0f);
  EXPECT_GT(reds.size(), 1000u) << "a photo-like image has many distinct colours";
  EXPECT_EQ(generateDataset(p)->values, a->values);
  p.seed = 5;
  EXPECT_NE(generateDataset(p)->values, a->values);
}

}  // namespace
}  // namespace kms::app
