// The report of a trace comparison (core/trace_compare.h): the text kmeans-cli prints and the
// JSON it writes.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/trace_compare.h"

namespace kms::app {

QString formatComparison(const TraceComparison& c) {
  QString text;
  for (const QString& line : c.findings)
    text += QStringLiteral("- ") + line + QLatin1Char('\n');
  text += QStringLiteral(
      "\n iter  update    update err  stored wrong  flipped  near ties      ARI  centroid dist  "
      "inertia (implied)  inertia (exact)  empty\n");
  for (const auto& it : c.iterations)
    text += QStringLiteral("%1  %2  %3  %4  %5  %6  %7  %8  %9  %10  %11\n")
                .arg(it.iteration, 5)
                .arg(QString::fromLatin1(describe(it.update)), -8)
                .arg(it.updateError, 10, 'g', 3)
                .arg(it.storedLabelsWrong < 0 ? QStringLiteral("–")
                                              : QString::number(it.storedLabelsWrong),
                     12)
                .arg(it.flipped, 7)
                .arg(it.flippedNearTies, 9)
                .arg(it.adjustedRand, 7, 'f', 4)
                .arg(it.centroidDistance, 13, 'g', 4)
                .arg(it.impliedInertia, 17, 'g', 8)
                .arg(it.exactInertia, 15, 'g', 8)
                .arg(it.emptyClusters, 5);
  return text;
}

QByteArray comparisonJson(const TraceComparison& c, const QString& traceName) {
  QJsonArray iterations;
  for (const auto& it : c.iterations)
    iterations.append(
        QJsonObject{{QStringLiteral("iteration"), it.iteration},
                    {QStringLiteral("update"), QString::fromLatin1(describe(it.update))},
                    {QStringLiteral("update_error"), it.updateError},
                    {QStringLiteral("stored_labels_wrong"), double(it.storedLabelsWrong)},
                    {QStringLiteral("flipped"), double(it.flipped)},
                    {QStringLiteral("flipped_near_ties"), double(it.flippedNearTies)},
                    {QStringLiteral("adjusted_rand"), it.adjustedRand},
                    {QStringLiteral("centroid_distance"), it.centroidDistance},
                    {QStringLiteral("trace_inertia"), it.traceInertia},
                    {QStringLiteral("implied_inertia"), it.impliedInertia},
                    {QStringLiteral("exact_inertia"), it.exactInertia},
                    {QStringLiteral("empty_clusters"), it.emptyClusters},
                    {QStringLiteral("shift"), it.shift},
                    {QStringLiteral("changed_fraction"), it.changedFraction}});
  QJsonArray wrong, matching;
  for (int t : c.wrongUpdates)
    wrong.append(t);
  for (int j : c.matching)
    matching.append(j);
  const QJsonObject root{{QStringLiteral("trace"), traceName},
                         {QStringLiteral("findings"), QJsonArray::fromStringList(c.findings)},
                         {QStringLiteral("identical"), c.identical},
                         {QStringLiteral("first_divergence"), c.firstDivergence},
                         {QStringLiteral("first_flip"), c.firstFlip},
                         {QStringLiteral("wrong_updates"), wrong},
                         {QStringLiteral("cycle_start"), c.cycleStart},
                         {QStringLiteral("cycle_period"), c.cyclePeriod},
                         {QStringLiteral("oscillating_points"), double(c.oscillatingPoints)},
                         {QStringLiteral("stop_by_shift"), c.stopByShift},
                         {QStringLiteral("stop_by_inertia"), c.stopByInertia},
                         {QStringLiteral("stop_by_changed"), c.stopByChanged},
                         {QStringLiteral("matching"), matching},
                         {QStringLiteral("iterations"), iterations}};
  return QJsonDocument(QJsonObject{{QStringLiteral("trace_comparison"), root}})
      .toJson(QJsonDocument::Indented);
}

}  // namespace kms::app
