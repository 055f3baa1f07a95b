#include "data/sample_catalog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace kms::ui {
namespace {

std::vector<Sample> buildCatalog() {
  auto tr = [](const char* text) { return QCoreApplication::translate("Samples", text); };
  std::vector<Sample> list;

  Sample photo;
  photo.id = QStringLiteral("photo");
  photo.title = tr("Tulip field (photo)");
  photo.description = tr("Quantise a photograph's colours: k = 16 gives a poster-like palette");
  photo.fileNames = {QStringLiteral("tulip-field.png")};
  photo.k = 16;
  list.push_back(photo);

  Sample blobs;
  blobs.id = QStringLiteral("blobs");
  blobs.title = tr("2-D blobs");
  blobs.description = tr("Five Gaussian blobs in the plane: watch the centroids find them");
  blobs.fileNames = {QStringLiteral("blobs-2d.csv"), QStringLiteral("blobs.csv"),
                     QStringLiteral("blobs2d.csv")};
  blobs.k = 5;
  kms::app::GeneratorParams blobParams;
  blobParams.kind = kms::app::GeneratorKind::Blobs;
  blobParams.n = 20000;
  blobParams.groups = 5;
  blobParams.d = 2;
  blobParams.noise = 0.08;
  blobParams.seed = 7;
  blobs.fallback = blobParams;
  list.push_back(blobs);

  Sample cloud;
  cloud.id = QStringLiteral("cloud");
  cloud.title = tr("3-D point cloud");
  cloud.description = tr("A point cloud in three dimensions: orbit it while k-means runs");
  cloud.fileNames = {QStringLiteral("cloud-3d.ply"), QStringLiteral("cloud.ply"),
                     QStringLiteral("cloud3d.ply")};
  cloud.k = 6;
  kms::app::GeneratorParams cloudParams;
  cloudParams.kind = kms::app::GeneratorKind::Blobs;
  cloudParams.n = 30000;
  cloudParams.groups = 6;
  cloudParams.d = 3;
  cloudParams.noise = 0.1;
  cloudParams.seed = 3;
  cloud.fallback = cloudParams;
  list.push_back(cloud);

  // The textbook cases where k-means struggles, generated (nothing to ship).
  struct Teaching {
    const char* id;
    const char* title;
    kms::app::GeneratorKind kind;
    int groups;
    double noise;
    int k;
  };
  using kms::app::GeneratorKind;
  const Teaching teaching[] = {
      {"anisotropic", QT_TRANSLATE_NOOP("Samples", "Stretched blobs"), GeneratorKind::Anisotropic,
       3, 0.14, 3},
      {"unequal-variances", QT_TRANSLATE_NOOP("Samples", "Blobs of unequal spread"),
       GeneratorKind::UnequalVariances, 3, 0.2, 3},
      {"unequal-sizes", QT_TRANSLATE_NOOP("Samples", "Blobs of unequal size"),
       GeneratorKind::UnequalSizes, 3, 0.3, 3},
      {"rings", QT_TRANSLATE_NOOP("Samples", "Rings"), GeneratorKind::Rings, 2, 0.04, 2},
      {"moons", QT_TRANSLATE_NOOP("Samples", "Two moons"), GeneratorKind::Moons, 2, 0.06, 2},
      {"uniform", QT_TRANSLATE_NOOP("Samples", "Uniform square (no clusters)"),
       GeneratorKind::Uniform, 1, 0.0, 4},
  };
  for (const Teaching& t : teaching) {
    Sample s;
    s.id = QString::fromLatin1(t.id);
    s.title = tr(t.title);
    s.description = kms::app::explanation(t.kind);
    s.k = t.k;
    kms::app::GeneratorParams params;
    params.kind = t.kind;
    params.n = 3000;
    params.groups = t.groups;
    params.d = 2;
    params.noise = t.noise;
    params.seed = 11;
    s.fallback = params;
    list.push_back(s);
  }
  return list;
}

}  // namespace

const std::vector<Sample>& samples() {
  static const std::vector<Sample> catalog = buildCatalog();
  return catalog;
}

const Sample* findSample(const QString& id) {
  for (const Sample& sample : samples())
    if (sample.id.compare(id, Qt::CaseInsensitive) == 0) return &sample;
  return nullptr;
}

QStringList sampleDirectories() {
  QStringList dirs;
  const QString env = qEnvironmentVariable("KMS_SAMPLES_DIR");
  if (!env.isEmpty()) dirs << env;
  const QString app = QCoreApplication::applicationDirPath();
  dirs << app + QStringLiteral("/samples")
       << app + QStringLiteral("/../share/kmeans-studio/samples")
       << QStringLiteral(KMS_SOURCE_SAMPLES_DIR);
  return dirs;
}

QString sampleFile(const Sample& sample) {
  for (const QString& dir : sampleDirectories()) {
    for (const QString& name : sample.fileNames) {
      const QFileInfo info(QDir(dir), name);
      if (info.isFile()) return info.absoluteFilePath();
    }
  }
  // Any file in the samples folder whose name starts with the sample id (e.g. "photo-…").
  for (const QString& dir : sampleDirectories()) {
    const QStringList found =
        QDir(dir).entryList({sample.id + QStringLiteral("*")}, QDir::Files, QDir::Name);
    if (!found.isEmpty()) return QDir(dir).absoluteFilePath(found.first());
  }
  return {};
}

}  // namespace kms::ui
