#include "views/step_phase_text.h"

#include <QCoreApplication>

#include "core/format.h"

namespace kms::ui {
namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("StepPhase", text);
}

}  // namespace

QString stepPhaseTitle(const session::Frame& frame) {
  using session::StepPhase;
  QString text =
      frame.iteration == 0 ? tr("Initial centroids") : tr("Iteration %1").arg(frame.iteration);
  if (frame.phase == StepPhase::Assign) {
    text += tr(" · assign: each point to its nearest centroid");
    if (!frame.changedRows.empty())
      text += tr(" (%1 changed, ringed)").arg(kms::app::groupedCount(frame.changedRows.size()));
  } else if (frame.phase == StepPhase::Update) {
    text += tr(" · update: each centroid to the mean of its points");
  }
  if (frame.phase != StepPhase::Assign && frame.stats.empty_clusters > 0)
    text += frame.stats.empty_clusters == 1
                ? tr(" · a cluster went empty (re-seeded unless kept)")
                : tr(" · %1 clusters went empty (re-seeded unless kept)")
                      .arg(frame.stats.empty_clusters);
  if (frame.iteration < frame.latestIteration)
    text += tr(" (looking back; the run is at %1)").arg(frame.latestIteration);
  return text;
}

QString stepPhaseStatus(const session::Frame& frame) {
  using session::StepPhase;
  if (frame.phase == StepPhase::Assign) return tr("Assign · iteration %1").arg(frame.iteration);
  if (frame.phase == StepPhase::Update) return tr("Update · iteration %1").arg(frame.iteration);
  if (frame.iteration < frame.latestIteration)
    return tr("Looking back at iteration %1 of %2").arg(frame.iteration).arg(frame.latestIteration);
  return {};
}

}  // namespace kms::ui
