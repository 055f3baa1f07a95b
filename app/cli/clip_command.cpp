#include "cli/clip_command.h"

#include <cstdio>

#include <unistd.h>

#include "clip/clip_export.h"

namespace kms::app::cli {

QString writeClip(const CliOptions& options, const ClusteringInputPtr& input, std::uint64_t seed,
                  BackendKind backend) {
  clip::ClipJob job;
  job.input = input;
  job.config = options.config;
  job.config.seed = seed;
  job.backend = backend;
  const bool bar = !options.quiet && isatty(fileno(stderr));
  const clip::ClipResult clip =
      clip::exportClip(job, options.animate, options.clip, [&](int done, int total) {
        if (bar) std::fprintf(stderr, "\rclip: frame %d of %d", done, total);
      });
  if (bar) std::fprintf(stderr, "\r\033[K");
  return QStringLiteral("wrote %1: %2 frames of %3 × %4 (%5 iterations%6), %7 KB in %8 s")
      .arg(options.animate)
      .arg(clip.frames)
      .arg(clip.size.width())
      .arg(clip.size.height())
      .arg(clip.iterations)
      .arg(options.clip.halfSteps ? QStringLiteral(" as half-steps") : QString())
      .arg((clip.bytes + 512) / 1024)
      .arg(clip.seconds, 0, 'f', 2);
}

}  // namespace kms::app::cli
