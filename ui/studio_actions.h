// Every QAction of the window with its text, shortcut, icon and tooltip, and the menus and
// tool bar built from them. MainWindow connects them; ControlsPanel shows some as buttons.
#pragma once

#include <QList>

class QAction;
class QActionGroup;
class QMainWindow;
class QMenu;
class QToolBar;

namespace kms::ui {

struct StudioActions {
  explicit StudioActions(QMainWindow* window);

  // File
  QAction* open;
  QMenu* recentMenu;
  QMenu* samplesMenu;
  QList<QAction*> samples;  // data() is the sample id
  QAction* generate;
  /// File ▸ Follow a Run…: a live report another process writes (MainWindow::followRun).
  QAction* follow;
  QAction* openTrace;  // a run traced elsewhere against exact Lloyd (TraceWindow)
  QAction* quit;
  // Export
  QMenu* exportMenu;
  QAction* exportImage;
  QAction* exportPalette;
  QAction* exportLabels;
  QAction* exportCentroids;
  QAction* exportReport;
  QAction* exportTimingChart;
  QAction* exportConvergenceChart;
  QAction* exportWindow;
  QAction* exportAnimation;  // the run as a GIF, WebP or MP4 clip
  QAction* exportTrace;      // the run as a trace folder
  // Run
  QAction* playPause;
  QAction* step;       // half an iteration: assign, then update (→)
  QAction* stepWhole;  // a whole iteration (Shift+→)
  QAction* stepBack;   // back half an iteration through the run's history (←)
  QAction* reset;
  QAction* flatOut;
  QAction* sweep;    // k sweep dialog
  QAction* compare;  // two initialisations side by side
  // View
  QMenu* viewMenu;
  QAction* resetLayout;
  QAction* presentation;  // checkable: large drawing and text for projectors
  // Help
  QAction* about;
  QAction* aboutQt;

  QToolBar* toolBar;

  /// Play ↔ Pause text, icon and tooltip.
  void showPlaying(bool playing);
};

}  // namespace kms::ui
