// The application's icons, painted in code so they are crisp at every scale and need no image
// plug-in (the SVG plug-in is not always installed).
#pragma once

#include <QIcon>

namespace kms::ui {

enum class IconKind {
  Open,
  Sample,
  Generate,
  Play,
  Pause,
  Step,
  StepBack,
  Reset,
  Export,
  Fit,
  ActualSize,
  App,
};

QIcon icon(IconKind kind);

}  // namespace kms::ui
