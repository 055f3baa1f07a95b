// What the engine clusters for a data set: its rows, or every item, or its distinct points, in
// the chosen colour space — and the way back from the engine's labels and centroids to the data
// set's rows and to colours a screen shows. Built once per (data set, options) off the GUI
// thread; immutable and shared afterwards.
#pragma once

#include <QString>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/colour_space.h"
#include "core/dataset.h"
#include "kmeans/data.h"

namespace kms::app {

/// Whether the engine clusters distinct values with their counts or every item.
enum class Compaction {
  Auto,    ///< pictures: their distinct colours; point sets: every point as given
  Always,  ///< also point sets, when points repeat (--dedupe); exact in the same sense
  Never,   ///< every item is a row: a picture pixel by pixel (slower; the same result)
};

std::string_view toString(Compaction compaction);
/// Accepts "auto", "always" (also "on", "dedupe") and "never" (also "off", "per-pixel").
std::optional<Compaction> parseCompaction(std::string_view text);

struct ClusteringOptions {
  ColourSpace colourSpace = ColourSpace::SRGB;  ///< pictures only; point sets ignore it
  Compaction compaction = Compaction::Auto;
  bool operator==(const ClusteringOptions&) const = default;
};

class ClusteringInput {
 public:
  /// Builds the engine's input. `cancel`, when set and raised, stops the work (returns null).
  static std::shared_ptr<const ClusteringInput> build(DatasetPtr dataset,
                                                      const ClusteringOptions& options,
                                                      const std::atomic<bool>* cancel = nullptr);

  const DatasetPtr& dataset() const { return dataset_; }
  const ClusteringOptions& options() const { return options_; }
  /// The colour space the engine works in (sRGB for point sets).
  ColourSpace space() const { return space_; }

  /// The engine's data; valid while this input lives.
  kms::DataView view() const;
  std::size_t rows() const { return rows_; }
  int d() const { return dataset_->d; }
  /// The engine's rows are the data set's rows (labels need no mapping).
  bool rowsAreDatasetRows() const { return mapping_ == Mapping::Same; }
  /// What the rows are, for messages: "distinct colours", "pixels", "distinct points", "points".
  QString rowNoun() const;

  /// Throws InvalidArgument with a message fit for a user when k cannot be used: "k = 16 is
  /// larger than the number of distinct colours (5). Choose k ≤ 5." Otherwise as validateConfig.
  void checkK(int k) const;

  /// Labels per data set row from labels per engine row (any order of rows; `out` resized).
  void toDatasetRows(const std::vector<std::int32_t>& engine, std::vector<std::int32_t>& out) const;

  /// Centroids (k × d, engine space) as the data set's own values: sRGB in [0, 1] (alpha last)
  /// for pictures, unchanged for point sets.
  std::vector<float> toDatasetSpace(const std::vector<float>& centroids) const;

  /// The data set's rows in the engine's colour space (n × d), for dithering and nearest-colour
  /// look-ups; the data set's own values in sRGB.
  const std::vector<float>& datasetRowsInSpace() const;

 private:
  enum class Mapping { Same, Items, Distinct };
  ClusteringInput() = default;

  DatasetPtr dataset_;
  ClusteringOptions options_;
  ColourSpace space_ = ColourSpace::SRGB;
  Mapping mapping_ = Mapping::Same;
  std::size_t rows_ = 0;
  /// The data set's rows in the engine's space (empty: the data set's values are used).
  std::vector<float> converted_;
  /// Engine rows when they differ from the data set's rows (Items, Distinct).
  std::vector<float> engineValues_;
  std::vector<std::uint32_t> engineCounts_;
  /// Items: the item each engine row is (empty: row e is item e). Distinct: the engine row of
  /// each data set row.
  std::vector<std::uint32_t> map_;
};

using ClusteringInputPtr = std::shared_ptr<const ClusteringInput>;

}  // namespace kms::app
