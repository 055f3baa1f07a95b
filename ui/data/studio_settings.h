// What the window remembers between sessions (QSettings): geometry and dock layout, the run
// settings, the speed, and the view options. Tests point QSettings at a temporary folder.
#pragma once

class QMainWindow;

namespace kms::ui {

class ClusterViews;
class ControlsPanel;

struct PersistedParts {
  QMainWindow& window;
  ControlsPanel& controls;
  ClusterViews& views;
};

void restoreStudioSettings(const PersistedParts& parts);
void saveStudioSettings(const PersistedParts& parts);

}  // namespace kms::ui
