// The main window's dialogs: comparing initialisations, the k sweep, the generator, About,
// and a run started from centroids a dialog chose.
#include <QMessageBox>

#include "compare_dialog.h"
#include "controls_panel.h"
#include "generator_dialog.h"
#include "main_window.h"
#include "sweep_dialog.h"
#include "views/graphics_support.h"
#include "widgets/icons.h"
#include "widgets/message_bar.h"

namespace kms::ui {

CompareDialog* MainWindow::showCompareDialog() {
  const auto& data = session_->dataset();
  if (!data || data->isImage()) {
    messages_->showMessage(MessageBar::Level::Info,
                           tr("Comparing initialisations needs a point set: open or generate "
                              "one first."));
    return nullptr;
  }
  controls_->flushEdits();
  auto* dialog = new CompareDialog(data, controls_->settings(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->show();
  return dialog;
}

SweepDialog* MainWindow::showSweepDialog() {
  if (!session_->dataset()) {
    messages_->showMessage(MessageBar::Level::Info, tr("Open or generate data first."));
    return nullptr;
  }
  controls_->flushEdits();
  auto* dialog = new SweepDialog(session_->dataset(), controls_->settings(), this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &SweepDialog::kChosen, this, [this](int k) {
    session::RunSettings s = controls_->settings();
    s.config.k = k;
    if (s.config.init == kms::InitMethod::Given)
      s.config.init = kms::InitMethod::GreedyKMeansPlusPlus;
    s.config.initial_centroids.clear();
    controls_->setSettings(s);
    session_->setSettings(s);
  });
  dialog->show();
  return dialog;
}

void MainWindow::showGeneratorDialog() {
  GeneratorDialog dialog(this);
  dialog.setParams(lastGenerator_);
  if (dialog.exec() != QDialog::Accepted) return;
  const kms::app::GeneratorParams params = dialog.params();
  std::optional<int> k;
  using kms::app::GeneratorKind;
  if (params.kind == GeneratorKind::Blobs || params.kind == GeneratorKind::Rings ||
      params.kind == GeneratorKind::Anisotropic || params.kind == GeneratorKind::UnequalVariances ||
      params.kind == GeneratorKind::UnequalSizes)
    k = params.groups;
  else if (params.kind == kms::app::GeneratorKind::Moons)
    k = 2;
  else if (params.kind == kms::app::GeneratorKind::Photo)
    k = 16;
  generate(params, k);
}

void MainWindow::showAbout() {
  // Probed on the engine thread at start-up; never here, where it could block the window.
  const QString gpu =
      session_->cudaAvailable()
          ? tr("CUDA device: %1").arg(session_->cudaDescription())
          : tr("CUDA: %1")
                .arg(session_->cudaDescription().isEmpty() ? tr("not probed yet")
                                                           : session_->cudaDescription());
  QMessageBox box(this);
  box.setWindowTitle(tr("About KMeans Studio"));
  box.setIconPixmap(icon(IconKind::App).pixmap(96, 96));
  box.setTextFormat(Qt::RichText);
  box.setText(
      tr("<h3>KMeans Studio %1</h3>"
         "<p>Watch k-means work: quantise a photo's colours, teach how Lloyd's algorithm moves "
         "its centroids, and measure how fast it converges on the GPU.</p>"
         "<p>%2<br>Engine in use: %3 · %4<br>3-D view: %5<br>Qt %6</p>")
          .arg(QStringLiteral(KMS_VERSION), gpu, session_->engine().backend.toUpper(),
               session_->engine().device,
               threeDSupport().available ? tr("OpenGL (%1)").arg(threeDSupport().renderer)
                                         : tr("2-D projection, %1").arg(threeDSupport().reason),
               QString::fromLatin1(qVersion())));
  box.exec();
}

void MainWindow::startFromCentroids(const std::vector<float>& centroids) {
  const auto& data = session_->dataset();
  if (!data || data->d <= 0 || centroids.empty() || centroids.size() % std::size_t(data->d)) return;
  controls_->flushEdits();
  session::RunSettings s = controls_->settings();
  s.config.init = kms::InitMethod::Given;
  s.config.initial_centroids = centroids;
  s.config.k = int(centroids.size() / std::size_t(data->d));
  s.restarts = 1;
  controls_->setSettings(s);
  session_->setSettings(s);  // restarts at iteration 0, paused
}

}  // namespace kms::ui
