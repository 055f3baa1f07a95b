// The built-in samples: a photograph (tulip field), 2-D blobs and a 3-D cloud, with the k that suits
// each. Files come from resources/samples (next to the executable when installed, the source
// tree otherwise); when a point sample's file is missing the generator makes an equivalent.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <vector>

#include "io/generators.h"

namespace kms::ui {

struct Sample {
  QString id;             ///< "photo", "blobs", "cloud": what --sample takes
  QString title;          ///< menu text
  QString description;    ///< tooltip
  QStringList fileNames;  ///< candidates in the samples folder, first found wins
  int k = 5;
  /// Used when no file is found (point samples only).
  std::optional<kms::app::GeneratorParams> fallback;
};

const std::vector<Sample>& samples();
const Sample* findSample(const QString& id);

/// The sample's file, or an empty string when none of its candidates exists.
QString sampleFile(const Sample& sample);
/// The folders searched, in order (for error messages).
QStringList sampleDirectories();

}  // namespace kms::ui
