#include "clip/clip_run.h"

#include <stdexcept>

#include "kmeans/errors.h"

namespace kms::app::clip {

ClipRun::ClipRun(ClusteringInputPtr input, kms::KMeansConfig config, kms::BackendKind backend,
                 const std::atomic<bool>* cancel)
    : input_(std::move(input)), config_(std::move(config)) {
  if (!input_) throw std::invalid_argument("ClipRun: no data");
  config_.keep_history = true;
  engine_ = kms::createEngine(backend).engine;
  engine_->setInterruptFlag(cancel);
  engine_->setData(input_->view());
  engine_->initialize(config_);
  engine_->run([&](const kms::IterationStats& s) {
    stats_.push_back(s);
    return !(cancel && cancel->load(std::memory_order_relaxed));
  });
  if (cancel && cancel->load()) throw kms::Interrupted("the clip's run was cancelled");
  iterations_ = engine_->iteration();
}

int ClipRun::frameCount(bool halfSteps) const {
  return 1 + iterations_ * (halfSteps ? 2 : 1);
}

std::vector<float> ClipRun::centroidsAfter(int t) const {
  return input_->toDatasetSpace(engine_->centroidsAt(t));
}

ClipFrame ClipRun::frame(int index, bool halfSteps) {
  if (index < 0 || index >= frameCount(halfSteps))
    throw std::out_of_range("ClipRun::frame: no frame " + std::to_string(index));
  ClipFrame f;
  if (index == 0) {
    f.centroids = centroidsAfter(0);
    return f;
  }
  f.iteration = halfSteps ? (index + 1) / 2 : index;
  f.phase = !halfSteps ? ClipPhase::Whole : index % 2 == 1 ? ClipPhase::Assign : ClipPhase::Update;
  kms::Snapshot at;
  engine_->snapshotAt(f.iteration, at);  // labels of iteration t: the assignment to c(t − 1)
  input_->toDatasetRows(at.labels, f.labels);
  f.stats = at.stats;
  if (f.phase == ClipPhase::Assign) {
    f.centroids = centroidsAfter(f.iteration - 1);
  } else {
    f.centroids = input_->toDatasetSpace(at.centroids);
    if (f.phase == ClipPhase::Update) f.movedFrom = centroidsAfter(f.iteration - 1);
  }
  return f;
}

QString ClipRun::device() const {
  return QString::fromStdString(engine_->info().device);
}

}  // namespace kms::app::clip
