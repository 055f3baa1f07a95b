// Data at the ends of float's range, on every kernel family that settles rows by distance bounds
// (the compact row kernel, point tiles, the wide kernels): the bounds' relative margins hold only
// for normal floats, so squares that overflow or fall among the subnormals must never settle a
// row on a wrong label. Labels and centroids against the CPU backend, every iteration.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "support/compact_data.h"

namespace kms {
namespace {

struct Family {
  const char* name;
  int d;
  PointTiles tiles;
};

class BoundsAtFloatsEnds : public ::testing::TestWithParam<Family> {
 protected:
  TestingOptions options() const {
    TestingOptions o;
    o.cuda.point_tiles = GetParam().tiles;
    return o;
  }
};

// Centroids so far apart that the square of their distance overflows float: a half gap computed
// from that square must not become ∞ (it would settle every row whose own distance is finite).
// Iteration 1 puts the middle group with centroid 0 (its distance to centroid 1 overflows); the
// update brings centroid 1 to 2.5e19, nearer to that group than centroid 0 is — which the CPU
// sees, and so must the bounds.
TEST_P(BoundsAtFloatsEnds, FarApartCentroidsFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = GetParam().d;
  std::vector<float> p;
  auto row = [&](float x) {
    p.push_back(x);
    for (int c = 1; c < d; ++c)
      p.push_back(0.0f);
  };
  for (int i = 0; i < 1000; ++i)
    row(0.0f);
  for (int i = 0; i < 10; ++i)
    row(1.5e19f);
  for (int i = 0; i < 1000; ++i)
    row(2.5e19f);
  std::vector<float> start(2 * static_cast<std::size_t>(d), 0.0f);
  start[static_cast<std::size_t>(d)] = 4e19f;
  test::expectSameTrajectory(DataView{p.data(), p.size() / d, d}, test::givenCentroids(start, 2), 6,
                             options());
}

// Coordinates around 1e-20, whose squares are float subnormals: relative rounding bounds do not
// hold there, so no bound may settle a row and every near tie is re-ranked exactly.
TEST_P(BoundsAtFloatsEnds, TinyCoordinatesFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = GetParam().d, k = 12;
  auto p = test::levelPoints(30000, d, 9, 31);
  for (float& v : p)
    v *= 1e-20f;
  const auto start = test::uniformPoints(std::size_t(k), d, 8, 0.0f, 1e-20f);
  test::expectSameTrajectory(DataView{p.data(), p.size() / d, d}, test::givenCentroids(start, k),
                             12, options());
}

INSTANTIATE_TEST_SUITE_P(Kernels, BoundsAtFloatsEnds,
                         ::testing::Values(Family{"rows_d3", 3, PointTiles::Never},
                                           Family{"tiles_d3", 3, PointTiles::Always},
                                           Family{"rows_d9", 9, PointTiles::Never},
                                           Family{"wide_d32", 32, PointTiles::Never},
                                           Family{"wide_d40", 40, PointTiles::Never}),
                         [](const ::testing::TestParamInfo<Family>& info) {
                           return std::string(info.param.name);
                         });

}  // namespace
}  // namespace kms
