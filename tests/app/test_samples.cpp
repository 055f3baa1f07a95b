// The bundled samples (resources/samples) load, have the documented shape, and match the
// generators that made them (kms-make-samples).
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "io/generators.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

QString sample(const char* name) {
  return QStringLiteral(KMS_RESOURCES_DIR "/samples/") + QString::fromLatin1(name);
}

TEST(Samples, ThePhotoIsARealOpaquePhotographInTheCompactForm) {
  const DatasetPtr photo = loadOrFail(sample("tulip-field.png"));
  ASSERT_TRUE(photo);
  EXPECT_TRUE(photo->isImage());
  EXPECT_EQ(photo->width, 768);
  EXPECT_EQ(photo->height, 512);
  EXPECT_FALSE(photo->hasAlphaChannel());
  EXPECT_FALSE(photo->hasLeftOutItems());
  // A camera's colours: many distinct ones, yet fewer than pixels.
  EXPECT_EQ(photo->itemCount(), 768u * 512u);
  EXPECT_EQ(photo->n, 252851u);
  EXPECT_EQ(photo->clusteredItems(), 768u * 512u);
}

TEST(Samples, BlobsCsvMatchesItsGenerator) {
  const DatasetPtr blobs = loadOrFail(sample("blobs-2d.csv"));
  ASSERT_TRUE(blobs);
  GeneratorParams params;  // as in app/tools/make_samples.cpp
  params.n = 5000;
  params.groups = 5;
  params.noise = 0.08;
  params.seed = 7;
  const DatasetPtr expected = generateDataset(params);
  ASSERT_EQ(blobs->n, expected->n);
  ASSERT_EQ(blobs->d, 2);
  EXPECT_EQ(blobs->dimensionNames, (QStringList{"x", "y"}));
  // The file holds exact float round trips; allow for last-digit differences of another libm.
  for (std::size_t i = 0; i < blobs->values.size(); ++i)
    ASSERT_NEAR(blobs->values[i], expected->values[i], 1e-5) << "value " << i;
}

TEST(Samples, CloudPlyHasColouredPointsIn3D) {
  const DatasetPtr cloud = loadOrFail(sample("cloud-3d.ply"));
  ASSERT_TRUE(cloud);
  EXPECT_EQ(cloud->n, 20000u);
  EXPECT_EQ(cloud->d, 3);
  EXPECT_EQ(cloud->pointColours.size(), 20000u);
  EXPECT_GE(std::set<std::uint32_t>(cloud->pointColours.begin(), cloud->pointColours.end()).size(),
            6u);
}

}  // namespace
}  // namespace kms::app::test
