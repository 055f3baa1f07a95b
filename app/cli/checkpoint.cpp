#include "cli/checkpoint.h"

#include <QFile>
#include <QSaveFile>

#include <array>
#include <cstring>

#include "core/dataset.h"

namespace kms::app::cli {
namespace {

constexpr char kMagic[8] = {'K', 'M', 'S', 'C', 'K', 'P', 'T', '1'};

std::uint64_t fnv1a(const void* data, std::size_t bytes, std::uint64_t h = 0xcbf29ce484222325ULL) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < bytes; ++i)
    h = (h ^ p[i]) * 0x100000001b3ULL;
  return h;
}

std::uint64_t mix(std::uint64_t z) {  // splitmix64's finaliser
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

class Writer {
 public:
  template <typename T>
  void put(const T& v) {
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.append(p, sizeof(T));
  }
  void put(const std::vector<float>& v) {
    put(std::uint64_t(v.size()));
    bytes_.append(reinterpret_cast<const char*>(v.data()), qsizetype(v.size() * sizeof(float)));
  }
  QByteArray& bytes() { return bytes_; }

 private:
  QByteArray bytes_;
};

class Reader {
 public:
  Reader(const QByteArray& bytes, const QString& path) : bytes_(bytes), path_(path) {}
  template <typename T>
  T get() {
    T v{};
    need(sizeof(T));
    std::memcpy(&v, bytes_.constData() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }
  std::vector<float> floats() {
    const auto count = get<std::uint64_t>();
    if (count > std::uint64_t(bytes_.size())) fail();
    std::vector<float> v(count);
    need(count * sizeof(float));
    std::memcpy(v.data(), bytes_.constData() + at_, count * sizeof(float));
    at_ += count * sizeof(float);
    return v;
  }

 private:
  void need(std::size_t n) {
    if (at_ + n > std::size_t(bytes_.size())) fail();
  }
  [[noreturn]] void fail() {
    throw LoadError(path_, QStringLiteral("the checkpoint is truncated"));
  }
  const QByteArray& bytes_;
  QString path_;
  std::size_t at_ = 0;
};

}  // namespace

std::uint64_t rowHash(std::uint64_t row, const float* values, int d) {
  // Word by word (a hash of the bits, cheap enough for hundreds of millions of rows).
  std::uint64_t h = mix(row + 0x9e3779b97f4a7c15ULL);
  for (int c = 0; c < d; ++c) {
    std::uint32_t bits;
    std::memcpy(&bits, values + c, sizeof bits);
    h = (h ^ bits) * 0x9e3779b97f4a7c15ULL;
  }
  return mix(h);
}

void writeCheckpoint(const QString& path, const Checkpoint& c) {
  Writer w;
  w.bytes().append(kMagic, sizeof(kMagic));
  w.put(c.rows);
  w.put(std::int32_t(c.d));
  w.put(std::int32_t(c.k));
  w.put(c.seed);
  w.put(std::int32_t(c.init));
  w.put(std::int32_t(c.emptyClusters));
  w.put(c.tolerance);
  w.put(c.dataHash);
  w.put(std::int32_t(c.iteration));
  w.put(c.before);
  w.put(c.after);
  w.put(std::uint64_t(c.stats.size()));
  for (const IterationStats& s : c.stats) {
    w.put(std::int32_t(s.iteration));
    w.put(s.inertia);
    w.put(std::uint64_t(s.changed));
    w.put(s.max_shift);
    w.put(std::int32_t(s.empty_clusters));
    w.put(std::uint8_t(s.converged));
    w.put(s.ms.assign_ms);
    w.put(s.ms.reduce_ms);
    w.put(s.ms.update_ms);
    w.put(s.ms.copy_ms);
    w.put(s.ms.communication_ms);
  }
  w.put(fnv1a(w.bytes().constData(), std::size_t(w.bytes().size())));
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw ExportError(path, QStringLiteral("cannot write the checkpoint: ") + file.errorString());
  file.write(w.bytes());
  if (!file.commit())
    throw ExportError(path, QStringLiteral("cannot write the checkpoint: ") + file.errorString());
}

Checkpoint readCheckpoint(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly))
    throw LoadError(path, QStringLiteral("cannot open the checkpoint: ") + file.errorString());
  const QByteArray bytes = file.readAll();
  if (bytes.size() < qsizetype(sizeof(kMagic) + 8) ||
      std::memcmp(bytes.constData(), kMagic, sizeof(kMagic)) != 0)
    throw LoadError(path, QStringLiteral("not a kmeans-cli checkpoint (written by --checkpoint)"));
  std::uint64_t stored = 0;
  std::memcpy(&stored, bytes.constData() + bytes.size() - 8, 8);
  if (fnv1a(bytes.constData(), std::size_t(bytes.size()) - 8) != stored)
    throw LoadError(path,
                    QStringLiteral("the checkpoint is damaged (its checksum does not match)"));
  Reader r(bytes, path);
  r.get<std::array<char, 8>>();
  Checkpoint c;
  c.rows = r.get<std::uint64_t>();
  c.d = r.get<std::int32_t>();
  c.k = r.get<std::int32_t>();
  c.seed = r.get<std::uint64_t>();
  c.init = InitMethod(r.get<std::int32_t>());
  c.emptyClusters = EmptyClusterPolicy(r.get<std::int32_t>());
  c.tolerance = r.get<double>();
  c.dataHash = r.get<std::uint64_t>();
  c.iteration = r.get<std::int32_t>();
  c.before = r.floats();
  c.after = r.floats();
  const auto count = r.get<std::uint64_t>();
  if (c.d < 1 || c.k < 1 || c.iteration < 1 || count != std::uint64_t(c.iteration) ||
      c.before.size() != std::size_t(c.k) * std::size_t(c.d) || c.after.size() != c.before.size())
    throw LoadError(path, QStringLiteral("the checkpoint's sizes do not agree"));
  for (std::uint64_t i = 0; i < count; ++i) {
    IterationStats s;
    s.iteration = r.get<std::int32_t>();
    s.inertia = r.get<double>();
    s.changed = r.get<std::uint64_t>();
    s.max_shift = r.get<double>();
    s.empty_clusters = r.get<std::int32_t>();
    s.converged = r.get<std::uint8_t>() != 0;
    s.ms.assign_ms = r.get<double>();
    s.ms.reduce_ms = r.get<double>();
    s.ms.update_ms = r.get<double>();
    s.ms.copy_ms = r.get<double>();
    s.ms.communication_ms = r.get<double>();
    c.stats.push_back(s);
  }
  return c;
}

}  // namespace kms::app::cli
