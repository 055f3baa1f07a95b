#include "core/cluster_input.h"

#include <algorithm>

#include "core/format.h"
#include "core/parallel.h"
#include "kmeans/compact.h"
#include "kmeans/config.h"
#include "kmeans/errors.h"

namespace kms::app {
namespace {

bool cancelled(const std::atomic<bool>* cancel) {
  return cancel && cancel->load(std::memory_order_relaxed);
}

}  // namespace

std::string_view toString(Compaction compaction) {
  switch (compaction) {
    case Compaction::Auto:
      return "auto";
    case Compaction::Always:
      return "always";
    case Compaction::Never:
      return "never";
  }
  return "?";
}

std::optional<Compaction> parseCompaction(std::string_view text) {
  if (text == "auto") return Compaction::Auto;
  if (text == "always" || text == "on" || text == "dedupe") return Compaction::Always;
  if (text == "never" || text == "off" || text == "per-pixel") return Compaction::Never;
  return std::nullopt;
}

std::shared_ptr<const ClusteringInput> ClusteringInput::build(DatasetPtr dataset,
                                                              const ClusteringOptions& options,
                                                              const std::atomic<bool>* cancel) {
  std::shared_ptr<ClusteringInput> input(new ClusteringInput);
  input->dataset_ = dataset;
  input->options_ = options;
  const Dataset& data = *dataset;
  const std::size_t d = std::size_t(data.d);
  input->space_ = data.isImage() && (data.d == 3 || data.d == 4) ? options.colourSpace
                                                                   : ColourSpace::SRGB;
  if (input->space_ != ColourSpace::SRGB) {
    input->converted_ = data.values;
    parallelRanges(data.n, 4096, [&](std::size_t begin, std::size_t end) {
      convertRowsFromSrgb(input->space_, input->converted_.data() + begin * d, end - begin,
                          data.d);
    });
  }
  if (cancelled(cancel)) return nullptr;
  const std::vector<float>& rows = input->datasetRowsInSpace();

  input->mapping_ = Mapping::Same;
  input->rows_ = data.n;
  if (options.compaction == Compaction::Never && data.isCompact()) {
    // Every pixel is a row of its own, in pixel order (left-out pixels stay out).
    input->mapping_ = Mapping::Items;
    const std::size_t items = data.itemCount();
    if (data.hasLeftOutItems())
      for (std::size_t i = 0; i < items; ++i)
        if (data.index[i] != kNoRow) input->map_.push_back(std::uint32_t(i));
    input->rows_ = input->map_.empty() ? items : input->map_.size();
    input->engineValues_.resize(input->rows_ * d);
    parallelRanges(input->rows_, 65536, [&](std::size_t begin, std::size_t end) {
      for (std::size_t e = begin; e < end; ++e) {
        const std::size_t item = input->map_.empty() ? e : input->map_[e];
        const float* from = &rows[std::size_t(data.index[item]) * d];
        std::copy(from, from + d, &input->engineValues_[e * d]);
      }
    });
  } else if (options.compaction == Compaction::Always && !data.isCompact() &&
             data.weights.empty()) {
    if (auto distinct = distinctRows(rows.data(), data.n, data.d)) {
      input->mapping_ = Mapping::Distinct;
      input->rows_ = distinct->rows();
      input->engineValues_ = std::move(distinct->values);
      input->engineCounts_ = std::move(distinct->counts);
      input->map_ = std::move(distinct->index);
    }
  }
  if (cancelled(cancel)) return nullptr;
  return input;
}

kms::DataView ClusteringInput::view() const {
  switch (mapping_) {
    case Mapping::Same: {
      kms::DataView v = dataset_->view();
      v.points = datasetRowsInSpace().data();
      return v;
    }
    case Mapping::Items:
      return kms::DataView{engineValues_.data(), rows_, dataset_->d};
    case Mapping::Distinct:
      return kms::DataView{engineValues_.data(), rows_, dataset_->d, nullptr,
                           engineCounts_.data()};
  }
  return {};
}

QString ClusteringInput::rowNoun() const {
  switch (mapping_) {
    case Mapping::Same:
      if (dataset_->isImage()) return dataset_->isCompact() ? QStringLiteral("distinct colours")
                                                            : QStringLiteral("pixels");
      return dataset_->isCompact() ? QStringLiteral("distinct points") : QStringLiteral("points");
    case Mapping::Items:
      return dataset_->isImage() ? QStringLiteral("pixels") : QStringLiteral("points");
    case Mapping::Distinct:
      return QStringLiteral("distinct points");
  }
  return QStringLiteral("points");
}

void ClusteringInput::checkK(int k) const {
  if (k >= 1 && k <= kms::kMaxClusters && std::size_t(k) > rows_)
    throw kms::InvalidArgument(QStringLiteral("k = %1 is larger than the number of %2 (%3). "
                                              "Choose k ≤ %3.")
                                   .arg(k)
                                   .arg(rowNoun(), groupedCount(rows_))
                                   .toStdString());
}

void ClusteringInput::toDatasetRows(const std::vector<std::int32_t>& engine,
                                    std::vector<std::int32_t>& out) const {
  switch (mapping_) {
    case Mapping::Same:
      out = engine;
      return;
    case Mapping::Items: {
      // Every pixel of a colour has that colour's label (equal values, equal labels), so any
      // of them names the row's label.
      out.assign(dataset_->n, 0);
      for (std::size_t e = 0; e < engine.size(); ++e) {
        const std::size_t item = map_.empty() ? e : map_[e];
        out[dataset_->index[item]] = engine[e];
      }
      return;
    }
    case Mapping::Distinct:
      out.resize(dataset_->n);
      for (std::size_t r = 0; r < dataset_->n; ++r)
        out[r] = engine[map_[r]];
      return;
  }
}

std::vector<float> ClusteringInput::toDatasetSpace(const std::vector<float>& centroids) const {
  std::vector<float> out = centroids;
  if (space_ != ColourSpace::SRGB)
    convertRowsToSrgb(space_, out.data(), out.size() / std::size_t(dataset_->d), dataset_->d);
  return out;
}

const std::vector<float>& ClusteringInput::datasetRowsInSpace() const {
  return converted_.empty() ? dataset_->values : converted_;
}

}  // namespace kms::app
