#include "io/trace.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "core/dataset.h"
#include "io/save_file.h"

namespace kms::app {
namespace {

constexpr char kFormat[] = "kmeans-studio trace";

/// A .npy file's array: little-endian, C order; the values as raw bytes.
struct NpyArray {
  char kind = 0;  ///< 'f' or 'i'
  int bytes = 0;  ///< per value
  std::vector<std::size_t> shape;
  QByteArray data;

  std::size_t count() const {
    std::size_t c = 1;
    for (std::size_t s : shape)
      c *= s;
    return c;
  }
  double valueAt(std::size_t i) const {
    const char* p = data.constData() + i * std::size_t(bytes);
    if (kind == 'f' && bytes == 4) {
      float v;
      std::memcpy(&v, p, 4);
      return v;
    }
    if (kind == 'f') {
      double v;
      std::memcpy(&v, p, 8);
      return v;
    }
    if (bytes == 4) {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    std::int64_t v;
    std::memcpy(&v, p, 8);
    return double(v);
  }
};

QByteArray npyHeader(const char* descr, const std::vector<std::size_t>& shape) {
  QByteArray dims;
  for (std::size_t s : shape)
    dims += QByteArray::number(qulonglong(s)) + ", ";
  dims = dims.trimmed();  // "3, 4,": a trailing comma is valid Python, and "(3,)" needs it
  QByteArray dict =
      QByteArray("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  // Magic (6) + version (2) + length (2) + dict + padding + '\n', a multiple of 64 bytes.
  const int unpadded = 10 + int(dict.size()) + 1;
  dict += QByteArray((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  QByteArray header("\x93NUMPY\x01\x00", 8);
  const quint16 length = quint16(dict.size());
  header += char(length & 0xff);
  header += char(length >> 8);
  return header + dict;
}

template <typename T>
void writeNpy(const QString& path, const char* descr, const std::vector<std::size_t>& shape,
              const std::vector<T>& values) {
  io::saveFile(path, [&](QIODevice& device) {
    const QByteArray header = npyHeader(descr, shape);
    if (device.write(header) != header.size() ||
        device.write(reinterpret_cast<const char*>(values.data()),
                     qint64(values.size() * sizeof(T))) != qint64(values.size() * sizeof(T)))
      throw ExportError(path, device.errorString());
  });
}

NpyArray readNpy(const QString& path) {
  const QString name = QFileInfo(path).fileName();
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) throw LoadError(name, file.errorString());
  const QByteArray bytes = file.readAll();
  if (bytes.size() < 10 || !bytes.startsWith(QByteArray("\x93NUMPY", 6)))
    throw LoadError(name, QStringLiteral("not a NumPy .npy file"));
  const int major = static_cast<unsigned char>(bytes[6]);
  qsizetype offset = 0, length = 0;
  if (major == 1) {
    length = static_cast<unsigned char>(bytes[8]) | static_cast<unsigned char>(bytes[9]) << 8;
    offset = 10;
  } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
    length = qsizetype(static_cast<unsigned char>(bytes[8])) |
             qsizetype(static_cast<unsigned char>(bytes[9])) << 8 |
             qsizetype(static_cast<unsigned char>(bytes[10])) << 16 |
             qsizetype(static_cast<unsigned char>(bytes[11])) << 24;
    offset = 12;
  } else {
    throw LoadError(name, QStringLiteral(".npy format version %1 is not supported").arg(major));
  }
  if (offset + length > bytes.size())
    throw LoadError(name, QStringLiteral("the header is cut short"));
  const QString dict = QString::fromLatin1(bytes.mid(offset, length));
  const auto descr =
      QRegularExpression(QStringLiteral("'descr'\\s*:\\s*'([<>|=])([fiu])(\\d)'")).match(dict);
  const auto order =
      QRegularExpression(QStringLiteral("'fortran_order'\\s*:\\s*(True|False)")).match(dict);
  const auto shape =
      QRegularExpression(QStringLiteral("'shape'\\s*:\\s*\\(([^)]*)\\)")).match(dict);
  if (!descr.hasMatch() || !order.hasMatch() || !shape.hasMatch())
    throw LoadError(name, QStringLiteral("malformed .npy header: %1").arg(dict.trimmed()));
  NpyArray a;
  a.kind = descr.captured(2) == QLatin1String("u") ? 'i' : descr.captured(2).at(0).toLatin1();
  a.bytes = descr.captured(3).toInt();
  if (descr.captured(1) == QLatin1String(">") && a.bytes > 1)
    throw LoadError(name, QStringLiteral("big-endian arrays are not read; save it little-endian"));
  if (!((a.kind == 'f' && (a.bytes == 4 || a.bytes == 8)) ||
        (a.kind == 'i' && (a.bytes == 4 || a.bytes == 8))))
    throw LoadError(name, QStringLiteral("dtype %1%2 is not read here (float32/64, int32/64)")
                              .arg(descr.captured(2), descr.captured(3)));
  if (order.captured(1) == QLatin1String("True"))
    throw LoadError(name, QStringLiteral("Fortran-order arrays are not read; save it in C order"));
  for (const QString& part : shape.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const qulonglong v = part.trimmed().toULongLong(&ok);
    if (!ok) throw LoadError(name, QStringLiteral("malformed shape (%1)").arg(shape.captured(1)));
    a.shape.push_back(std::size_t(v));
  }
  const qsizetype start = offset + length;
  const std::size_t have = std::size_t(bytes.size() - start);
  // The values the shape asks for, without overflowing: more than the file holds is enough.
  std::size_t values = 1;
  for (std::size_t extent : a.shape) {
    if (extent != 0 && values > have / extent) {
      values = have + 1;
      break;
    }
    values *= extent;
  }
  const std::size_t want = values > have ? have + 1 : values * std::size_t(a.bytes);
  if (have < want)
    throw LoadError(name, QStringLiteral("truncated: the shape needs %1 bytes of values, the file "
                                         "has %2")
                              .arg(qulonglong(want))
                              .arg(qulonglong(bytes.size() - start)));
  a.data = bytes.mid(start, qsizetype(want));
  return a;
}

QString shapeText(const std::vector<std::size_t>& shape) {
  QStringList parts;
  for (std::size_t s : shape)
    parts << QString::number(qulonglong(s));
  return QLatin1Char('(') + parts.join(QStringLiteral(", ")) + QLatin1Char(')');
}

}  // namespace

void writeTrace(const QString& dir, const RunTrace& trace) {
  const std::size_t steps = std::size_t(trace.iterations());
  if ((!trace.labels.empty() && trace.labels.size() != steps) ||
      (!trace.inertia.empty() && trace.inertia.size() != steps) ||
      (!trace.changed.empty() && trace.changed.size() != steps))
    throw std::invalid_argument(
        "writeTrace: labels, inertia and changed need one entry an "
        "iteration");
  if (!QDir().mkpath(dir)) throw ExportError(dir, QStringLiteral("cannot make the folder"));
  const QDir folder(dir);
  const int t = trace.iterations();
  const std::size_t kd = std::size_t(trace.k) * std::size_t(trace.d);
  std::vector<float> centroids;
  centroids.reserve(std::size_t(t + 1) * kd);
  for (const auto& set : trace.centroids) {
    if (set.size() != kd) throw std::invalid_argument("writeTrace: a centroid set is not k × d");
    centroids.insert(centroids.end(), set.begin(), set.end());
  }
  writeNpy(folder.filePath(QStringLiteral("centroids.npy")), "<f4",
           {std::size_t(t + 1), std::size_t(trace.k), std::size_t(trace.d)}, centroids);
  QJsonObject files{{QStringLiteral("centroids"), QStringLiteral("centroids.npy")}};
  if (!trace.labels.empty()) {
    std::vector<std::int32_t> labels;
    labels.reserve(std::size_t(t) * trace.n);
    for (const auto& set : trace.labels)
      labels.insert(labels.end(), set.begin(), set.end());
    writeNpy(folder.filePath(QStringLiteral("labels.npy")), "<i4",
             {trace.labels.size(), trace.labels.front().size()}, labels);
    files.insert(QStringLiteral("labels"), QStringLiteral("labels.npy"));
  }
  if (!trace.inertia.empty()) {
    writeNpy(folder.filePath(QStringLiteral("inertia.npy")), "<f8", {trace.inertia.size()},
             trace.inertia);
    files.insert(QStringLiteral("inertia"), QStringLiteral("inertia.npy"));
  }
  if (!trace.changed.empty()) {
    writeNpy(folder.filePath(QStringLiteral("changed.npy")), "<i8", {trace.changed.size()},
             trace.changed);
    files.insert(QStringLiteral("changed"), QStringLiteral("changed.npy"));
  }
  const QJsonObject header{{QStringLiteral("format"), QString::fromLatin1(kFormat)},
                           {QStringLiteral("version"), RunTrace::kVersion},
                           {QStringLiteral("k"), trace.k},
                           {QStringLiteral("d"), trace.d},
                           {QStringLiteral("n"), double(trace.n)},
                           {QStringLiteral("iterations"), t},
                           {QStringLiteral("source"), trace.source},
                           {QStringLiteral("files"), files}};
  const QString path = folder.filePath(QStringLiteral("trace.json"));
  io::saveFile(path, [&](QIODevice& device) {
    const QByteArray text = QJsonDocument(header).toJson(QJsonDocument::Indented);
    if (device.write(text) != text.size()) throw ExportError(path, device.errorString());
  });
}

RunTrace readTrace(const QString& given) {
  const QFileInfo info(given);
  if (!info.exists()) throw LoadError(given, QStringLiteral("no such trace folder"));
  const QDir folder(info.isDir() ? given : info.absolutePath());
  const QString headerPath = folder.filePath(QStringLiteral("trace.json"));
  const QString headerName = QDir(folder).dirName() + QStringLiteral("/trace.json");
  QFile file(headerPath);
  if (!file.open(QIODevice::ReadOnly))
    throw LoadError(headerName, QStringLiteral("no trace here (%1)").arg(file.errorString()));
  QJsonParseError parseError;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parseError);
  if (!doc.isObject())
    throw LoadError(headerName, QStringLiteral("not JSON: %1").arg(parseError.errorString()));
  const QJsonObject h = doc.object();
  if (h.value(QStringLiteral("format")).toString() != QLatin1String(kFormat))
    throw LoadError(headerName, QStringLiteral("\"format\" is not \"%1\"").arg(kFormat));
  const int version = h.value(QStringLiteral("version")).toInt(0);
  if (version < 1 || version > RunTrace::kVersion)
    throw LoadError(headerName, QStringLiteral("version %1 is not read by this kmeans-cli (it "
                                               "reads version %2)")
                                    .arg(version)
                                    .arg(RunTrace::kVersion));
  RunTrace trace;
  trace.k = h.value(QStringLiteral("k")).toInt(0);
  trace.d = h.value(QStringLiteral("d")).toInt(0);
  const double rows = h.value(QStringLiteral("n")).toDouble(0);
  if (!(rows >= 0 && rows <= 1e15))
    throw LoadError(headerName, QStringLiteral("\"n\" must be a row count (0: not said)"));
  trace.n = std::size_t(rows);
  trace.source = h.value(QStringLiteral("source")).toString();
  if (trace.k < 1 || trace.d < 1)
    throw LoadError(headerName, QStringLiteral("\"k\" and \"d\" must be positive integers"));
  const QJsonObject files = h.value(QStringLiteral("files")).toObject();
  const auto fileOf = [&](const char* key, const char* fallback) {
    const QString named = files.value(QLatin1String(key)).toString();
    return folder.filePath(named.isEmpty() ? QLatin1String(fallback) : named);
  };
  const auto present = [&](const char* key) { return files.contains(QLatin1String(key)); };

  const QString centroidPath = fileOf("centroids", "centroids.npy");
  const QString centroidName = QFileInfo(centroidPath).fileName();
  const NpyArray c = readNpy(centroidPath);
  if (c.kind != 'f' || c.shape.size() != 3 || c.shape[1] != std::size_t(trace.k) ||
      c.shape[2] != std::size_t(trace.d) || c.shape[0] < 2)
    throw LoadError(centroidName,
                    QStringLiteral("expected float centroids shaped (iterations + 1, k = %1, "
                                   "d = %2) with at least the start and one iteration, found %3")
                        .arg(trace.k)
                        .arg(trace.d)
                        .arg(shapeText(c.shape)));
  if (c.bytes == 8)
    trace.notes.push_back(centroidName + QStringLiteral(": float64, rounded to float32 once"));
  const std::size_t kd = std::size_t(trace.k) * std::size_t(trace.d);
  trace.centroids.resize(c.shape[0]);
  for (std::size_t t = 0; t < c.shape[0]; ++t) {
    auto& set = trace.centroids[t];
    set.resize(kd);
    for (std::size_t e = 0; e < kd; ++e) {
      const double v = c.valueAt(t * kd + e);
      if (!std::isfinite(v) || !std::isfinite(float(v)))
        throw LoadError(centroidName, QStringLiteral("centroid %1 %2 is not finite (%3)")
                                          .arg(e / std::size_t(trace.d))
                                          .arg(t == 0 ? QStringLiteral("at the start")
                                                      : QStringLiteral("after iteration %1").arg(t))
                                          .arg(v));
      set[e] = float(v);
    }
  }
  const std::size_t iterations = c.shape[0] - 1;
  const int declared = h.value(QStringLiteral("iterations")).toInt(-1);
  if (declared >= 0 && std::size_t(declared) != iterations)
    throw LoadError(centroidName, QStringLiteral("trace.json says %1 iterations, the centroids "
                                                 "hold %2 (missing iterations?)")
                                      .arg(declared)
                                      .arg(qulonglong(iterations)));
  if (present("labels")) {
    const QString path = fileOf("labels", "labels.npy");
    const QString name = QFileInfo(path).fileName();
    const NpyArray l = readNpy(path);
    if (l.kind != 'i' || l.shape.size() != 2 || l.shape[0] != iterations ||
        (trace.n != 0 && l.shape[1] != trace.n))
      throw LoadError(name, QStringLiteral("expected integer labels shaped (iterations = %1, n), "
                                           "found %2")
                                .arg(qulonglong(iterations))
                                .arg(shapeText(l.shape)));
    trace.n = l.shape[1];
    trace.labels.resize(iterations);
    for (std::size_t t = 0; t < iterations; ++t) {
      auto& set = trace.labels[t];
      set.resize(trace.n);
      for (std::size_t i = 0; i < trace.n; ++i) {
        const double v = l.valueAt(t * trace.n + i);
        if (v < 0 || v >= trace.k)
          throw LoadError(name, QStringLiteral("label %1 of row %2 at iteration %3 is outside "
                                               "[0, k = %4)")
                                    .arg(v)
                                    .arg(qulonglong(i))
                                    .arg(t + 1)
                                    .arg(trace.k));
        set[i] = std::int32_t(v);
      }
    }
  }
  const auto series = [&](const char* key, const char* fallback, auto& out) {
    if (!present(key)) return;
    const QString path = fileOf(key, fallback);
    const NpyArray a = readNpy(path);
    if (a.shape.size() != 1 || a.shape[0] != iterations)
      throw LoadError(QFileInfo(path).fileName(),
                      QStringLiteral("expected one value an iteration, shape (%1,), found %2")
                          .arg(qulonglong(iterations))
                          .arg(shapeText(a.shape)));
    out.resize(iterations);
    for (std::size_t t = 0; t < iterations; ++t)
      out[t] = static_cast<std::decay_t<decltype(out[t])>>(a.valueAt(t));
  };
  series("inertia", "inertia.npy", trace.inertia);
  series("changed", "changed.npy", trace.changed);
  return trace;
}

}  // namespace kms::app
