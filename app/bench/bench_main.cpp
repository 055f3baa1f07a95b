// kmeans-bench: milliseconds per Lloyd iteration for the CUDA and CPU backends, against the
// device's measured copy bandwidth and FP32 rate. A benchmark, not a test: numbers go to
// docs/benchmarks.md with the device name.
//
//   kmeans-bench [--quick] [--iterations N] [--warmup N] [--cpu-iterations N] [--no-gpu]
//                [--no-cpu] [--only SUBSTRING[|SUBSTRING…]] [--markdown FILE] [--photo FILE.ppm]
//
// With --photo, a real photograph (binary PPM) adds cases on its pixels one by one and on its
// distinct colours with their counts, and the time to compact it (CPU and GPU).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_cases.h"
#include "core/sweep.h"
#include "kmeans/backend.h"
#include "kmeans/compact.h"
#include "kmeans/device_ceilings.h"
#include "kmeans/errors.h"
#include "kmeans/testing.h"

namespace {

using kms::bench::BenchCase;

struct Options {
  bool quick = false;
  bool gpu = true;
  bool cpu = true;
  int iterations = 50;
  int warmup = 10;
  int cpu_iterations = 5;
  std::string markdown;
  std::string only;       // run only cases whose name contains one of these ('|' between)
  std::size_t sweep = 0;  // --sweep N: time a k = 2..20 sweep, best of 4, on N 2-D points
  std::string photo;      // binary PPM of a real photograph
};

struct Result {
  std::string backend;
  double median_ms = 0;  // per-iteration compute time (GPU: CUDA events; CPU: steady clock)
  double min_ms = 0;
  double wall_ms = 0;  // median host wall time of one step() call
  double assign_ms = 0, reduce_ms = 0, update_ms = 0;
  double communication_ms = 0;  ///< several GPUs: the all-reduce between reduce and update
  /// Median fraction of rows searched over all k (the rest settled by bounds); −1: not tracked.
  double searched = -1;
  double skipped = -1;  ///< median fraction of the n·k distances not computed; −1: not tracked
  double load_ms = 0;   ///< setData: the copy to the device and any index built there
  int iterations = 0;
  int calls = 0;    ///< step() or steps() calls the timed iterations took
  int emptied = 0;  ///< timed iterations that left a cluster empty
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

Result timeEngine(kms::Engine& engine, const BenchCase& c, const kms::bench::BenchData& data,
                  int warmup, int iterations) {
  const auto loading = std::chrono::steady_clock::now();
  engine.setData(kms::DataView{data.values.data(), c.n, c.d, nullptr,
                               data.counts.empty() ? nullptr : data.counts.data()});
  const double load_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - loading).count();
  kms::KMeansConfig config;
  config.k = c.k;
  config.init = kms::InitMethod::Random;
  config.seed = 1;
  config.tolerance = 0;  // keep iterating: every timed iteration does the full work
  // Whole runs end at convergence (changed = 0), however many iterations that takes.
  constexpr int kWholeRunLimit = 1000;
  config.max_iterations = c.whole_runs ? kWholeRunLimit : warmup + iterations + 1;
  engine.initialize(config);
  // Warm-up and timing on the same path: steps() calls of c.batch iterations for batch cases,
  // step() otherwise. Each iteration's host wall time is its share of its call.
  const auto run = [&](int want, std::vector<kms::IterationStats>& out) {
    if (c.batch > 0) return engine.steps(std::min(c.batch, want), out);
    out.push_back(engine.step());
    return 1;
  };
  std::vector<kms::IterationStats> warming, timed;
  if (c.whole_runs) {  // the warm-up is one whole run; the timed runs start over from the seed
    while (!engine.finished())
      run(kWholeRunLimit, warming);
  } else {
    for (int i = 0; i < warmup;)
      i += std::max(1, run(warmup - i, warming));
  }
  std::vector<double> wall;
  int calls = 0;
  // Whole runs: every timed run to its end (a run cut short would weigh its searching first
  // iterations too much).
  while (static_cast<int>(timed.size()) < iterations || (c.whole_runs && !engine.finished())) {
    if (c.whole_runs && engine.finished()) engine.initialize(config);
    const int want = c.whole_runs ? kWholeRunLimit : iterations - static_cast<int>(timed.size());
    const auto t0 = std::chrono::steady_clock::now();
    const int ran = run(want, timed);
    const double call_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ran == 0) break;
    ++calls;
    wall.insert(wall.end(), static_cast<std::size_t>(ran), call_ms / ran);
  }
  std::vector<double> compute, assign, reduce, update, communication, searched, skipped;
  for (const kms::IterationStats& s : timed) {
    compute.push_back(s.ms.computeMs());
    assign.push_back(s.ms.assign_ms);
    reduce.push_back(s.ms.reduce_ms);
    update.push_back(s.ms.update_ms);
    communication.push_back(s.ms.communication_ms);
    if (s.rows_searched >= 0) searched.push_back(double(s.rows_searched) / double(c.n));
    if (s.distances_computed >= 0)
      skipped.push_back(1.0 - double(s.distances_computed) / (double(c.n) * c.k));
  }
  Result r;
  r.backend = engine.info().backend;
  // Whole runs: the mean, the runs' total time over their iterations (a run's first iterations
  // cost many of its last; a launch of several iterations gives each the same share anyway).
  r.median_ms = c.whole_runs && !compute.empty()
                    ? std::accumulate(compute.begin(), compute.end(), 0.0) / compute.size()
                    : median(compute);
  if (timed.empty())  // steps() stops at convergence (step() goes on): nothing left to time
    throw kms::Error("the run converged during the warm-up (steps() stops there)");
  r.min_ms = *std::min_element(compute.begin(), compute.end());
  r.wall_ms = median(wall);
  r.assign_ms = median(assign);
  r.reduce_ms = median(reduce);
  r.update_ms = median(update);
  r.communication_ms = median(communication);
  if (!searched.empty()) r.searched = median(searched);
  if (!skipped.empty()) r.skipped = median(skipped);
  r.load_ms = load_ms;
  r.iterations = static_cast<int>(timed.size());
  r.calls = calls;
  r.emptied =
      static_cast<int>(std::count_if(timed.begin(), timed.end(), [](const kms::IterationStats& s) {
        return s.empty_clusters > 0;
      }));
  return r;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

/// A case on one GPU and on all of them, same data and seed: the speed-up, the all-reduce's
/// share of the iteration, and whether labels and centroids came out bit-identical. Returns a
/// markdown row.
std::string timeAcrossGpus(const BenchCase& c, const kms::bench::BenchData& data, int warmup,
                           int iterations) {
  kms::Snapshot one, all;
  kms::TestingOptions options;
  Result single, sharded;
  std::string devices;
  {
    auto engine = kms::createEngine(kms::BackendKind::Cuda, options).engine;
    single = timeEngine(*engine, c, data, warmup, iterations);
    engine->snapshot(one);
  }
  options.cuda_all_devices = true;
  {
    auto engine = kms::createEngine(kms::BackendKind::Cuda, options).engine;
    sharded = timeEngine(*engine, c, data, warmup, iterations);
    engine->snapshot(all);
    devices = engine->info().device;
  }
  const bool identical =
      one.iteration == all.iteration && one.labels == all.labels && one.centroids == all.centroids;
  const double speedup = single.median_ms / sharded.median_ms;
  const double share = sharded.communication_ms / sharded.median_ms;
  std::printf(
      "%-34s 1 GPU %.4f ms (assign %.4f), %s: %.4f ms/iter (assign %.4f, reduce %.4f, "
      "all-reduce %.4f, "
      "update %.4f) — %.2f× faster, all-reduce %.2f%% of the iteration; labels and centroids "
      "after %d iterations %s\n",
      c.name.c_str(), single.median_ms, single.assign_ms, devices.c_str(), sharded.median_ms,
      sharded.assign_ms, sharded.reduce_ms, sharded.communication_ms, sharded.update_ms, speedup,
      100.0 * share, one.iteration,
      identical ? "bit-identical to one GPU" : "DIFFERENT from one GPU");
  return "| " + c.name + " | " + fmt("%.4f", single.median_ms) + " | " +
         fmt("%.4f", sharded.median_ms) + " | " + fmt("%.2f×", speedup) + " | " +
         fmt("%.4f", sharded.communication_ms) + " | " + fmt("%.2f%%", 100.0 * share) + " | " +
         (identical ? "yes" : "NO") + " |\n";
}

/// Whether case `name` is run: `only` empty, or one of its '|'-separated parts in the name.
bool selected(const std::string& name, const std::string& only) {
  if (only.empty()) return true;
  std::size_t begin = 0;
  while (true) {
    const std::size_t end = only.find('|', begin);
    const std::string part = only.substr(begin, end == std::string::npos ? end : end - begin);
    if (!part.empty() && name.find(part) != std::string::npos) return true;
    if (end == std::string::npos) return false;
    begin = end + 1;
  }
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kmeans-bench: %s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    if (a == "--quick")
      o.quick = true;
    else if (a == "--no-gpu")
      o.gpu = false;
    else if (a == "--no-cpu")
      o.cpu = false;
    else if (a == "--iterations")
      o.iterations = std::max(1, std::atoi(next().c_str()));
    else if (a == "--warmup")
      o.warmup = std::max(0, std::atoi(next().c_str()));
    else if (a == "--cpu-iterations")
      o.cpu_iterations = std::max(1, std::atoi(next().c_str()));
    else if (a == "--markdown")
      o.markdown = next();
    else if (a == "--only")
      o.only = next();
    else if (a == "--sweep")
      o.sweep = std::size_t(std::stoull(next()));
    else if (a == "--photo")
      o.photo = next();
    else if (a == "--version" || a == "-v") {
      std::printf("kmeans-bench %s\n", KMS_VERSION);
      std::exit(0);
    } else if (a == "--help" || a == "-h") {
      std::printf(
          "usage: kmeans-bench [--quick] [--iterations N] [--warmup N] [--cpu-iterations N] "
          "[--no-gpu] [--no-cpu] [--only SUBSTRING[|SUBSTRING...]] [--markdown FILE] "
          "[--photo FILE.ppm] "
          "[--sweep N] [--version]\n");
      std::exit(0);
    } else {
      std::fprintf(stderr, "kmeans-bench: unknown option %s\n", a.c_str());
      std::exit(1);
    }
  }
  if (o.quick) {
    o.iterations = std::min(o.iterations, 5);
    o.warmup = std::min(o.warmup, 2);
    o.cpu_iterations = std::min(o.cpu_iterations, 2);
  }
  return o;
}

/// Time to compact the photo's pixels: CPU on every hardware thread (steady clock) and GPU
/// (device work by CUDA events, and the whole call with its transfers), medians of `runs`.
std::string timeCompaction(const kms::bench::Photo& photo, bool gpu, int runs) {
  const std::size_t n = photo.pixels.size();
  std::vector<double> cpu_ms, device_ms, call_ms;
  std::size_t rows = 0;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    rows = kms::distinctColours(photo.pixels.data(), n).rows();
    cpu_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  for (int r = 0; gpu && r < runs + 1; ++r) {
    double ms = 0.0;
    const auto t0 = std::chrono::steady_clock::now();
    kms::distinctColoursOnDevice(photo.pixels.data(), n, 0, &ms);
    const double call =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r == 0) continue;  // the first call pays for the CUDA context and module loading
    device_ms.push_back(ms);
    call_ms.push_back(call);
  }
  std::ostringstream out;
  out << "Compaction of " << photo.name << " (" << photo.width << "×" << photo.height << ", " << n
      << " pixels → " << rows << " distinct colours): CPU " << fmt("%.1f", median(cpu_ms))
      << " ms on " << std::max(1u, std::thread::hardware_concurrency()) << " threads";
  if (gpu)
    out << "; GPU " << fmt("%.3f", median(device_ms)) << " ms on the device ("
        << fmt("%.1f", median(call_ms)) << " ms with the copies in and out)";
  out << "; medians of " << runs << " runs\n";
  return out.str();
}

}  // namespace

/// --sweep N: k = 2..20, best of 4 starts each, on N points of 8 Gaussian groups in 2-D, on the
/// GPU when present: wall time with every measure, and with the silhouette left out (its cost
/// on the 4,000-point sample is O(4,000²) per k, on the CPU).
int timeSweep(std::size_t n, bool gpu) {
  std::mt19937_64 rng(5);
  std::normal_distribution<float> noise(0.0f, 0.06f);
  std::uniform_real_distribution<float> where(-1.0f, 1.0f);
  float centres[8][2];
  for (auto& c : centres) {
    c[0] = where(rng);
    c[1] = where(rng);
  }
  std::vector<float> points(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    points[2 * i] = centres[i % 8][0] + noise(rng);
    points[2 * i + 1] = centres[i % 8][1] + noise(rng);
  }
  const kms::DataView view{points.data(), n, 2};
  auto engine = gpu ? kms::createEngine(kms::BackendKind::Cuda).engine : kms::createCpuEngine(0);
  engine->setData(view);
  kms::app::SweepOptions options;
  options.kFrom = 2;
  options.kTo = 20;
  options.restarts = 4;
  options.base.tolerance = 1e-4;
  for (const std::size_t limit : {std::size_t(20000), std::size_t(0)}) {
    options.silhouetteLimit = limit;
    const auto begin = std::chrono::steady_clock::now();
    const kms::app::SweepResult result = kms::app::runSweep(*engine, view, options);
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    int iterations = 0;
    for (const auto& row : result.rows)
      iterations += row.iterations;
    std::printf(
        "sweep k = 2..20, best of 4, %zu points, %s: %.3f s %s (elbow k = %d; best "
        "starts ran %d iterations in all)\n",
        n, engine->info().device.c_str(), s,
        limit ? "with silhouette on a 4,000-point sample" : "without silhouette", result.elbowK,
        iterations);
  }
  return 0;
}

int main(int argc, char** argv) {
  const Options opt = parse(argc, argv);
  std::optional<kms::DeviceCeilings> ceilings;
  const kms::CudaStatus cuda = kms::cudaStatus();
  if (opt.gpu && cuda.available) {
    std::printf("Measuring device ceilings on %s ...\n", cuda.device.c_str());
    ceilings = kms::measureDeviceCeilings(0);
  } else if (opt.gpu) {
    std::printf("CUDA backend not available (%s): timing the CPU backend only.\n",
                cuda.reason.c_str());
  }
  if (ceilings)
    std::printf(
        "Device: %s — copy %.0f GB/s (read+write), FP32 %.1f TFLOP/s, TF32 tensor %.1f TFLOP/s, "
        "host to device %.1f GB/s, iteration floor %.4f ms (two empty kernels between two "
        "events in a graph; measured)\n",
        ceilings->device.c_str(), ceilings->copy_gbs, ceilings->fp32_gflops / 1000,
        ceilings->tf32_gflops / 1000, ceilings->host_to_device_gbs, ceilings->iteration_floor_ms);
  const unsigned cpu_threads = std::max(1u, std::thread::hardware_concurrency());
  std::printf("CPU: %u hardware threads\n\n", cpu_threads);

  if (opt.sweep > 0) return timeSweep(opt.sweep, ceilings.has_value());
  std::ostringstream table;
  table << "| case | backend | ms/iter (median) | min | assign | reduce | update | step() wall | "
           "floor ms | % of floor | target | rows searched | distances skipped | setData ms |\n";
  table << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::optional<kms::bench::Photo> photo;
  std::string compaction;
  if (!opt.photo.empty()) {
    try {
      photo = kms::bench::readPpm(opt.photo);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kmeans-bench: %s\n", e.what());
      return 2;
    }
    compaction = timeCompaction(*photo, ceilings.has_value(), 5);
    std::printf("%s\n", compaction.c_str());
  }
  const kms::bench::Photo* photo_ptr = photo ? &*photo : nullptr;
  std::map<std::string, kms::bench::BenchData> data_sets;
  std::ostringstream multi_table;
  const int gpus = ceilings ? kms::cudaStatus().device_count : 0;
  for (const BenchCase& c : kms::bench::benchCases(opt.quick, photo_ptr)) {
    if (!selected(c.name, opt.only)) continue;
    if (c.all_gpus) {
      if (gpus < 2) {
        std::printf("%-34s skipped: needs two or more GPUs (%d here)\n", c.name.c_str(), gpus);
        continue;
      }
      try {
        const kms::bench::BenchData data = kms::bench::benchData(c, photo_ptr);
        multi_table << timeAcrossGpus(c, data, opt.warmup, opt.iterations);
      } catch (const kms::Error& e) {
        std::fprintf(stderr, "%s: %s\n", c.name.c_str(), e.what());
        return 3;
      }
      continue;
    }
    if (!data_sets.count(c.data_key)) data_sets[c.data_key] = kms::bench::benchData(c, photo_ptr);
    const kms::bench::BenchData& data = data_sets[c.data_key];
    std::vector<Result> results;
    try {
      if (ceilings) {
        kms::TestingOptions options;
        if (c.streamed) options.max_device_bytes = 1;  // nothing fits: streamed from the host
        if (c.in_place) options.cuda.stream_chunk_bytes = 0;
        if (c.kept_share > 0)  // the points' share the GPU gives them
          options.max_device_bytes =
              static_cast<std::size_t>(c.kept_share * double(c.n) * c.d * sizeof(float));
        options.cuda.tensor_cores = !c.simt;
        options.cuda.point_tiles = c.rows ? kms::PointTiles::Never : kms::PointTiles::Auto;
        options.cuda.repeated_rows =
            c.no_groups ? kms::RepeatedRows::Never : kms::RepeatedRows::Auto;
        options.cuda.sorted_runs = !c.rows;
        options.cuda.distance_bounds = !c.every_row;
        // Launches of several iterations time the same iterations as step() by step(), past
        // convergence too (whole runs end there).
        options.hooks.steps_past_convergence = c.batch > 0 && !c.whole_runs;
        auto engine = kms::createEngine(kms::BackendKind::Cuda, options).engine;
        results.push_back(timeEngine(*engine, c, data, opt.warmup, opt.iterations));
      }
      if (opt.cpu && c.run_cpu) {
        auto engine = kms::createCpuEngine(0);
        results.push_back(timeEngine(*engine, c, data, 1, opt.cpu_iterations));
      }
    } catch (const kms::Error& e) {
      std::fprintf(stderr, "%s: %s\n", c.name.c_str(), e.what());
      return 3;
    }
    for (const Result& r : results) {
      // Floors: the points (and counts) must be read and a label per point written once
      // (memory), and the distances must be computed (compute: n·k·d FMAs, or — where the
      // engine prunes with exact bounds — the d FMAs of each distance it did compute).
      std::string floor_ms = "–", fraction = "–";
      if (r.backend == "cuda" && ceilings) {
        const double label_bytes = c.streamed ? 0 : (c.k <= 256 ? 1 : 2);  // labels stay put
        const double bytes = double(c.n) * (c.d * sizeof(float) +
                                            (c.compact ? sizeof(std::uint32_t) : 0) + label_bytes);
        // Streamed data cross the interconnect each iteration (but the share kept on the GPU):
        // the host-to-device copy rate.
        const double streamed_share = c.streamed ? 1.0 - c.kept_share : 0.0;
        const double memory_ms = (bytes * streamed_share / ceilings->host_to_device_gbs +
                                  bytes * (1.0 - streamed_share) / ceilings->copy_gbs) /
                                 1e9 * 1e3;
        const double computed = r.skipped >= 0 ? 1.0 - r.skipped : 1.0;
        // 17 ≤ d ≤ 64 ranked row by row runs its dot products on TF32 tensor cores where the
        // device has them; with distance bounds (k ≤ 256) the few searched rows run on FP32.
        const bool tensor = c.every_row && !c.simt && !c.compact && c.d > 16 && c.d <= 64 &&
                            ceilings->tf32_gflops > 0;
        const double rate = tensor ? ceilings->tf32_gflops : ceilings->fp32_gflops;
        const double compute_ms = 2.0 * double(c.n) * c.k * c.d * computed / (rate * 1e9) * 1e3;
        // And no iteration is shorter than two dependent kernels between the engine's events.
        const double launch_ms = ceilings->iteration_floor_ms;
        const double floor = std::max({memory_ms, compute_ms, launch_ms});
        floor_ms = fmt("%.4f", floor) + (floor == launch_ms        ? " (launch)"
                                         : memory_ms >= compute_ms ? " (mem)"
                                         : tensor                  ? " (tf32)"
                                                                   : " (fp32)");
        // Point tiles settle whole tiles without reading their rows, so a photo can beat the
        // floor of reading every point once.
        fraction = fmt("%.0f%%", 100.0 * floor / r.median_ms) +
                   (r.median_ms < floor ? " (reads fewer rows)" : "");
      }
      const std::string target =
          r.backend == "cuda" && c.target_ms > 0
              ? fmt("≤ %.3f ", c.target_ms) + (r.median_ms <= c.target_ms ? "met" : "missed")
              : "–";
      std::string searched = "–", skipped = "–";
      if (r.searched >= 0) searched = fmt("%.2f%%", 100.0 * r.searched);
      if (r.skipped >= 0) skipped = fmt("%.1f%%", 100.0 * r.skipped);
      table << "| " << c.name << " | " << r.backend << " | " << fmt("%.4f", r.median_ms) << " | "
            << fmt("%.4f", r.min_ms) << " | " << fmt("%.4f", r.assign_ms) << " | "
            << fmt("%.4f", r.reduce_ms) << " | " << fmt("%.4f", r.update_ms) << " | "
            << fmt("%.4f", r.wall_ms) << " | " << floor_ms << " | " << fraction << " | " << target
            << " | " << searched << " | " << skipped << " | " << fmt("%.1f", r.load_ms) << " |\n";
      std::printf(
          "%-34s %-4s %9.4f ms/iter  (assign %.4f, reduce %.4f, update %.4f; step() %.4f ms; "
          "searched %s, distances skipped %s; setData %.1f ms)\n",
          c.name.c_str(), r.backend.c_str(), r.median_ms, r.assign_ms, r.reduce_ms, r.update_ms,
          r.wall_ms, searched.c_str(), skipped.c_str(), r.load_ms);
      if (c.batch > 0 || c.whole_runs || r.emptied > 0)
        std::printf("    %d timed iterations in %d calls; %d left a cluster empty\n", r.iterations,
                    r.calls, r.emptied);
      if (c.streamed && r.backend == "cuda" && ceilings)
        std::printf(
            "    streamed: %.1f GB/s of points from host memory per iteration (%.0f %% of them); "
            "host-to-device copy rate %.1f GB/s\n",
            double(c.n) * c.d * sizeof(float) * (1.0 - c.kept_share) / (r.median_ms * 1e-3) / 1e9,
            100.0 * (1.0 - c.kept_share), ceilings->host_to_device_gbs);
    }
  }
  std::printf("\n%s", table.str().c_str());
  std::string multi;
  if (!multi_table.str().empty()) {
    multi =
        "\n| case (all GPUs) | 1 GPU ms/iter | all GPUs ms/iter | speed-up | all-reduce ms | "
        "all-reduce share | identical to 1 GPU |\n|---|---|---|---|---|---|---|\n" +
        multi_table.str();
    std::printf("%s", multi.c_str());
  }
  if (!opt.markdown.empty()) {
    std::ofstream out(opt.markdown);
    out << "Device: " << (ceilings ? ceilings->device : std::string("none (CPU only)"));
    if (ceilings)
      out << " — measured copy " << fmt("%.0f", ceilings->copy_gbs) << " GB/s (read+write), FP32 "
          << fmt("%.1f", ceilings->fp32_gflops / 1000) << " TFLOP/s, TF32 tensor "
          << fmt("%.1f", ceilings->tf32_gflops / 1000) << " TFLOP/s, host to device "
          << fmt("%.1f", ceilings->host_to_device_gbs) << " GB/s, iteration floor "
          << fmt("%.4f", ceilings->iteration_floor_ms) << " ms";
    out << "; CPU: " << cpu_threads << " threads; " << opt.iterations << " timed iterations after "
        << opt.warmup << " warm-up (CPU: " << opt.cpu_iterations << ")\n\n"
        << compaction << (compaction.empty() ? "" : "\n") << table.str() << multi;
    if (!out) {
      std::fprintf(stderr, "kmeans-bench: cannot write %s\n", opt.markdown.c_str());
      return 4;
    }
  }
  return 0;
}
