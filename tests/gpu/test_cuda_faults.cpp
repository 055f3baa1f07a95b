// A CUDA error in the middle of a run (a kernel that traps, injected with
// TestHooks::fault_at_iteration): that step and every later call throw DeviceError
// with CUDA's message, nothing hangs, the engine can be destroyed, and the CPU backend carries
// on in the same process. A trap loses the CUDA context for the whole process, so the scenario
// runs in a process of its own (a "threadsafe" death test re-runs this binary for it).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "gpu_test_support.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "kmeans/testing.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

/// Runs `call` on another thread; false when it takes more than 20 s (a hang).
template <typename Call>
bool withinSeconds(Call call) {
  auto done = std::async(std::launch::async, call);
  if (done.wait_for(std::chrono::seconds(20)) != std::future_status::ready) return false;
  done.get();
  return true;
}

/// The scenario; prints what went wrong and returns a non-zero code, or 0.
int faultScenario() {
  const auto points = test::uniformPoints(200000, 3, 21);
  const DataView data{points.data(), points.size() / 3, 3};
  KMeansConfig config;
  config.k = 32;
  config.seed = 4;
  config.max_iterations = 20;
  config.tolerance = 0;

  TestingOptions options;
  options.hooks.fault_at_iteration = 3;
  CreatedEngine created = createEngine(BackendKind::Cuda, options);
  Engine& gpu = *created.engine;
  gpu.setData(data);
  gpu.initialize(config);
  gpu.step();
  gpu.step();
  std::string message;
  if (!withinSeconds([&] {
        try {
          gpu.step();
        } catch (const DeviceError& e) {
          message = e.what();
        }
      }))
    return std::fprintf(stderr, "the failing step hangs\n"), 2;
  if (message.find("launch failure") == std::string::npos)
    return std::fprintf(stderr, "step 3 did not fail with CUDA's message: '%s'\n", message.c_str()),
           3;
  std::fprintf(stderr, "step 3: %s\n", message.c_str());
  // The context is gone: later calls fail the same way instead of hanging or crashing.
  bool stepFailed = false, snapshotFailed = false;
  if (!withinSeconds([&] {
        try {
          gpu.step();
        } catch (const DeviceError&) {
          stepFailed = true;
        }
        try {
          Snapshot snapshot;
          gpu.snapshot(snapshot);
        } catch (const DeviceError&) {
          snapshotFailed = true;
        }
      }))
    return std::fprintf(stderr, "a call after the fault hangs\n"), 4;
  if (!stepFailed || !snapshotFailed)
    return std::fprintf(stderr, "a call after the fault did not throw DeviceError\n"), 5;
  if (!withinSeconds([&] { created.engine.reset(); }))
    return std::fprintf(stderr, "destroying the broken engine hangs\n"), 6;

  // The CPU carries on in the same process.
  auto cpu = createCpuEngine();
  cpu->setData(data);
  cpu->initialize(config);
  if (cpu->run().iteration != 20) return std::fprintf(stderr, "the CPU run stopped early\n"), 7;
  std::fprintf(stderr, "fault scenario passed\n");
  return 0;
}

TEST(CudaFaults, AKernelFaultMidRunIsADeviceErrorAndNothingHangs) {
  KMS_REQUIRE_CUDA();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(faultScenario()), ::testing::ExitedWithCode(0), "fault scenario passed");
}

}  // namespace
}  // namespace kms
