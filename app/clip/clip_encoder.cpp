#include "clip/clip_encoder.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStringList>

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "kmeans/backend.h"
#include "kmeans/config.h"
#include "kmeans/engine.h"

namespace kms::app::clip {

// The encoders themselves (clip_gif.cpp, clip_webp.cpp, clip_mp4.cpp), each built only with its
// library.
#ifdef KMS_WITH_GIF
std::unique_ptr<ClipEncoder> makeGifEncoder(QSize size);
#endif
#ifdef KMS_WITH_WEBP
std::unique_ptr<ClipEncoder> makeWebpEncoder(QSize size);
#endif
#ifdef KMS_WITH_FFMPEG
/// The MP4 encoder lives in the module libkms_clip_mp4.so (FFmpeg's libraries are loaded only
/// with it), looked for in $KMS_CLIP_MODULE_DIR, next to the program (or library) holding this
/// code, in ../lib/kmeans-studio from there, where `cmake --install` puts it, and in the build
/// folder.
std::unique_ptr<ClipEncoder> loadMp4Encoder(QSize size, int framesPerSecond) {
  using Make = ClipEncoder* (*)(int, int, int);
  static Make make = nullptr;
  static QString problem;
  static std::once_flag loaded;
  std::call_once(loaded, [] {
    QStringList dirs;
    if (const QByteArray env = qgetenv("KMS_CLIP_MODULE_DIR"); !env.isEmpty())
      dirs << QString::fromLocal8Bit(env);
    Dl_info here{};
    if (dladdr(reinterpret_cast<void*>(&loadMp4Encoder), &here) && here.dli_fname) {
      const QString own = QFileInfo(QString::fromLocal8Bit(here.dli_fname)).absolutePath();
      dirs << own << own + QStringLiteral("/../lib/kmeans-studio");
    }
    dirs << QStringLiteral(KMS_CLIP_MODULE_INSTALL_DIR)
         << QStringLiteral(KMS_CLIP_MODULE_BUILD_DIR);
    QStringList tried;
    for (const QString& dir : dirs) {
      const QString path = QDir(dir).filePath(QStringLiteral("libkms_clip_mp4.so"));
      if (!QFileInfo::exists(path)) continue;
      // Kept loaded for the program's life (never closed).
      if (void* library = dlopen(QFile::encodeName(path).constData(), RTLD_NOW | RTLD_LOCAL)) {
        make = reinterpret_cast<Make>(dlsym(library, "kmsClipMakeMp4Encoder"));
        if (make) return;
        tried << path + QStringLiteral(": no kmsClipMakeMp4Encoder in it");
        continue;
      }
      const char* why = dlerror();
      tried << QString::fromLocal8Bit(why ? why : "cannot be loaded");
    }
    problem =
        tried.isEmpty()
            ? QStringLiteral("libkms_clip_mp4.so (the MP4 encoder) is not installed; looked in ") +
                  dirs.join(QStringLiteral(", "))
            : tried.join(QStringLiteral("; "));
  });
  if (!make) throw std::runtime_error("MP4: " + problem.toStdString());
  return std::unique_ptr<ClipEncoder>(make(size.width(), size.height(), framesPerSecond));
}
#endif

std::optional<ClipFormat> clipFormatOf(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == QLatin1String("gif")) return ClipFormat::Gif;
  if (suffix == QLatin1String("webp")) return ClipFormat::WebP;
  if (suffix == QLatin1String("mp4")) return ClipFormat::Mp4;
  return std::nullopt;
}

QString toString(ClipFormat format) {
  switch (format) {
    case ClipFormat::Gif:
      return QStringLiteral("GIF");
    case ClipFormat::WebP:
      return QStringLiteral("WebP");
    case ClipFormat::Mp4:
      return QStringLiteral("MP4");
  }
  return {};
}

bool clipFormatBuilt(ClipFormat format) {
  switch (format) {
    case ClipFormat::Gif:
#ifdef KMS_WITH_GIF
      return true;
#else
      return false;
#endif
    case ClipFormat::WebP:
#ifdef KMS_WITH_WEBP
      return true;
#else
      return false;
#endif
    case ClipFormat::Mp4:
#ifdef KMS_WITH_FFMPEG
      return true;
#else
      return false;
#endif
  }
  return false;
}

QString clipFormatPackage(ClipFormat format) {
  switch (format) {
    case ClipFormat::Gif:
      return QStringLiteral("libgif-dev");
    case ClipFormat::WebP:
      return QStringLiteral("libwebp-dev");
    case ClipFormat::Mp4:
      return QStringLiteral("libavcodec-dev libavformat-dev libswscale-dev");
  }
  return {};
}

std::unique_ptr<ClipEncoder> makeClipEncoder(ClipFormat format, QSize size, int framesPerSecond) {
  if (!clipFormatBuilt(format))
    throw std::runtime_error(QStringLiteral("this build has no %1 encoder (install %2 and rebuild)")
                                 .arg(toString(format), clipFormatPackage(format))
                                 .toStdString());
  switch (format) {
#ifdef KMS_WITH_GIF
    case ClipFormat::Gif:
      return makeGifEncoder(size);
#endif
#ifdef KMS_WITH_WEBP
    case ClipFormat::WebP:
      return makeWebpEncoder(size);
#endif
#ifdef KMS_WITH_FFMPEG
    case ClipFormat::Mp4:
      return loadMp4Encoder(size, framesPerSecond);
#endif
    default:
      break;
  }
  (void)size;
  (void)framesPerSecond;
  throw std::runtime_error("no encoder");
}

QImage indexedFrame(const QImage& frame) {
  const QImage rgb = frame.convertToFormat(QImage::Format_RGB32);
  const int w = rgb.width(), h = rgb.height();
  // Distinct colours and how many pixels each has, in order of first appearance (deterministic).
  std::unordered_map<QRgb, std::uint32_t> slot;
  std::vector<QRgb> distinct;
  std::vector<std::uint32_t> counts;
  QRgb previous = 0;  // runs of one colour (the background) skip the look-up
  std::uint32_t previousSlot = 0;
  for (int y = 0; y < h; ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    for (int x = 0; x < w; ++x) {
      const QRgb c = line[x] | 0xff000000u;
      if (c != previous || distinct.empty()) {
        const auto [it, added] = slot.try_emplace(c, std::uint32_t(distinct.size()));
        if (added) {
          distinct.push_back(c);
          counts.push_back(0);
        }
        previous = c;
        previousSlot = it->second;
      }
      ++counts[previousSlot];
    }
  }
  QList<QRgb> table;
  std::vector<std::int32_t> entryOf(distinct.size());
  if (distinct.size() <= 256) {
    table = QList<QRgb>(distinct.begin(), distinct.end());
    for (std::size_t i = 0; i < distinct.size(); ++i)
      entryOf[i] = std::int32_t(i);
  } else {
    std::vector<float> rows(distinct.size() * 3);
    for (std::size_t i = 0; i < distinct.size(); ++i) {
      rows[3 * i] = float(qRed(distinct[i])) / 255.0f;
      rows[3 * i + 1] = float(qGreen(distinct[i])) / 255.0f;
      rows[3 * i + 2] = float(qBlue(distinct[i])) / 255.0f;
    }
    kms::EngineOptions options;
    options.cpu_threads = 1;  // frames are indexed in parallel, one a thread
    auto engine = kms::createEngine(kms::BackendKind::Cpu, options).engine;
    kms::DataView view{rows.data(), distinct.size(), 3};
    view.counts = counts.data();
    engine->setData(view);
    kms::KMeansConfig config;
    config.k = 256;
    config.seed = 1;
    config.max_iterations = 12;
    engine->initialize(config);
    engine->run();
    kms::Snapshot result;
    engine->snapshot(result);
    std::vector<std::int32_t> labels;
    engine->assign(result.centred_centroids, labels);
    for (int j = 0; j < 256; ++j) {
      const float* c = &result.centroids[std::size_t(j) * 3];
      const auto channel = [](float v) {
        return int(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f));
      };
      table.append(qRgb(channel(c[0]), channel(c[1]), channel(c[2])));
    }
    entryOf.assign(labels.begin(), labels.end());
  }
  QImage indexed(w, h, QImage::Format_Indexed8);
  indexed.setColorTable(table);
  previous = 0;
  uchar previousEntry = 0;
  bool known = false;
  for (int y = 0; y < h; ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    uchar* out = indexed.scanLine(y);
    for (int x = 0; x < w; ++x) {
      const QRgb c = line[x] | 0xff000000u;
      if (!known || c != previous) {
        previous = c;
        previousEntry = uchar(entryOf[slot.find(c)->second]);
        known = true;
      }
      out[x] = previousEntry;
    }
  }
  return indexed;
}

}  // namespace kms::app::clip
