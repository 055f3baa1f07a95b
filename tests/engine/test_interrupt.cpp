// Engine::setInterruptFlag on the CPU backend: an interrupted step() or initialize() throws
// Interrupted and leaves the engine as it was, so the run that goes on afterwards is bit for bit
// the run that was never interrupted (plain, weighted and compact data).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

struct Data {
  std::vector<float> points, weights;
  std::vector<std::uint32_t> counts;
  int d = 3;
  DataView view() const {
    return DataView{points.data(), points.size() / std::size_t(d), d,
                    weights.empty() ? nullptr : weights.data(),
                    counts.empty() ? nullptr : counts.data()};
  }
};

Data makeData(const char* kind) {
  Data data;
  data.points = test::uniformPoints(60000, data.d, 17);
  const std::size_t n = data.points.size() / std::size_t(data.d);
  if (std::string_view(kind) == "weighted")
    for (std::size_t i = 0; i < n; ++i)
      data.weights.push_back(float(1 + i % 7) * 0.5f);
  if (std::string_view(kind) == "compact")
    for (std::size_t i = 0; i < n; ++i)
      data.counts.push_back(std::uint32_t(1 + (i * 2654435761u) % 50));
  return data;
}

/// Compact data at k = 128 goes through the CPU's group bounds, which an interrupted step must
/// leave usable (rows it searched rewrote their bounds for labels it then dropped).
KMeansConfig config(int k = 24) {
  KMeansConfig c;
  c.k = k;
  c.init = InitMethod::GreedyKMeansPlusPlus;
  c.seed = 5;
  c.max_iterations = 12;
  c.tolerance = 0;
  return c;
}

/// Every iteration's stats and the final snapshot of a run.
struct RunResult {
  std::vector<IterationStats> stats;
  Snapshot last;
};

void expectSameRun(const RunResult& a, const RunResult& b) {
  ASSERT_EQ(a.stats.size(), b.stats.size());
  for (std::size_t t = 0; t < a.stats.size(); ++t) {
    EXPECT_EQ(a.stats[t].inertia, b.stats[t].inertia) << "iteration " << t + 1;
    EXPECT_EQ(a.stats[t].changed, b.stats[t].changed) << "iteration " << t + 1;
    EXPECT_EQ(a.stats[t].max_shift, b.stats[t].max_shift) << "iteration " << t + 1;
  }
  EXPECT_EQ(a.last.centroids, b.last.centroids);
  EXPECT_EQ(a.last.labels, b.last.labels);
}

int kFor(const Data& data) {
  return data.counts.empty() ? 24 : 128;
}

RunResult uninterrupted(const Data& data) {
  auto engine = createCpuEngine(2);
  engine->setData(data.view());
  engine->initialize(config(kFor(data)));
  RunResult run;
  while (!engine->finished())
    run.stats.push_back(engine->step());
  engine->snapshot(run.last);
  return run;
}

/// A CPU engine with the data, listening to `stop`.
std::unique_ptr<Engine> engineWithFlag(const Data& data, const std::atomic<bool>& stop) {
  auto engine = createCpuEngine(2);
  engine->setInterruptFlag(&stop);
  engine->setData(data.view());
  return engine;
}

class Interrupt : public ::testing::TestWithParam<const char*> {};

TEST_P(Interrupt, AnInterruptedStepOrInitialisationChangesNothing) {
  const Data data = makeData(GetParam());
  const RunResult expected = uninterrupted(data);

  std::atomic<bool> stop{false};
  auto engine = engineWithFlag(data, stop);
  stop = true;
  EXPECT_THROW(engine->initialize(config(kFor(data))), Interrupted);
  EXPECT_THROW(engine->step(), std::logic_error) << "an interrupted initialize() initialises";
  stop = false;
  engine->initialize(config(kFor(data)));

  RunResult run;
  Snapshot before, after;
  while (!engine->finished()) {
    if (engine->iteration() % 3 == 1) {  // interrupt every third step before it starts
      engine->snapshot(before);
      stop = true;
      EXPECT_THROW(engine->step(), Interrupted);
      stop = false;
      engine->snapshot(after);
      EXPECT_EQ(after.labels, before.labels);
      EXPECT_EQ(after.centroids, before.centroids);
      EXPECT_EQ(after.stats.iteration, before.stats.iteration);
    }
    run.stats.push_back(engine->step());
  }
  engine->snapshot(run.last);
  expectSameRun(run, expected);
}

TEST_P(Interrupt, AStepInterruptedMidwayFromAnotherThreadChangesNothing) {
  const Data data = makeData(GetParam());
  const RunResult expected = uninterrupted(data);
  std::atomic<bool> stop{false};
  auto engine = engineWithFlag(data, stop);
  engine->initialize(config(kFor(data)));
  RunResult run;
  int interrupted = 0;
  for (int attempt = 0; !engine->finished(); ++attempt) {
    // Every third attempt raises the flag before the step starts (interrupted for sure), the
    // next after a varying delay (cut short part-way, or finished, depending on the machine),
    // the third not at all, so the run always gets on.
    const int phase = attempt % 3;
    if (phase == 0) stop = true;
    std::thread raiser([&, phase, attempt] {
      if (phase == 2) return;
      std::this_thread::sleep_for(std::chrono::microseconds(100 * (attempt % 7)));
      stop = true;
    });
    try {
      run.stats.push_back(engine->step());
    } catch (const Interrupted&) {
      ++interrupted;
    }
    raiser.join();
    stop = false;
  }
  engine->snapshot(run.last);
  expectSameRun(run, expected);
  EXPECT_GT(interrupted, 0);
}

INSTANTIATE_TEST_SUITE_P(CpuEngine, Interrupt, ::testing::Values("plain", "weighted", "compact"));

// Greedy k-means++ on rows of more than eight dimensions (no seeding tree: every chunk's
// candidate potentials are summed), interrupted from another thread part-way through: the
// initialisation throws Interrupted or finishes, never reads a skipped chunk's potentials (the
// window crashed so when new settings arrived while it seeded 50,000 rows of d = 128), and the
// run set up afterwards is the uninterrupted one.
TEST(InterruptHighDim, GreedySeedingInterruptedMidwayThrowsAndChangesNothing) {
  Data data;
  data.d = 32;
  data.points = test::uniformPoints(40000, data.d, 29);
  const RunResult expected = uninterrupted(data);
  std::atomic<bool> stop{false};
  auto engine = engineWithFlag(data, stop);
  int interrupted = 0;
  for (int attempt = 0; attempt < 12; ++attempt) {
    std::thread raiser([&, attempt] {
      std::this_thread::sleep_for(std::chrono::microseconds(300 * attempt));
      stop = true;
    });
    try {
      engine->initialize(config(kFor(data)));
    } catch (const Interrupted&) {
      ++interrupted;
    }
    raiser.join();
    stop = false;
  }
  EXPECT_GT(interrupted, 0);
  engine->initialize(config(kFor(data)));
  RunResult run;
  while (!engine->finished())
    run.stats.push_back(engine->step());
  engine->snapshot(run.last);
  expectSameRun(run, expected);
}

}  // namespace
}  // namespace kms
