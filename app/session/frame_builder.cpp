#include "session/frame_builder.h"

#include "io/export.h"
#include "session/label_pool.h"

#include <QElapsedTimer>
#include <QThread>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

namespace kms::session {
namespace {

/// Below this many pixels one thread is faster than waking the pool.
constexpr std::size_t kParallelPixels = 1 << 18;

struct RowRange {
  int first = 0;
  int last = 0;                // exclusive
  std::vector<double> weight;  // per-cluster weight seen in these rows
};

std::vector<RowRange> splitRows(int height, std::size_t pixels, int k) {
  const int ideal = std::max(1, QThread::idealThreadCount());
  const int chunks = pixels < kParallelPixels ? 1 : std::min(height, ideal * 4);
  std::vector<RowRange> ranges(std::size_t(std::max(chunks, 1)));
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    ranges[i].first = int(std::int64_t(height) * std::int64_t(i) / std::int64_t(ranges.size()));
    ranges[i].last = int(std::int64_t(height) * std::int64_t(i + 1) / std::int64_t(ranges.size()));
    ranges[i].weight.assign(std::size_t(k), 0.0);
  }
  return ranges;
}

void runRanges(std::vector<RowRange>& ranges, const std::function<void(RowRange&)>& work) {
  if (ranges.size() == 1) {
    work(ranges.front());
  } else {
    QtConcurrent::blockingMap(ranges, work);
  }
}

std::vector<double> normalised(std::vector<double> weight) {
  const double total = std::accumulate(weight.begin(), weight.end(), 0.0);
  if (total > 0.0)
    for (double& w : weight)
      w /= total;
  return weight;
}

/// Recolours the picture and counts the shares in one pass over the labels.
void recolour(const kms::app::Dataset& data, const std::vector<float>& centroids, int k,
              const std::vector<std::int32_t>& labels, Frame& frame) {
  std::vector<QRgb> lut(static_cast<std::size_t>(k));
  for (int c = 0; c < k; ++c)
    lut[std::size_t(c)] = kms::app::centroidColour(&centroids[std::size_t(c) * 3]);
  const bool hasAlpha = !data.alpha.empty();
  QImage image(data.width, data.height, hasAlpha ? QImage::Format_ARGB32 : QImage::Format_RGB32);
  const float* weights = data.weights.empty() ? nullptr : data.weights.data();
  auto ranges = splitRows(data.height, data.n, k);
  runRanges(ranges, [&](RowRange& range) {
    for (int y = range.first; y < range.last; ++y) {
      auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
      const std::size_t row = std::size_t(y) * std::size_t(data.width);
      for (int x = 0; x < data.width; ++x) {
        const std::size_t i = row + std::size_t(x);
        const auto label = std::size_t(labels[i]);
        QRgb rgb = lut[label];
        if (hasAlpha) rgb = (rgb & 0x00ffffffu) | (QRgb(data.alpha[i]) << 24);
        line[x] = rgb;
        range.weight[label] += weights ? double(weights[i]) : 1.0;
      }
    }
  });
  std::vector<double> weight(std::size_t(k), 0.0);
  for (const auto& range : ranges)
    for (int c = 0; c < k; ++c)
      weight[std::size_t(c)] += range.weight[std::size_t(c)];
  frame.shares = normalised(std::move(weight));
  frame.quantized = std::move(image);
}

}  // namespace

FramePtr buildFrame(kms::Snapshot& snapshot, const kms::app::DatasetPtr& data, std::uint64_t runId,
                    bool finished, std::shared_ptr<LabelPool> pool) {
  QElapsedTimer clock;
  clock.start();
  const kms::app::Dataset& dataset = *data;
  std::shared_ptr<Frame> frame;
  if (pool)
    frame.reset(new Frame, [pool](Frame* dead) {
      pool->give(std::move(dead->labels));
      delete dead;
    });
  else
    frame = std::make_shared<Frame>();
  frame->dataset = data;
  frame->runId = runId;
  frame->iteration = snapshot.iteration;
  frame->n = snapshot.n;
  frame->k = snapshot.k;
  frame->d = snapshot.d;
  frame->centroids = snapshot.centroids;
  frame->labels = std::move(snapshot.labels);
  snapshot.labels = {};
  frame->stats = snapshot.stats;
  frame->finished = finished;
  const bool labelled = frame->labels.size() == dataset.n && dataset.n > 0;
  if (labelled) {
    const bool picture = dataset.isImage() && dataset.d == 3 && dataset.width > 0 &&
                         dataset.height > 0 &&
                         std::size_t(dataset.width) * std::size_t(dataset.height) == dataset.n;
    if (picture)
      recolour(dataset, frame->centroids, frame->k, frame->labels, *frame);
    else
      frame->shares = kms::app::clusterShares(dataset, frame->labels, frame->k);
  }
  frame->buildMs = double(clock.nsecsElapsed()) / 1e6;
  return frame;
}

QImage originalImage(const kms::app::Dataset& data) {
  if (!data.isImage() || data.d != 3 || data.width <= 0 || data.height <= 0 ||
      std::size_t(data.width) * std::size_t(data.height) != data.n)
    return {};
  const bool hasAlpha = !data.alpha.empty();
  QImage image(data.width, data.height, hasAlpha ? QImage::Format_ARGB32 : QImage::Format_RGB32);
  auto ranges = splitRows(data.height, data.n, 0);
  runRanges(ranges, [&](RowRange& range) {
    for (int y = range.first; y < range.last; ++y) {
      auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
      const std::size_t row = std::size_t(y) * std::size_t(data.width);
      for (int x = 0; x < data.width; ++x) {
        const std::size_t i = row + std::size_t(x);
        const QRgb rgb = kms::app::centroidColour(&data.values[i * 3]);
        line[x] = hasAlpha ? (rgb & 0x00ffffffu) | (QRgb(data.alpha[i]) << 24) : rgb;
      }
    }
  });
  return image;
}

}  // namespace kms::session
