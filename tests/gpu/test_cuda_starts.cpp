// Best of N on the CUDA engine (cuda_engine_starts.cu): several starts at once on lanes of the
// GPU, each start exactly as it runs alone on the CPU backend — more starts than lanes, counted
// photo-like rows, plain points on the point tiles, d = 1 on the sorted runs — and a stop that
// answers within a launch.
#include <gtest/gtest.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdio>
#include <thread>

#include "gpu_test_support.h"
#include "kmeans/errors.h"
#include "kmeans/refine.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"
#include "support/starts_check.h"

namespace kms {
namespace {

using test::upTo;

TEST(CudaStarts, CountedRowsMoreStartsThanLanesAsOnTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(120000, 3, 24, 77);
  const test::CompactData data = test::compactOf(expanded, 3);
  auto gpu = createEngine(BackendKind::Cuda).engine;
  auto cpu = createCpuEngine(0);
  gpu->setData(data.view());
  cpu->setData(data.view());
  KMeansConfig config;
  config.k = 16;
  config.seed = 9;
  const auto starts = upTo(20);  // more than kMaxStartLanes: lanes take several starts each
  std::vector<int> told;
  const auto outcomes = gpu->runStarts(config, starts, [&](const StartOutcome& o) {
    told.push_back(o.start);
    return true;
  });
  EXPECT_EQ(told.size(), starts.size());
  test::expectOutcomesMatchAlone(outcomes, starts, *cpu, config, false);
  // A second best-of-N on the same data reuses the lanes; the engine then runs on as usual.
  const std::vector<int> again{3, 17};
  test::expectOutcomesMatchAlone(gpu->runStarts(config, again), again, *cpu, config, false);
  test::expectOutcomesMatchAlone({test::startRunAlone(*gpu, config, 5)}, {5}, *cpu, config, false);
}

TEST(CudaStarts, RefinedAsOnTheCpu) {
  // --refine: the same labels give the same Hartigan moves (host code), and the Lloyd run after
  // them is each engine's exact one: the same refined result on both.
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(150000, 3, 20, 31);
  const test::CompactData data = test::compactOf(expanded, 3);
  auto gpu = createEngine(BackendKind::Cuda).engine;
  auto cpu = createCpuEngine(0);
  gpu->setData(data.view());
  cpu->setData(data.view());
  for (int k : {16, 96}) {
    KMeansConfig config;
    config.k = k;
    config.seed = 4;
    StartOutcome on_gpu = gpu->runStarts(config, {0}).front();
    StartOutcome on_cpu = cpu->runStarts(config, {0}).front();
    const RefineReport g = refineOutcome(*gpu, data.view(), config, on_gpu);
    const RefineReport c = refineOutcome(*cpu, data.view(), config, on_cpu);
    EXPECT_EQ(g.moves, c.moves) << "k = " << k;
    EXPECT_EQ(g.improved, c.improved) << "k = " << k;
    EXPECT_EQ(on_gpu.iterations.size(), on_cpu.iterations.size()) << "k = " << k;
    ASSERT_EQ(on_gpu.centroids.size(), on_cpu.centroids.size());
    for (std::size_t v = 0; v < on_gpu.centroids.size(); ++v)
      ASSERT_EQ(std::bit_cast<std::uint32_t>(on_gpu.centroids[v]),
                std::bit_cast<std::uint32_t>(on_cpu.centroids[v]))
          << "k = " << k << ", value " << v;
    EXPECT_LE(on_gpu.inertia(), g.inertia_before);
  }
}

TEST(CudaStarts, PointsOnTilesAndSortedRunsAsOnTheCpu) {
  KMS_REQUIRE_CUDA();
  struct Case {
    int d, k;
    InitMethod init;
  };
  for (const Case c : {Case{2, 12, InitMethod::KMeansPlusPlus}, Case{1, 7, InitMethod::Random},
                       Case{8, 24, InitMethod::GreedyKMeansPlusPlus}}) {
    SCOPED_TRACE("d = " + std::to_string(c.d));
    const auto points = test::blobPoints(60000, c.d, 10, 3 + c.d, 3.0f, 1.0f);
    auto gpu = test::cudaEngineOn(points, c.d);
    auto cpu = test::cpuEngineOn(points, c.d);
    KMeansConfig config;
    config.k = c.k;
    config.init = c.init;
    config.max_iterations = 40;
    const auto starts = upTo(6);
    test::expectOutcomesMatchAlone(gpu->runStarts(config, starts), starts, *cpu, config, false);
  }
}

TEST(CudaStarts, FewerLanesUnderAMemoryCapSameOutcomes) {
  KMS_REQUIRE_CUDA();
  // Room for about three copies of the data: the lanes are limited by the cap, not the GPU.
  const auto expanded = test::levelPoints(80000, 3, 20, 13);
  const test::CompactData data = test::compactOf(expanded, 3);
  TestingOptions capped;
  capped.max_device_bytes = 3 * data.rows() * (3 * sizeof(float) + sizeof(std::uint32_t)) + 4096;
  auto gpu = createEngine(BackendKind::Cuda, capped).engine;
  auto cpu = createCpuEngine(0);
  gpu->setData(data.view());
  cpu->setData(data.view());
  KMeansConfig config;
  config.k = 9;
  const auto starts = upTo(7);
  test::expectOutcomesMatchAlone(gpu->runStarts(config, starts), starts, *cpu, config, false);
}

TEST(CudaStarts, InterruptAnswersWithinALaunch) {
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(200000, 3, 40, 5);
  const test::CompactData data = test::compactOf(expanded, 3);
  auto gpu = createEngine(BackendKind::Cuda).engine;
  gpu->setData(data.view());
  std::atomic<bool> flag{false};
  gpu->setInterruptFlag(&flag);
  KMeansConfig config;
  config.k = 32;
  config.tolerance = 0;
  config.max_iterations = 1000;
  std::atomic<int> told{0};
  std::chrono::steady_clock::time_point raised;
  std::thread raiser([&] {
    while (told.load() < 3)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    raised = std::chrono::steady_clock::now();
    flag.store(true);
  });
  EXPECT_THROW(gpu->runStarts(config, upTo(1000),
                              [&](const StartOutcome&) {
                                ++told;
                                return true;
                              }),
               Interrupted);
  const auto ended = std::chrono::steady_clock::now();
  raiser.join();
  const double ms = std::chrono::duration<double, std::milli>(ended - raised).count();
  EXPECT_LT(ms, 200.0);  // the bound for a cancel (each lane stops after its launch)
  EXPECT_GE(told.load(), 3);
  EXPECT_LT(told.load(), 1000);
  std::printf("[ measured ] interrupt to Interrupted: %.1f ms (%d of 1000 starts done)\n", ms,
              told.load());
  gpu->setInterruptFlag(nullptr);
  // The engine runs a start again afterwards.
  config.max_iterations = 5;
  gpu->initialize(config);
  EXPECT_EQ(gpu->run().iteration, 5);
}

}  // namespace
}  // namespace kms
