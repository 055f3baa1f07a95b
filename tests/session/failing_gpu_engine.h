// A stand-in for a GPU that breaks mid-run, for tests without a GPU: a CPU engine underneath
// that reports itself as CUDA, and whose step number `failAt` throws DeviceError with CUDA's
// text for a trapped kernel — as does every later call, like a lost CUDA context.
#pragma once

#include <memory>
#include <string>

#include "kmeans/backend.h"
#include "kmeans/errors.h"

namespace kms::test {

class FailingGpuEngine final : public Engine {
 public:
  explicit FailingGpuEngine(int failAt) : cpu_(createCpuEngine(2)), failAt_(failAt) {}

  BackendInfo info() const override { return {"cuda", "Injected GPU (fails at a chosen step)"}; }
  void setData(const DataView& data) override {
    check();
    cpu_->setData(data);
    resetRun();
  }
  void initialize(const KMeansConfig& config) override {
    check();
    cpu_->initialize(config);
    config_ = config;
    config_.keep_history = false;  // the history lives in the engine underneath
    beginRun();
  }
  IterationStats step() override {
    check();
    if (cpu_->iteration() + 1 == failAt_) {
      broken_ = true;
      check();
    }
    const IterationStats stats = cpu_->step();
    endIteration(stats);
    return stats;
  }
  void snapshot(Snapshot& out) override { check(), cpu_->snapshot(out); }
  void assign(const std::vector<float>& centred, std::vector<std::int32_t>& labels) override {
    check(), cpu_->assign(centred, labels);
  }

 private:
  CentroidsNow centroidsForHistory() const override { return {}; }  // keeps no history

  void check() const {
    if (broken_)
      throw DeviceError(
          "CUDA error: unspecified launch failure (cudaErrorLaunchFailure) at step kernel");
  }
  std::unique_ptr<Engine> cpu_;
  int failAt_;
  bool broken_ = false;
};

/// An EngineFactory: CUDA asked for → a FailingGpuEngine; the CPU → the real CPU engine.
inline CreatedEngine failingGpuFactory(BackendKind kind, int failAt) {
  CreatedEngine created;
  if (kind == BackendKind::Cpu) {
    created.engine = createCpuEngine(2);
    created.kind = BackendKind::Cpu;
  } else {
    created.engine = std::make_unique<FailingGpuEngine>(failAt);
    created.kind = BackendKind::Cuda;
  }
  return created;
}

}  // namespace kms::test
