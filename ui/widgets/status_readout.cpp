#include "widgets/status_readout.h"

#include <QLabel>
#include <QStatusBar>

#include "core/format.h"
#include "data/run_history.h"
#include "views/step_phase_text.h"

namespace kms::ui {

StatusReadout::StatusReadout(QStatusBar* bar, const RunHistory& history)
    : QObject(bar), history_(history) {
  state_ = add(bar, tr("What the session is doing"), 150, false);
  view_ = add(bar, tr("Which part of which iteration the views show"), 0, false);
  view_->setObjectName(QStringLiteral("statusView"));
  backend_ = add(bar, tr("Backend and device running k-means"), 140);
  iteration_ = add(bar, tr("Iterations done / maximum"), 120);
  inertia_ = add(bar, tr("Sum of squared distances of the points to their centroids"), 130);
  changed_ = add(bar, tr("Points that changed cluster in the last iteration"), 130);
  ms_ = add(bar, tr("Time of the last iteration, all stages"), 100);
  rate_ = add(bar, tr("Iterations per second over the last second"), 90);
  backend_->setObjectName(QStringLiteral("statusBackend"));
  iteration_->setObjectName(QStringLiteral("statusIteration"));
  rate_->setObjectName(QStringLiteral("statusRate"));
  clearRun();
}

QLabel* StatusReadout::add(QStatusBar* bar, const QString& tip, int minWidth, bool permanent) {
  auto* label = new QLabel(bar);
  label->setToolTip(tip);
  label->setMinimumWidth(minWidth);
  label->setContentsMargins(6, 0, 6, 0);
  if (permanent)
    bar->addPermanentWidget(label);
  else
    bar->addWidget(label, 1);
  return label;
}

void StatusReadout::setEngine(const session::EngineDescription& engine) {
  // "CPU, 16 threads" already says CPU; "CUDA · NVIDIA H100" needs the backend named.
  backend_->setText(engine.device.startsWith(engine.backend, Qt::CaseInsensitive)
                        ? engine.device
                        : QStringLiteral("%1 · %2").arg(engine.backend.toUpper(), engine.device));
  backend_->setToolTip(engine.note.isEmpty() ? tr("Backend and device running k-means")
                                             : engine.note);
}

void StatusReadout::setState(session::SessionState state, double pace) {
  QString text = session::toDisplayString(state);
  if (state == session::SessionState::Running)
    text += pace > 0 ? tr(" · %1 it/s").arg(pace, 0, 'g', 3) : tr(" · flat out");
  QString rule;  // which rule stopped the run, in the tooltip (the bar keeps the short text)
  if (state == session::SessionState::Finished && !history_.empty()) {
    const kms::IterationStats& last = history_.records().back().stats;
    text = last.converged ? tr("Converged after %1 iterations").arg(last.iteration)
                          : tr("Stopped at the iteration limit");
    // The tolerance's two tests are the others of kms::StopRule.
    rule = !last.converged     ? tr("The run reached its iteration limit without converging")
           : last.changed == 0 ? tr("Stopped because no point changed cluster")
                               : tr("Stopped within the tolerance: few points changed cluster, or "
                                    "the centroids hardly moved");
  }
  state_->setText(text);
  state_->setToolTip(rule);
}

void StatusReadout::showView(const session::Frame& frame) {
  view_->setText(stepPhaseStatus(frame));
}

void StatusReadout::setDatasetSize(std::size_t n) {
  n_ = n;
}

void StatusReadout::setMaxIterations(int maxIterations) {
  maxIterations_ = maxIterations;
  refresh();
}

void StatusReadout::clearRun() {
  iteration_->setText(tr("Iteration 0 / %1").arg(maxIterations_));
  inertia_->setText(tr("Inertia –"));
  changed_->setText(tr("Changed –"));
  ms_->setText(tr("– ms/it"));
  rate_->setText(tr("– it/s"));
}

void StatusReadout::refresh() {
  if (history_.empty()) return clearRun();
  const kms::IterationStats& s = history_.records().back().stats;
  iteration_->setText(tr("Iteration %1 / %2").arg(s.iteration).arg(maxIterations_));
  inertia_->setText(tr("Inertia %1").arg(s.inertia, 0, 'g', 5));
  const double percent = n_ ? 100.0 * double(s.changed) / double(n_) : 0.0;
  changed_->setText(tr("Changed %1 (%2 %)")
                        .arg(kms::app::groupedCount(s.changed))
                        .arg(percent, 0, 'f', percent < 1.0 ? 2 : 1));
  ms_->setText(tr("%1 ms/it").arg(totalMs(s), 0, 'f', totalMs(s) < 10 ? 3 : 1));
  const double rate = history_.iterationsPerSecond();
  rate_->setText(rate > 0 ? tr("%1 it/s").arg(rate, 0, 'f', rate < 10 ? 1 : 0) : tr("– it/s"));
}

QString StatusReadout::backendText() const {
  return backend_->text();
}
QString StatusReadout::iterationText() const {
  return iteration_->text();
}
QString StatusReadout::rateText() const {
  return rate_->text();
}

}  // namespace kms::ui
