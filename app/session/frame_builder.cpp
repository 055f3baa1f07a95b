#include "session/frame_builder.h"

#include "core/parallel.h"
#include "io/export.h"
#include "session/label_pool.h"

#include <QElapsedTimer>

namespace kms::session {

namespace {

/// Data set rows whose label differs between `before` and `after` (engine rows), at most
/// Frame::kMaxMarkedRows of them (none when more changed).
std::vector<std::uint32_t> changedRows(const kms::app::ClusteringInput& input,
                                       const std::vector<std::int32_t>& before,
                                       const std::vector<std::int32_t>& after) {
  if (before.empty() || before.size() != after.size()) return {};
  std::vector<std::int32_t> a, b;
  const std::vector<std::int32_t>* x = &before;
  const std::vector<std::int32_t>* y = &after;
  if (!input.rowsAreDatasetRows()) {
    input.toDatasetRows(before, a);
    input.toDatasetRows(after, b);
    x = &a;
    y = &b;
  }
  std::vector<std::uint32_t> rows;
  for (std::size_t i = 0; i < x->size(); ++i) {
    if ((*x)[i] == (*y)[i]) continue;
    if (rows.size() == Frame::kMaxMarkedRows) return {};
    rows.push_back(std::uint32_t(i));
  }
  return rows;
}

}  // namespace

FramePtr buildFrame(kms::Snapshot& snapshot, const FrameContext& context, std::uint64_t runId,
                    bool finished, std::shared_ptr<LabelPool> pool, const StartInfo* starts,
                    const PhaseInfo* phase) {
  QElapsedTimer clock;
  clock.start();
  const kms::app::ClusteringInput& input = *context.input;
  const kms::app::Dataset& dataset = *input.dataset();
  std::shared_ptr<Frame> frame;
  if (pool)
    frame.reset(new Frame, [pool](Frame* dead) {
      pool->give(std::move(dead->labels));
      delete dead;
    });
  else
    frame = std::make_shared<Frame>();
  frame->dataset = input.dataset();
  frame->input = context.input;
  frame->runId = runId;
  frame->iteration = snapshot.iteration;
  frame->n = dataset.n;
  frame->k = snapshot.k;
  frame->d = snapshot.d;
  frame->engineCentroids = snapshot.centroids;
  frame->centroids = input.toDatasetSpace(snapshot.centroids);
  frame->latestIteration = snapshot.iteration;
  if (phase) {
    frame->phase = phase->phase;
    frame->latestIteration = phase->latestIteration;
    const kms::Snapshot* before = phase->previous;
    if (before && phase->phase != StepPhase::Whole) {
      frame->changedRows = changedRows(input, before->labels, snapshot.labels);
      if (phase->phase == StepPhase::Assign) {  // the labels with the centroids they came from
        frame->engineCentroids = before->centroids;
        frame->centroids = input.toDatasetSpace(before->centroids);
      } else {
        frame->movedFrom = input.toDatasetSpace(before->centroids);
      }
    }
  }
  if (input.rowsAreDatasetRows()) {
    frame->labels = std::move(snapshot.labels);
    snapshot.labels = {};
  } else if (!snapshot.labels.empty()) {
    input.toDatasetRows(snapshot.labels, frame->labels);
  }
  frame->stats = snapshot.stats;
  frame->finished = finished;
  if (starts) {
    frame->start = starts->start;
    frame->starts = starts->starts;
    frame->bestStart = starts->best;
    frame->startSummaries = starts->summaries;
  }
  if (dataset.isImage() && dataset.d >= 3)
    frame->palette = kms::app::paletteOf(frame->centroids, dataset.d);
  const bool labelled = frame->labels.size() == dataset.n && dataset.n > 0;
  if (labelled) {
    frame->shares = kms::app::clusterShares(dataset, frame->labels, frame->k);
    const bool picture =
        dataset.isImage() && !frame->palette.empty() && dataset.width > 0 && dataset.height > 0 &&
        std::size_t(dataset.width) * std::size_t(dataset.height) == dataset.itemCount();
    if (picture) {
      frame->quantized = kms::app::quantizedImage(dataset, frame->palette, frame->labels);
      if (context.quality)
        frame->quality = context.quality->measure(frame->labels, frame->palette, finished);
    }
  }
  frame->buildMs = double(clock.nsecsElapsed()) / 1e6;
  return frame;
}

QImage originalImage(const kms::app::Dataset& data) {
  if (!data.isImage() || data.d < 3 || data.width <= 0 || data.height <= 0 ||
      std::size_t(data.width) * std::size_t(data.height) != data.itemCount())
    return {};
  if (!data.picture.isNull()) return data.picture;
  // Generated pictures: every pixel from its row (left-out pixels transparent).
  const bool alpha = data.hasAlphaChannel() || data.hasLeftOutItems();
  QImage image(data.width, data.height, alpha ? QImage::Format_ARGB32 : QImage::Format_RGB32);
  uchar* bits = image.bits();
  const std::size_t stride = std::size_t(image.bytesPerLine());
  const std::size_t width = std::size_t(data.width);
  kms::app::parallelRanges(std::size_t(data.height), 64, [&](std::size_t y0, std::size_t y1) {
    for (std::size_t y = y0; y < y1; ++y) {
      auto* line = reinterpret_cast<QRgb*>(bits + y * stride);
      for (std::size_t x = 0; x < width; ++x) {
        const std::uint32_t row = data.rowOf(y * width + x);
        line[x] = row == kms::kNoRow
                      ? qRgba(0, 0, 0, 0)
                      : kms::app::centroidColour(
                            &data.values[std::size_t(row) * std::size_t(data.d)], data.d);
      }
    }
  });
  return image;
}

}  // namespace kms::session
