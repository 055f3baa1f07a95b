// Values that travel between the session's worker thread and the GUI: run settings, the session
// state, one record per iteration and the immutable frames the views draw.
#pragma once

#include <QImage>
#include <QMetaType>
#include <QString>

#include <functional>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/cluster_input.h"
#include "core/dataset.h"
#include "core/quality.h"
#include "io/export.h"
#include "io/generators.h"
#include "kmeans/backend.h"
#include "kmeans/config.h"
#include "kmeans/engine.h"

namespace kms::session {

/// Everything the user chooses before pressing Play.
struct RunSettings {
  kms::KMeansConfig config;  ///< k, init, seed, max_iterations, tolerance
  kms::BackendKind backend = kms::BackendKind::Auto;
  kms::app::ClusteringOptions clustering;  ///< colour space, distinct values or every item
  int restarts = 1;  ///< seeded starts (seeds seed, seed + 1, ...); the lowest inertia wins
};

/// Makes the engine for a backend (kms::createEngine unless a test injects its own, e.g. one
/// whose GPU fails mid-run). Called on the worker thread.
using EngineFactory = std::function<kms::CreatedEngine(kms::BackendKind)>;

enum class SessionState {
  NoData,     ///< nothing loaded yet
  Preparing,  ///< the worker is uploading data / seeding centroids
  Ready,      ///< initialised, iteration 0, waiting for Play or Step
  Running,    ///< iterating (flat out or paced)
  Paused,     ///< stopped part-way; Play continues
  Finished,   ///< converged or reached max iterations; Reset starts again
  Invalid,    ///< the settings cannot be used on this data (the error says why)
};

QString toDisplayString(SessionState state);

/// The stats of one iteration as the charts need them; every iteration produces one.
struct IterationRecord {
  std::uint64_t runId = 0;  ///< which run (a reset or new data starts a new one)
  int start = 0;            ///< which start of a best-of-N run
  kms::IterationStats stats;
  double wallMs = 0.0;  ///< worker wall clock since iteration 1 began, when this step returned
};

/// Which part of an iteration a frame shows. Running and whole steps show whole iterations;
/// half-steps show k-means's two moves apart.
enum class StepPhase {
  Whole,   ///< labels of the iteration and the centroids its update produced
  Assign,  ///< labels of the iteration with the centroids they were assigned to (not yet moved)
  Update,  ///< the centroids moved to the means of those labels (arrows from where they were)
};

/// One complete picture of a run, built on the worker. Never modified after it is published,
/// so views on the GUI thread can keep it as long as they like without copying. Labels and
/// centroids are the data set's: one label per data set row, centroids in its own units (sRGB
/// for pictures, whatever space they were clustered in).
struct Frame {
  kms::app::DatasetPtr dataset;  ///< the data this frame is of (views drop frames of older data)
  kms::app::ClusteringInputPtr input;  ///< what the engine clustered (colour space, rows)
  std::uint64_t runId = 0;
  int iteration = 0;
  std::size_t n = 0;  ///< data set rows
  int k = 0;
  int d = 0;
  std::vector<float> centroids;        ///< k × d, the data set's units (sRGB for pictures)
  std::vector<float> engineCentroids;  ///< k × d, the clustering space (dithering uses these)
  std::vector<std::int32_t> labels;    ///< n values; empty at iteration 0
  std::vector<double> shares;          ///< k weight fractions; empty at iteration 0
  std::vector<QRgb> palette;           ///< pictures: each cluster's colour
  QImage quantized;                    ///< pictures from iteration 1 on: recoloured pixels
  kms::app::Quality quality;           ///< pictures from iteration 1 on (ΔE estimated)
  kms::IterationStats stats;           ///< stats of `iteration` (zero at iteration 0)
  bool finished = false;               ///< converged or reached max iterations
  /// Best of N starts: which start this frame shows (0-based) and how they all ended (filled
  /// once every start has finished).
  int start = 0;
  int starts = 1;
  std::vector<kms::app::StartSummary> startSummaries;
  int bestStart = -1;
  double buildMs = 0.0;  ///< what building this frame cost the worker
  /// Half-steps and history: which part of `iteration` this frame shows. In the Assign phase
  /// `centroids` are the ones the labels were assigned to (before this iteration's update).
  StepPhase phase = StepPhase::Whole;
  /// Update phase: where each centroid was before this iteration's update (k × d, data set
  /// units), for arrows; empty otherwise.
  std::vector<float> movedFrom;
  /// Assign and Update phases from iteration 2 on: data set rows whose label this iteration
  /// changed (empty when none did, or when more than kMaxMarkedRows did).
  std::vector<std::uint32_t> changedRows;
  static constexpr std::size_t kMaxMarkedRows = 1u << 20;
  /// The newest iteration of the run; larger than `iteration` when looking back in history.
  int latestIteration = 0;
};
using FramePtr = std::shared_ptr<const Frame>;

/// Which engine the worker runs, for the status bar and reports.
struct EngineDescription {
  QString backend;  ///< "cpu" / "cuda"
  QString device;
  QString note;  ///< why Auto chose the CPU, empty otherwise
};

/// Registers the types above for queued signals. Called by SessionController; idempotent.
void registerSessionMetaTypes();

}  // namespace kms::session

Q_DECLARE_METATYPE(kms::session::RunSettings)
Q_DECLARE_METATYPE(kms::session::SessionState)
Q_DECLARE_METATYPE(kms::session::StepPhase)
Q_DECLARE_METATYPE(kms::session::FramePtr)
Q_DECLARE_METATYPE(kms::session::EngineDescription)
Q_DECLARE_METATYPE(kms::app::DatasetPtr)
Q_DECLARE_METATYPE(kms::app::GeneratorParams)
