// writeRunReport: the JSON record of one run.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>

#include "io/export.h"
#include "io/save_file.h"

namespace kms::app {
namespace {

QString text(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QJsonValue seedValue(std::uint64_t seed) {
  constexpr std::uint64_t kExactInDouble = std::uint64_t(1) << 53;
  return seed < kExactInDouble ? QJsonValue(double(seed)) : QJsonValue(QString::number(seed));
}

QJsonValue number(double v) {
  return std::isfinite(v) ? QJsonValue(v) : QJsonValue();  // JSON has no NaN or infinity
}

void addQuality(QJsonObject& object, const Quality& q) {
  if (!q.valid()) return;
  object.insert("psnr", number(q.psnr));
  object.insert("delta_e", number(q.deltaE));
}

QJsonObject iterationObject(const IterationStats& s, std::size_t n) {
  const QJsonObject ms{{"assign", s.ms.assign_ms},
                       {"reduce", s.ms.reduce_ms},
                       {"communication", s.ms.communication_ms},
                       {"update", s.ms.update_ms},
                       {"copy", s.ms.copy_ms},
                       {"compute", s.ms.computeMs()}};
  QJsonObject it{
      {"iteration", s.iteration},     {"inertia", s.inertia},
      {"changed", double(s.changed)}, {"changed_fraction", n ? double(s.changed) / double(n) : 0.0},
      {"max_shift", s.max_shift},     {"empty_clusters", s.empty_clusters},
      {"converged", s.converged},     {"ms", ms}};
  // What the distance bounds spared, where the engine counts it: the rows they left to a search
  // and the distances computed (rows × k without them).
  if (s.rows_searched >= 0) it.insert("rows_searched", double(s.rows_searched));
  if (s.distances_computed >= 0) it.insert("distances_computed", double(s.distances_computed));
  if (!s.rank_ms.empty()) {  // a run over several processes: each rank's assignment
    QJsonArray ranks;
    for (double v : s.rank_ms)
      ranks.append(v);
    it.insert("rank_ms", ranks);
  }
  return it;
}

}  // namespace

StartSummary summarizeStart(const kms::StartOutcome& o, std::size_t points, double tolerance) {
  StartSummary summary;
  summary.start = o.start;
  summary.seed = o.seed;
  summary.iterations = int(o.iterations.size());
  summary.converged = o.converged;
  summary.inertia = o.inertia();
  summary.stopRule = o.iterations.empty()
                         ? kms::StopRule::Running
                         : kms::stopRuleOf(o.iterations.back(), true, points, tolerance);
  return summary;
}

void writeRunReport(const QString& path, const RunReport& report) {
  const KMeansConfig& c = report.config;
  const QJsonObject settings{{"k", c.k},
                             {"init", text(toString(c.init))},
                             {"seed", seedValue(c.seed)},
                             {"max_iterations", c.max_iterations},
                             {"tolerance", c.tolerance},
                             {"empty_clusters", text(toString(c.empty_clusters))},
                             {"restarts", int(std::max<std::size_t>(1, report.starts.size()))},
                             {"colour_space", report.colourSpace},
                             {"compaction", report.compaction},
                             {"rows_are", report.rowNoun},
                             {"dither", report.dither},
                             {"backend", report.backend},
                             {"device", report.device},
                             {"backend_note", report.backendNote}};
  QJsonArray iterations;
  for (std::size_t i = 0; i < report.iterations.size(); ++i) {
    QJsonObject it = iterationObject(report.iterations[i], report.n);
    if (i < report.quality.size()) addQuality(it, report.quality[i]);
    iterations.append(it);
  }
  QJsonArray starts;
  for (const StartSummary& s : report.starts) {
    QJsonObject start{{"start", s.start},
                      {"seed", seedValue(s.seed)},
                      {"iterations", s.iterations},
                      {"converged", s.converged},
                      {"stop_rule", text(toString(s.stopRule))},
                      {"inertia", number(s.inertia)}};
    addQuality(start, s.quality);
    starts.append(start);
  }
  QJsonObject root{
      {"report_version", 2},
      {"input", report.input},
      {"n", double(report.n)},
      {"rows", double(report.rows)},
      {"d", report.d},
      {"notes", QJsonArray::fromStringList(report.notes)},
      {"settings", settings},
      {"iterations", iterations},
      {"starts", starts},
      {"best_start", report.bestStart},
      {"iteration_count", int(report.iterations.size())},
      {"converged", report.converged},
      {"stop_rule", text(toString(report.stopRule))},
      {"final_inertia",
       report.iterations.empty() ? QJsonValue() : QJsonValue(report.iterations.back().inertia)},
      {"wall_seconds", report.wallSeconds}};
  QJsonArray phases;  // in the order they ran
  for (const auto& [name, ms] : report.phasesMs)
    phases.append(QJsonObject{{"phase", name.trimmed()}, {"ms", ms}});
  root.insert("phases", phases);
  if (report.refine) {
    const kms::RefineReport& r = *report.refine;
    root.insert("refine", QJsonObject{{"passes", r.passes},
                                      {"moves", double(r.moves)},
                                      {"sse_before", r.sse_before},
                                      {"sse_after", r.sse_after},
                                      {"lloyd_iterations", r.lloyd_iterations},
                                      {"inertia_before", r.inertia_before},
                                      {"inertia_after", r.inertia_after},
                                      {"kept", r.improved}});
  }
  if (report.finalQuality.valid()) {
    QJsonObject quality;
    addQuality(quality, report.finalQuality);
    root.insert("quality", quality);
  }
  const QByteArray json = QJsonDocument(root).toJson(QJsonDocument::Indented);
  io::saveFile(path, [&](QIODevice& device) { device.write(json); });
}

}  // namespace kms::app
