// Helpers shared by the GUI and session tests.
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QThread>

#include <functional>

#include "core/dataset.h"
#include "io/generators.h"

namespace kms::test {

/// Runs the event loop until `done` returns true or `timeoutMs` passes; returns done().
inline bool waitFor(const std::function<bool()>& done, int timeoutMs = 20000) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > timeoutMs) return done();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    QThread::msleep(1);
  }
  return true;
}

/// Lets the event loop run for `ms` milliseconds.
inline void spin(int ms) {
  waitFor([] { return false; }, ms);
}

inline kms::app::DatasetPtr blobs(std::size_t n, int groups = 4, int d = 2, double noise = 0.08,
                                  std::uint64_t seed = 3) {
  kms::app::GeneratorParams params;
  params.kind = kms::app::GeneratorKind::Blobs;
  params.n = n;
  params.groups = groups;
  params.d = d;
  params.noise = noise;
  params.seed = seed;
  return kms::app::generateDataset(params);
}

/// Uniform points: k-means takes many iterations to settle on them (blobs settle in a few).
inline kms::app::DatasetPtr uniform(std::size_t n, int d = 2, std::uint64_t seed = 5) {
  kms::app::GeneratorParams params;
  params.kind = kms::app::GeneratorKind::Uniform;
  params.n = n;
  params.d = d;
  params.seed = seed;
  return kms::app::generateDataset(params);
}

}  // namespace kms::test
