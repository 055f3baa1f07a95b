#include "cli/progress.h"

#include <unistd.h>

#include <algorithm>
#include <string>

#include "core/format.h"

namespace kms::app::cli {

ProgressPrinter::ProgressPrinter(std::FILE* out, std::size_t n, int maxIterations)
    : out_(out), n_(n), maxIterations_(maxIterations), terminal_(isatty(fileno(out)) == 1) {}

void ProgressPrinter::iteration(const IterationStats& s) {
  const double changedPercent = n_ ? 100.0 * double(s.changed) / double(n_) : 0.0;
  if (!terminal_) {
    std::fprintf(out_, "iter %3d  inertia %.6e  changed %s (%.2f%%)  shift %.1e  %.2f ms\n",
                 s.iteration, s.inertia, groupedCount(s.changed).toUtf8().constData(),
                 changedPercent, s.max_shift, s.ms.computeMs());
    return;
  }
  // The bar measures progress against the iteration cap; convergence usually ends it early.
  constexpr int kWidth = 30;
  const int filled = int(double(kWidth) * s.iteration / maxIterations_);
  const std::string bar =
      std::string(std::size_t(filled), '#') + std::string(std::size_t(kWidth - filled), '.');
  std::fprintf(out_, "\r[%s] %d/%d  inertia %.4e  changed %.2f%%  %.2f ms\x1b[K", bar.c_str(),
               s.iteration, maxIterations_, s.inertia, changedPercent, s.ms.computeMs());
  std::fflush(out_);
  barShown_ = true;
}

void ProgressPrinter::finish() {
  if (barShown_) std::fputc('\n', out_);
  barShown_ = false;
  std::fflush(out_);
}

LoadingBar::LoadingBar(std::FILE* out, const QString& name)
    : out_(out), name_(name.toUtf8()), terminal_(isatty(fileno(out)) == 1) {}

LoadingBar::~LoadingBar() {
  if (percent_ < 0) return;
  std::fputs("\r\x1b[K", out_);
  std::fflush(out_);
}

void LoadingBar::update(double fraction) {
  const int percent = int(100.0 * std::clamp(fraction, 0.0, 1.0));
  if (!terminal_ || percent == percent_) return;
  percent_ = percent;
  std::fprintf(out_, "\rreading %s  %3d%%\x1b[K", name_.constData(), percent);
  std::fflush(out_);
}

}  // namespace kms::app::cli
