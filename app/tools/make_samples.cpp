// kms-make-samples: writes the generated sample data into a folder (resources/samples in the
// repository): blobs-2d.csv and cloud-3d.ply. Deterministic: running it again reproduces the
// committed files. (The photo sample is a real photograph; see resources/samples/README.md.)
//
//   kms-make-samples resources/samples
#include <QDir>
#include <QGuiApplication>

#include <cmath>
#include <cstdio>

#include "io/export.h"
#include "io/generators.h"

namespace {

using kms::app::Dataset;
using kms::app::GeneratorKind;
using kms::app::GeneratorParams;

/// Each point takes its group's colour, lighter towards the top (z), so the cloud reads as
/// solid shapes in a viewer.
void colourByGroup(Dataset& cloud) {
  static const QRgb kPalette[] = {0xE4572E, 0x29335C, 0xF3A712, 0x4CB944, 0x8E44AD, 0x17BEBB};
  float lo = cloud.values[2], hi = lo;
  for (std::size_t i = 0; i < cloud.n; ++i)
    lo = std::min(lo, cloud.values[3 * i + 2]), hi = std::max(hi, cloud.values[3 * i + 2]);
  cloud.pointColours.resize(cloud.n);
  for (std::size_t i = 0; i < cloud.n; ++i) {
    const QRgb base = kPalette[cloud.groundTruth[i] % 6];
    const double light = 0.7 + 0.3 * (cloud.values[3 * i + 2] - lo) / std::max(hi - lo, 1e-6f);
    const auto channel = [&](int v) {
      return std::uint32_t(std::min(255.0, std::round(v * light)));
    };
    cloud.pointColours[i] =
        channel(qRed(base)) << 16 | channel(qGreen(base)) << 8 | channel(qBlue(base));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: kms-make-samples OUTPUT_DIR\n");
    return 1;
  }
  const QDir out(QString::fromLocal8Bit(argv[1]));
  if (!out.exists() && !QDir().mkpath(out.path())) {
    std::fprintf(stderr, "kms-make-samples: cannot create %s\n", argv[1]);
    return 1;
  }
  try {
    GeneratorParams blobs;  // the same set the GUI falls back to without the file
    blobs.kind = GeneratorKind::Blobs;
    blobs.n = 5000;
    blobs.groups = 5;
    blobs.noise = 0.08;
    blobs.seed = 7;
    kms::app::writePointsCsv(out.filePath("blobs-2d.csv"), *kms::app::generateDataset(blobs));

    GeneratorParams cloudParams;
    cloudParams.n = 20000;
    cloudParams.groups = 6;
    cloudParams.d = 3;
    cloudParams.noise = 0.1;
    cloudParams.seed = 3;
    Dataset cloud = *kms::app::generateDataset(cloudParams);
    colourByGroup(cloud);
    kms::app::writePointsPly(out.filePath("cloud-3d.ply"), cloud);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kms-make-samples: %s\n", e.what());
    return 1;
  }
  return 0;
}
