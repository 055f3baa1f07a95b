// writeRunReport: the JSON record of one run.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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

QJsonObject iterationObject(const IterationStats& s, std::size_t n) {
  const QJsonObject ms{{"assign", s.ms.assign_ms},
                       {"reduce", s.ms.reduce_ms},
                       {"update", s.ms.update_ms},
                       {"copy", s.ms.copy_ms},
                       {"compute", s.ms.computeMs()}};
  return QJsonObject{
      {"iteration", s.iteration},     {"inertia", s.inertia},
      {"changed", double(s.changed)}, {"changed_fraction", n ? double(s.changed) / double(n) : 0.0},
      {"max_shift", s.max_shift},     {"empty_clusters", s.empty_clusters},
      {"converged", s.converged},     {"ms", ms}};
}

}  // namespace

void writeRunReport(const QString& path, const RunReport& report) {
  const KMeansConfig& c = report.config;
  const QJsonObject settings{{"k", c.k},
                             {"init", text(toString(c.init))},
                             {"seed", seedValue(c.seed)},
                             {"max_iterations", c.max_iterations},
                             {"tolerance", c.tolerance},
                             {"empty_clusters", text(toString(c.empty_clusters))},
                             {"backend", report.backend},
                             {"device", report.device},
                             {"backend_note", report.backendNote}};
  QJsonArray iterations;
  for (const IterationStats& s : report.iterations)
    iterations.append(iterationObject(s, report.n));
  const QJsonObject root{
      {"report_version", 1},
      {"input", report.input},
      {"n", double(report.n)},
      {"d", report.d},
      {"settings", settings},
      {"iterations", iterations},
      {"iteration_count", int(report.iterations.size())},
      {"converged", report.converged},
      {"final_inertia",
       report.iterations.empty() ? QJsonValue() : QJsonValue(report.iterations.back().inertia)},
      {"wall_seconds", report.wallSeconds}};
  const QByteArray json = QJsonDocument(root).toJson(QJsonDocument::Indented);
  io::saveFile(path, [&](QIODevice& device) { device.write(json); });
}

}  // namespace kms::app
