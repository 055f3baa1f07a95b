// Exporting a run as an animated clip for slides: kmeans-cli --animate and the window's
// File ▸ Export ▸ Animation… both come here, so both give the same file.
#pragma once

#include <QSize>
#include <QString>

#include <atomic>
#include <functional>

#include "clip/clip_encoder.h"
#include "core/cluster_input.h"
#include "kmeans/backend.h"
#include "kmeans/config.h"

namespace kms::app::clip {

struct ClipOptions {
  QSize size{800, 600};          ///< pixels (240 × 180 to 3840 × 2160; MP4 rounds down to even)
  double framesPerSecond = 4.0;  ///< pace: frames a second (0.5 to 60)
  bool halfSteps = false;        ///< each iteration as its two moves, assign then update
  int holdLastMs = 2000;         ///< the last frame stays this long before the clip loops
};

/// Throws std::invalid_argument with a message fit for a user when `options` cannot be used.
void validateClipOptions(const ClipOptions& options);

/// What to replay: the data as clustered and the run's configuration, its seed being the start
/// to show (the same trajectory as in the window or kmeans-cli).
struct ClipJob {
  ClusteringInputPtr input;
  kms::KMeansConfig config;
  kms::BackendKind backend = kms::BackendKind::Auto;
};

struct ClipResult {
  int frames = 0;
  int iterations = 0;
  qint64 bytes = 0;
  double seconds = 0.0;  ///< wall time of the export
  QSize size;            ///< of the frames written (MP4 rounds an odd size down to even)
};

/// Called after each frame is encoded: frames done, frames in all. Returning is all it does;
/// cancel through the flag.
using ClipProgress = std::function<void(int done, int total)>;

/// Replays `job`, draws every frame (in parallel) and writes the clip to `path`, its format
/// chosen by the suffix (.gif, .webp, .mp4). Nothing is written unless the whole clip is:
/// throws ExportError naming the file (unknown suffix, a format this build lacks, a failed
/// write), kms::Interrupted when `cancel` is raised (within one batch of frames), and as
/// Engine::initialize for a bad configuration.
ClipResult exportClip(const ClipJob& job, const QString& path, const ClipOptions& options,
                      const ClipProgress& progress = {}, const std::atomic<bool>* cancel = nullptr);

}  // namespace kms::app::clip
