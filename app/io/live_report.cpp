#include "io/live_report.h"

#include <QDateTime>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "core/dataset.h"

namespace kms::app {
namespace {

QJsonArray floats(const std::vector<float>& values) {
  QJsonArray out;
  for (float v : values)
    out.append(double(v));  // a float is exact as a double, and the double's text round-trips
  return out;
}

std::vector<float> floatsOf(const QJsonValue& value) {
  std::vector<float> out;
  for (const QJsonValue& v : value.toArray())
    out.push_back(float(v.toDouble()));
  return out;
}

QJsonObject statsObject(const kms::IterationStats& s) {
  QJsonObject ms{{"assign", s.ms.assign_ms},
                 {"reduce", s.ms.reduce_ms},
                 {"communication", s.ms.communication_ms},
                 {"update", s.ms.update_ms}};
  QJsonObject it{{"kind", "iteration"},      {"iteration", s.iteration},
                 {"inertia", s.inertia},     {"changed", double(s.changed)},
                 {"max_shift", s.max_shift}, {"empty_clusters", s.empty_clusters},
                 {"converged", s.converged}, {"ms", ms}};
  if (!s.rank_ms.empty()) {
    QJsonArray ranks;
    for (double v : s.rank_ms)
      ranks.append(v);
    it.insert("rank_ms", ranks);
  }
  return it;
}

kms::IterationStats statsOf(const QJsonObject& o) {
  kms::IterationStats s;
  s.iteration = o.value("iteration").toInt();
  s.inertia = o.value("inertia").toDouble();
  s.changed = std::size_t(o.value("changed").toDouble());
  s.max_shift = o.value("max_shift").toDouble();
  s.empty_clusters = o.value("empty_clusters").toInt();
  s.converged = o.value("converged").toBool();
  const QJsonObject ms = o.value("ms").toObject();
  s.ms.assign_ms = ms.value("assign").toDouble();
  s.ms.reduce_ms = ms.value("reduce").toDouble();
  s.ms.communication_ms = ms.value("communication").toDouble();
  s.ms.update_ms = ms.value("update").toDouble();
  for (const QJsonValue& v : o.value("rank_ms").toArray())
    s.rank_ms.push_back(v.toDouble());
  return s;
}

}  // namespace

LiveReportWriter::LiveReportWriter(const QString& path, const LiveRunHeader& h) : file_(path) {
  if (!file_.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
    throw ExportError(path, QStringLiteral("cannot write the live report: ") + file_.errorString());
  const QJsonObject settings{{"seed", double(h.config.seed)},
                             {"max_iterations", h.config.max_iterations},
                             {"tolerance", h.config.tolerance},
                             {"init", QString::fromUtf8(toString(h.config.init).data())}};
  // "began" (to the millisecond) tells this run's file from a later run's written over it.
  line(QJsonDocument(
           QJsonObject{{"kind", "header"},
                       {"began", QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs)},
                       {"input", h.input},
                       {"n", double(h.n)},
                       {"d", h.d},
                       {"k", h.k},
                       {"ranks", h.ranks},
                       {"backend", h.backend},
                       {"device", h.device},
                       {"settings", settings},
                       {"centroids", floats(h.centroids)}})
           .toJson(QJsonDocument::Compact));
}

void LiveReportWriter::iteration(const LiveIteration& it) {
  QJsonObject o = statsObject(it.stats);
  o.insert("centroids", floats(it.centroids));
  line(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

void LiveReportWriter::end(const LiveRunEnd& e) {
  line(QJsonDocument(
           QJsonObject{{"kind", "end"}, {"converged", e.converged}, {"stop_rule", e.stopRule}})
           .toJson(QJsonDocument::Compact));
}

void LiveReportWriter::line(const QByteArray& json) {
  if (file_.write(json + '\n') != json.size() + 1 || !file_.flush())
    throw ExportError(file_.fileName(),
                      QStringLiteral("cannot write the live report: ") + file_.errorString());
}

int LiveReportReader::poll() {
  QFile file(path_);
  if (!file.open(QIODevice::ReadOnly))
    throw LoadError(path_, QStringLiteral("cannot open the live report: ") + file.errorString());
  // A new run written over the file (shorter, or another header): start again.
  const QByteArray head = file.read(kHeadBytes);
  if (file.size() < offset_ || (offset_ > 0 && !head.startsWith(head_))) {
    offset_ = 0;
    header_.reset();
    iterations_.clear();
    end_.reset();
  }
  if (offset_ == 0) head_ = head;
  if (!file.seek(offset_)) return 0;
  const QByteArray bytes = file.readAll();
  const qsizetype complete = bytes.lastIndexOf('\n') + 1;  // a line still being written waits
  int added = 0;
  for (const QByteArray& text : bytes.left(complete).split('\n')) {
    if (text.trimmed().isEmpty()) continue;
    QJsonParseError error;
    const QJsonObject o = QJsonDocument::fromJson(text, &error).object();
    const QString kind = o.value("kind").toString();
    if (error.error != QJsonParseError::NoError || kind.isEmpty())
      throw LoadError(path_, QStringLiteral("not a live report (written by kmeans-cli "
                                            "--live-report): a line is not one of its records"));
    if (kind == u"header") {
      LiveRunHeader h;
      h.input = o.value("input").toString();
      h.n = std::size_t(o.value("n").toDouble());
      h.d = o.value("d").toInt();
      h.k = o.value("k").toInt();
      h.ranks = o.value("ranks").toInt(1);
      h.backend = o.value("backend").toString();
      h.device = o.value("device").toString();
      const QJsonObject settings = o.value("settings").toObject();
      h.config.k = h.k;
      h.config.seed = std::uint64_t(settings.value("seed").toDouble());
      h.config.max_iterations = settings.value("max_iterations").toInt(300);
      h.config.tolerance = settings.value("tolerance").toDouble();
      h.config.init = kms::parseInitMethod(settings.value("init").toString().toStdString())
                          .value_or(h.config.init);
      h.centroids = floatsOf(o.value("centroids"));
      if (h.d < 1 || h.k < 1 || h.centroids.size() != std::size_t(h.k) * std::size_t(h.d))
        throw LoadError(path_, QStringLiteral("the live report's header is incomplete"));
      header_ = h;
    } else if (kind == u"iteration") {
      if (!header_) throw LoadError(path_, QStringLiteral("the live report has no header"));
      LiveIteration it{statsOf(o), floatsOf(o.value("centroids"))};
      if (it.centroids.size() != header_->centroids.size())
        throw LoadError(path_, QStringLiteral("iteration %1 of the live report has %2 centroid "
                                              "values, not k × d = %3")
                                   .arg(it.stats.iteration)
                                   .arg(it.centroids.size())
                                   .arg(header_->centroids.size()));
      iterations_.push_back(std::move(it));
      ++added;
    } else if (kind == u"end") {
      end_ = LiveRunEnd{o.value("converged").toBool(), o.value("stop_rule").toString()};
    }
  }
  offset_ += complete;
  return added;
}

}  // namespace kms::app
