#include "studio_actions.h"

#include <QAction>
#include <QApplication>
#include <QMainWindow>
#include <QMenuBar>
#include <QToolBar>
#include <QToolButton>

#include "data/sample_catalog.h"
#include "widgets/icons.h"

namespace kms::ui {
namespace {

QAction* make(QObject* parent, const QString& text, const QString& tip,
              const QKeySequence& shortcut = {}, const QIcon& icon = {}) {
  auto* action = new QAction(icon, text, parent);
  action->setToolTip(tip + (shortcut.isEmpty() ? QString()
                                               : QStringLiteral(" (%1)").arg(
                                                     shortcut.toString(QKeySequence::NativeText))));
  action->setStatusTip(tip);
  if (!shortcut.isEmpty()) action->setShortcut(shortcut);
  return action;
}

}  // namespace

StudioActions::StudioActions(QMainWindow* window) {
  auto tr = [](const char* text) { return QApplication::translate("StudioActions", text); };

  open = make(window, tr("&Open…"), tr("Open a picture or a point file"), QKeySequence::Open,
              icon(IconKind::Open));
  recentMenu = new QMenu(tr("Open &Recent"), window);
  samplesMenu = new QMenu(tr("&Samples"), window);
  samplesMenu->setIcon(icon(IconKind::Sample));
  for (const Sample& sample : kms::ui::samples()) {
    QAction* action = samplesMenu->addAction(sample.title);
    action->setData(sample.id);
    action->setToolTip(sample.description);
    action->setStatusTip(sample.description);
    samples << action;
  }
  generate = make(window, tr("&Generate…"), tr("Make a synthetic point set (blobs, rings, moons…)"),
                  QKeySequence(Qt::CTRL | Qt::Key_G), icon(IconKind::Generate));
  follow = make(window, tr("&Follow a Run…"),
                tr("Watch a run another process makes (kmeans-cli --live-report, e.g. under "
                   "mpirun): its data, its iterations as they arrive, each rank's time"));
  quit = make(window, tr("&Quit"), tr("Close the window"), QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  exportMenu = new QMenu(tr("&Export"), window);
  exportMenu->setIcon(icon(IconKind::Export));
  exportImage = make(window, tr("Quantised &Image…"), tr("Save the recoloured picture (PNG)"),
                     QKeySequence(Qt::CTRL | Qt::Key_E));
  exportPalette =
      make(window, tr("&Palette…"), tr("Save the centroid colours as a GIMP palette or hex list"));
  exportLabels = make(window, tr("&Labels…"), tr("Save every point's cluster (CSV)"));
  exportCentroids =
      make(window, tr("&Centroids…"), tr("Save the centroids and cluster shares (CSV)"));
  exportReport = make(window, tr("Run &Report…"),
                      tr("Save settings, backend and per-iteration statistics (JSON)"));
  exportTimingChart = make(window, tr("&Timing Chart…"), tr("Save the timing chart as a picture"));
  exportConvergenceChart =
      make(window, tr("Con&vergence Chart…"), tr("Save the convergence chart as a picture"));
  exportWindow = make(window, tr("&Window Screenshot…"), tr("Save a picture of the whole window"));
  exportAnimation = make(window, tr("&Animation…"),
                         tr("Save the run as a clip for slides: GIF, WebP or MP4, iteration by "
                            "iteration"));
  exportMenu->addActions({exportImage, exportPalette, exportLabels, exportCentroids, exportReport});
  exportMenu->addSeparator();
  exportTrace = make(window, tr("T&race…"),
                     tr("Save the run's centroids and labels at every iteration as a trace "
                        "folder (docs/trace-format.md)"));
  exportMenu->addActions(
      {exportAnimation, exportTrace, exportTimingChart, exportConvergenceChart, exportWindow});

  playPause = make(window, tr("&Play"), tr("Run k-means"), QKeySequence(Qt::Key_Space),
                   icon(IconKind::Play));
  step = make(window, tr("&Step"),
              tr("Half an iteration: assign every point to its nearest centroid, then move the "
                 "centroids to the means"),
              QKeySequence(Qt::Key_Right), icon(IconKind::Step));
  stepWhole = make(window, tr("Step &Whole Iteration"), tr("Assign and update in one step"),
                   QKeySequence(Qt::SHIFT | Qt::Key_Right));
  stepBack = make(window, tr("Step &Back"), tr("Back half an iteration"),
                  QKeySequence(Qt::Key_Left), icon(IconKind::StepBack));
  reset = make(window, tr("&Reset"), tr("Back to the initial centroids"), QKeySequence(Qt::Key_R),
               icon(IconKind::Reset));
  flatOut = make(window, tr("&Flat Out"), tr("Run as fast as possible (speed slider to the end)"),
                 QKeySequence(Qt::CTRL | Qt::Key_F));

  sweep = make(window, tr("&Which k?…"),
               tr("Cluster for a range of k and compare inertia (elbow), silhouette, "
                  "Calinski–Harabasz and Davies–Bouldin"),
               QKeySequence(Qt::CTRL | Qt::Key_K));
  compare = make(window, tr("&Compare Initialisations…"),
                 tr("Two set-ups side by side on the same data, stepped together"),
                 QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
  resetLayout = make(window, tr("Reset &Layout"), tr("Put the panels back where they started"));
  presentation = make(window, tr("&Presentation Mode"),
                      tr("Larger points, centroids, trails and text, for a projector"),
                      QKeySequence(Qt::Key_F5));
  presentation->setCheckable(true);
  about = make(window, tr("&About KMeans Studio"), tr("Version, backend and credits"));
  about->setMenuRole(QAction::AboutRole);
  aboutQt = make(window, tr("About &Qt"), tr("The Qt version in use"));
  aboutQt->setMenuRole(QAction::AboutQtRole);

  openTrace = make(window, tr("Open &Trace…"),
                   tr("Compare a run traced elsewhere (scikit-learn, FAISS, your own code) with "
                      "exact Lloyd on this data"));
  QMenuBar* bar = window->menuBar();
  QMenu* file = bar->addMenu(tr("&File"));
  file->addAction(open);
  file->addMenu(recentMenu);
  file->addMenu(samplesMenu);
  file->addAction(follow);
  file->addAction(openTrace);
  file->addAction(generate);
  file->addSeparator();
  file->addMenu(exportMenu);
  file->addSeparator();
  file->addAction(quit);
  QMenu* run = bar->addMenu(tr("&Run"));
  run->addActions({playPause, stepBack, step, stepWhole, reset});
  run->addSeparator();
  run->addAction(flatOut);
  run->addSeparator();
  run->addAction(sweep);
  run->addAction(compare);
  viewMenu = bar->addMenu(tr("&View"));
  QMenu* help = bar->addMenu(tr("&Help"));
  help->addActions({about, aboutQt});

  toolBar = window->addToolBar(tr("Main"));
  toolBar->setObjectName(QStringLiteral("mainToolBar"));
  toolBar->setMovable(false);
  toolBar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolBar->setIconSize(QSize(20, 20));
  toolBar->addAction(open);
  auto* samplesButton = new QToolButton(toolBar);
  samplesButton->setMenu(samplesMenu);
  samplesButton->setPopupMode(QToolButton::InstantPopup);
  samplesButton->setIcon(icon(IconKind::Sample));
  samplesButton->setText(tr("Samples"));
  samplesButton->setToolTip(tr("Open a built-in sample"));
  samplesButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolBar->addWidget(samplesButton);
  toolBar->addAction(generate);
  toolBar->addSeparator();
  toolBar->addActions({playPause, stepBack, step, reset});
  toolBar->addSeparator();
  auto* exportButton = new QToolButton(toolBar);
  exportButton->setMenu(exportMenu);
  exportButton->setPopupMode(QToolButton::InstantPopup);
  exportButton->setIcon(icon(IconKind::Export));
  exportButton->setText(tr("Export"));
  exportButton->setToolTip(
      tr("Save results: picture, palette, labels, centroids, report, an animation, charts"));
  exportButton->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toolBar->addWidget(exportButton);
  viewMenu->addAction(toolBar->toggleViewAction());
}

void StudioActions::showPlaying(bool playing) {
  const QString text = playing ? QApplication::translate("StudioActions", "&Pause")
                               : QApplication::translate("StudioActions", "&Play");
  playPause->setText(text);
  playPause->setIcon(icon(playing ? IconKind::Pause : IconKind::Play));
  playPause->setToolTip((playing ? QApplication::translate("StudioActions", "Pause the run")
                                 : QApplication::translate("StudioActions", "Run k-means")) +
                        QStringLiteral(" (Space)"));
}

}  // namespace kms::ui
