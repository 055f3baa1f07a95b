// kmeans_studio._engine: the engine (gpu/, no Qt) for Python. One call runs a whole fit — the
// starts of a best-of-N run through Engine::runStarts, the best start's labels by Engine::assign —
// exactly as kmeans-cli does, so the same data, settings and seed give the same labels and
// centroids bit for bit. NumPy float32 C-contiguous arrays are read in place (no copy); the GIL is
// released while the engine runs, and Ctrl+C stops the run (KeyboardInterrupt) within a fraction
// of a second: SIGINT raises the engine's interrupt flag meanwhile.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <exception>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/colour_space.h"
#include "core/dither_pixels.h"
#include "kmeans/backend.h"
#include "kmeans/config.h"
#include "kmeans/data.h"
#include "kmeans/engine.h"
#include "kmeans/errors.h"
#include "kmeans/starts.h"

namespace py = pybind11;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

/// The flag Ctrl+C raises while a fit runs (one fit at a time holds SIGINT; a fit started while
/// another holds it is not interruptible).
std::atomic<std::atomic<bool>*> sigint_flag{nullptr};

extern "C" void raiseInterruptFlag(int) {
  if (std::atomic<bool>* flag = sigint_flag.load()) flag->store(true);
}

/// While alive, SIGINT (Ctrl+C) raises `flag` instead of reaching Python's handler, which could
/// not run until the engine returned; the engine polls the flag between chunks of work.
class SigintToFlag {
 public:
  explicit SigintToFlag(std::atomic<bool>& flag) : flag_(flag) {
    std::atomic<bool>* none = nullptr;
    if (!sigint_flag.compare_exchange_strong(none, &flag)) return;
    struct sigaction action {};
    action.sa_handler = raiseInterruptFlag;
    sigemptyset(&action.sa_mask);
    held_ = sigaction(SIGINT, &action, &previous_) == 0;
    if (!held_) sigint_flag.store(nullptr);
  }
  ~SigintToFlag() {
    if (!held_) return;
    sigaction(SIGINT, &previous_, nullptr);
    sigint_flag.store(nullptr);
  }
  SigintToFlag(const SigintToFlag&) = delete;
  SigintToFlag& operator=(const SigintToFlag&) = delete;
  bool fired() const { return held_ && flag_.load(); }

 private:
  std::atomic<bool>& flag_;
  struct sigaction previous_ {};
  bool held_ = false;
};

/// Runs `work` on this thread with the GIL released; Ctrl+C meanwhile stops it (the engine sees
/// `interrupt` raised and throws Interrupted) and raises KeyboardInterrupt here. The engine runs
/// on the calling thread: a worker thread beside a waiting one made the CPU backend's runs on two
/// cores up to twice as slow and uneven.
template <typename Work>
void runInterruptibly(std::atomic<bool>& interrupt, Work&& work) {
  const SigintToFlag sigint(interrupt);
  std::exception_ptr failure;
  {
    py::gil_scoped_release release;
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  if (sigint.fired()) {
    PyErr_SetNone(PyExc_KeyboardInterrupt);
    throw py::error_already_set();
  }
  if (failure) std::rethrow_exception(failure);
}

kms::BackendKind backendOf(const std::string& name) {
  if (name == "auto") return kms::BackendKind::Auto;
  if (name == "cpu") return kms::BackendKind::Cpu;
  if (name == "cuda") return kms::BackendKind::Cuda;
  throw py::value_error("backend must be 'auto', 'cuda' or 'cpu', not '" + name + "'");
}

kms::EngineOptions optionsOf(const std::string& devices, int threads) {
  kms::EngineOptions options;
  options.cpu_threads = threads;
  if (!devices.empty()) {
    const std::string error = kms::parseDeviceList(devices, options);
    if (!error.empty()) throw py::value_error(error);
  }
  return options;
}

using CountArray = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>;

kms::DataView viewOf(const FloatArray& x, const FloatArray* weights,
                     const CountArray* counts = nullptr) {
  if (x.ndim() != 2) throw py::value_error("X must be a 2-D array (n_samples, n_features)");
  kms::DataView view{x.data(), static_cast<std::size_t>(x.shape(0)), static_cast<int>(x.shape(1))};
  if (weights != nullptr) {
    if (weights->ndim() != 1 || weights->shape(0) != x.shape(0))
      throw py::value_error("sample_weight must hold one value per row of X");
    view.weights = weights->data();
  }
  if (counts != nullptr) {
    if (counts->ndim() != 1 || counts->shape(0) != x.shape(0))
      throw py::value_error("counts must hold one value per row of X");
    view.counts = counts->data();
  }
  return view;
}

py::array_t<float> matrix(const std::vector<float>& values, std::size_t rows, int columns) {
  py::array_t<float> out({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(columns)});
  std::copy(values.begin(), values.end(), out.mutable_data());
  return out;
}

/// One fit: every start's outcome, the best one's labels (its centroids' nearest, as kmeans-cli
/// writes them) and per-iteration history. `counts`: row i stands for counts[i] equal rows (a
/// picture's distinct colours), exactly as if repeated.
py::dict fit(const FloatArray& x, std::optional<FloatArray> weights,
             std::optional<CountArray> counts, int k, const std::string& init,
             std::optional<FloatArray> initial_centroids, int n_init, int max_iter, double tol,
             std::uint64_t seed, const std::string& empty_clusters, const std::string& backend,
             const std::string& devices, int threads, const std::string& record,
             std::optional<FloatArray> seed_rows) {
  const kms::DataView view = viewOf(x, weights ? &*weights : nullptr, counts ? &*counts : nullptr);
  kms::KMeansConfig config;
  config.k = k;
  config.max_iterations = max_iter;
  config.tolerance = tol;
  config.seed = seed;
  if (initial_centroids) {
    config.init = kms::InitMethod::Given;
    const FloatArray& c = *initial_centroids;
    config.initial_centroids.assign(c.data(), c.data() + c.size());
  } else {
    const auto method = kms::parseInitMethod(init);
    if (!method || *method == kms::InitMethod::Given)
      throw py::value_error(
          "init must be 'greedy-k-means++', 'k-means++', 'k-means||', 'random' or an array");
    config.init = *method;
  }
  const auto policy = kms::parseEmptyClusterPolicy(empty_clusters);
  if (!policy) throw py::value_error("empty_clusters must be 'reseed' or 'keep'");
  config.empty_clusters = *policy;
  if (n_init < 1) throw py::value_error("n_init must be at least 1");
  if (record != "none" && record != "centroids" && record != "labels")
    throw py::value_error("record_trace must be False, True or 'labels'");

  std::atomic<bool> interrupt{false};
  kms::CreatedEngine created;
  std::vector<kms::StartOutcome> outcomes;
  std::vector<std::int32_t> labels;
  int best = -1;
  std::string device;
  std::vector<float> trace_centroids;      // (T + 1) × k × d, with record
  std::vector<std::int32_t> trace_labels;  // T × n, with record == "labels"
  runInterruptibly(interrupt, [&] {
    created = kms::createEngine(backendOf(backend), optionsOf(devices, threads));
    kms::Engine& engine = *created.engine;
    engine.setInterruptFlag(&interrupt);
    engine.setData(view);
    // With `seed_rows` (the rows before repeated ones were merged into counts), each start is
    // seeded on them and iterated on the merged rows: seeding draws by row, so it must see the
    // rows as given, while Lloyd's iterations from the same centroids are the same either way.
    std::unique_ptr<kms::Engine> seeder;
    if (seed_rows && config.init != kms::InitMethod::Given) {
      seeder = kms::createEngine(backendOf(backend), optionsOf(devices, threads)).engine;
      seeder->setInterruptFlag(&interrupt);
      seeder->setData(viewOf(*seed_rows, nullptr));
    }
    const auto begin = [&](kms::KMeansConfig c) {
      if (seeder) {
        seeder->initialize(c);
        kms::Snapshot start;
        seeder->snapshot(start);
        c.init = kms::InitMethod::Given;
        c.initial_centroids = std::move(start.centroids);
      }
      engine.initialize(c);
    };
    const auto runStart = [&](int start, bool keep) {
      kms::KMeansConfig c = config;
      c.seed = config.seed + static_cast<std::uint64_t>(start);
      c.keep_history = keep;
      begin(c);
      kms::StartOutcome outcome;
      outcome.start = start;
      outcome.seed = c.seed;
      engine.run([&](const kms::IterationStats& stats) {
        outcome.iterations.push_back(stats);
        return !interrupt.load();
      });
      if (interrupt.load()) throw kms::Interrupted("the fit was interrupted");
      outcome.converged = engine.converged();
      kms::Snapshot last;
      engine.snapshot(last);
      outcome.centroids = std::move(last.centroids);
      outcome.centred_centroids = std::move(last.centred_centroids);
      return outcome;
    };
    if (seeder) {
      for (int s = 0; s < n_init; ++s)
        outcomes.push_back(runStart(s, false));
      best = kms::bestOutcome(outcomes);
    } else if (record == "none" || n_init > 1) {
      std::vector<int> starts(static_cast<std::size_t>(n_init));
      for (int s = 0; s < n_init; ++s)
        starts[static_cast<std::size_t>(s)] = s;
      outcomes = engine.runStarts(config, starts,
                                  [&](const kms::StartOutcome&) { return !interrupt.load(); });
      best = kms::bestOutcome(outcomes);
    }
    if (record != "none") {
      // The best start again (or the only one) with its history kept: the same trajectory.
      kms::StartOutcome outcome =
          runStart(best >= 0 ? outcomes[static_cast<std::size_t>(best)].start : 0, true);
      const int iterations = engine.iteration();
      for (int t = 0; t <= iterations; ++t) {
        const std::vector<float>& c = engine.centroidsAt(t);
        trace_centroids.insert(trace_centroids.end(), c.begin(), c.end());
      }
      if (record == "labels") {
        kms::Snapshot at;
        for (int t = 1; t <= iterations; ++t) {
          engine.snapshotAt(t, at);
          trace_labels.insert(trace_labels.end(), at.labels.begin(), at.labels.end());
        }
      }
      if (best < 0) {
        outcomes.push_back(std::move(outcome));
        best = 0;
      }
    }
    engine.assign(outcomes[static_cast<std::size_t>(best)].centred_centroids, labels);
    device = engine.info().device;
  });

  const kms::StartOutcome& chosen = outcomes[static_cast<std::size_t>(best)];
  py::array_t<std::int32_t> label_array(static_cast<py::ssize_t>(labels.size()));
  std::copy(labels.begin(), labels.end(), label_array.mutable_data());
  py::list history, starts;
  for (const kms::IterationStats& s : chosen.iterations) {
    py::dict it;
    it["iteration"] = s.iteration;
    it["inertia"] = s.inertia;
    it["changed"] = s.changed;
    it["max_shift"] = s.max_shift;
    it["empty_clusters"] = s.empty_clusters;
    it["ms"] = s.ms.computeMs();
    history.append(it);
  }
  for (const kms::StartOutcome& o : outcomes) {
    py::dict start;
    start["seed"] = o.seed;
    start["inertia"] = o.inertia();
    start["iterations"] = o.iterations.size();
    start["converged"] = o.converged;
    starts.append(start);
  }
  py::dict result;
  result["labels"] = label_array;
  result["centroids"] = matrix(chosen.centroids, static_cast<std::size_t>(k), view.d);
  result["centred_centroids"] =
      matrix(chosen.centred_centroids, static_cast<std::size_t>(k), view.d);
  result["inertia"] = chosen.inertia();
  result["n_iter"] = static_cast<int>(chosen.iterations.size());
  result["converged"] = chosen.converged;
  result["best_start"] = best;
  result["history"] = history;
  result["starts"] = starts;
  result["backend"] = created.kind == kms::BackendKind::Cuda ? "cuda" : "cpu";
  result["device"] = device;
  result["note"] = created.note;
  if (record != "none") {
    const auto per = static_cast<std::size_t>(k) * static_cast<std::size_t>(view.d);
    const auto steps = static_cast<py::ssize_t>(trace_centroids.size() / per);
    py::array_t<float> c({steps, static_cast<py::ssize_t>(k), static_cast<py::ssize_t>(view.d)});
    std::copy(trace_centroids.begin(), trace_centroids.end(), c.mutable_data());
    result["trace_centroids"] = c;
    if (record == "labels") {
      py::array_t<std::int32_t> l({steps - 1, static_cast<py::ssize_t>(view.n)});
      std::copy(trace_labels.begin(), trace_labels.end(), l.mutable_data());
      result["trace_labels"] = l;
    }
  }
  return result;
}

/// Each row's nearest of the centroids (ties to the lower index): Engine::assign on these data.
/// `centred` (from a fit on data with the same frame) is used as is; otherwise the centroids in
/// data units are moved into this data's frame.
py::array_t<std::int32_t> predict(const FloatArray& x, const FloatArray& centroids,
                                  std::optional<FloatArray> centred,
                                  std::optional<FloatArray> fit_mid, const std::string& backend,
                                  const std::string& devices, int threads) {
  const kms::DataView view = viewOf(x, nullptr);
  if (centroids.ndim() != 2 || centroids.shape(1) != view.d)
    throw py::value_error("the centroids must have as many columns as X");
  std::atomic<bool> interrupt{false};
  std::vector<std::int32_t> labels;
  runInterruptibly(interrupt, [&] {
    const kms::DataSummary summary = kms::summarizeData(view);
    std::vector<float> frame(centroids.data(), centroids.data() + centroids.size());
    const bool same_frame = centred && fit_mid &&
                            fit_mid->size() == static_cast<py::ssize_t>(summary.mid.size()) &&
                            std::equal(summary.mid.begin(), summary.mid.end(), fit_mid->data());
    if (same_frame) {
      frame.assign(centred->data(), centred->data() + centred->size());
    } else {
      for (std::size_t i = 0; i < frame.size(); ++i)
        frame[i] -= summary.mid[i % static_cast<std::size_t>(view.d)];
    }
    auto engine = kms::createEngine(backendOf(backend), optionsOf(devices, threads)).engine;
    engine->setInterruptFlag(&interrupt);
    engine->setData(view);
    engine->assign(frame, labels);
  });
  py::array_t<std::int32_t> out(static_cast<py::ssize_t>(labels.size()));
  std::copy(labels.begin(), labels.end(), out.mutable_data());
  return out;
}

/// The midpoint of the data's bounding box: the frame the engine centres these data on.
py::array_t<float> frameOf(const FloatArray& x) {
  const kms::DataSummary summary = kms::summarizeData(viewOf(x, nullptr));
  py::array_t<float> out(static_cast<py::ssize_t>(summary.mid.size()));
  std::copy(summary.mid.begin(), summary.mid.end(), out.mutable_data());
  return out;
}

/// Repeated rows found by their bytes, in order of first appearance: (rows, counts, inverse)
/// with rows[inverse[i]] == X[i]; clustering `rows` with `counts` gives the labels and centroids
/// of clustering X (the engine's counts are exact). With `probe`, None unless a strided sample
/// of up to 4,096 rows already holds repeats (at least 1 in 32): merging pays only then.
py::object distinctRows(const FloatArray& x, bool probe) {
  if (x.ndim() != 2) throw py::value_error("X must be a 2-D array (n_samples, n_features)");
  const auto n = static_cast<std::size_t>(x.shape(0));
  const auto d = static_cast<std::size_t>(x.shape(1));
  const float* values = x.data();
  const std::size_t bytes = d * sizeof(float);
  struct RowHash {
    std::size_t bytes;
    std::size_t operator()(const float* row) const {
      std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the row's bytes
      const auto* b = reinterpret_cast<const unsigned char*>(row);
      for (std::size_t i = 0; i < bytes; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
      return static_cast<std::size_t>(h);
    }
  };
  struct RowEqual {
    std::size_t bytes;
    bool operator()(const float* a, const float* b) const { return std::memcmp(a, b, bytes) == 0; }
  };
  if (probe) {
    const std::size_t step = std::max<std::size_t>(1, n / 4096);
    std::unordered_set<const float*, RowHash, RowEqual> seen(8192, RowHash{bytes}, RowEqual{bytes});
    std::size_t sampled = 0, repeats = 0;
    for (std::size_t i = 0; i < n; i += step, ++sampled)
      repeats += !seen.insert(values + i * d).second;
    if (repeats * 32 < sampled || repeats == 0) return py::none();
  }
  std::vector<std::uint32_t> inverse(n), counts;
  std::vector<float> rows;
  {
    py::gil_scoped_release release;
    std::unordered_map<const float*, std::uint32_t, RowHash, RowEqual> slot(
        std::min<std::size_t>(n, 1 << 20), RowHash{bytes}, RowEqual{bytes});
    for (std::size_t i = 0; i < n; ++i) {
      const float* row = values + i * d;
      const auto [it, added] = slot.try_emplace(row, static_cast<std::uint32_t>(counts.size()));
      if (added) {
        counts.push_back(0);
        rows.insert(rows.end(), row, row + d);
      }
      ++counts[it->second];
      inverse[i] = it->second;
    }
  }
  py::array_t<std::uint32_t> count_array(static_cast<py::ssize_t>(counts.size()));
  std::copy(counts.begin(), counts.end(), count_array.mutable_data());
  py::array_t<std::uint32_t> inverse_array(static_cast<py::ssize_t>(n));
  std::copy(inverse.begin(), inverse.end(), inverse_array.mutable_data());
  return py::make_tuple(matrix(rows, counts.size(), static_cast<int>(d)), count_array,
                        inverse_array);
}

kms::app::ColourSpace spaceOf(const std::string& name) {
  const auto space = kms::app::parseColourSpace(name);
  if (!space)
    throw py::value_error("colour_space must be 'srgb', 'linear', 'lab' or 'oklab', not '" + name +
                          "'");
  return *space;
}

/// Rows of three sRGB values in [0, 1] converted to `space` (or back, `to_srgb`), with the
/// conversions kmeans-cli and the window use, so the engine sees the same floats.
py::array_t<float> convertColours(const FloatArray& rows, const std::string& space, bool to_srgb) {
  if (rows.ndim() != 2 || rows.shape(1) != 3)
    throw py::value_error("colours must be an (n, 3) array");
  const auto n = static_cast<std::size_t>(rows.shape(0));
  std::vector<float> values(rows.data(), rows.data() + rows.size());
  if (to_srgb)
    kms::app::convertRowsToSrgb(spaceOf(space), values.data(), n, 3);
  else
    kms::app::convertRowsFromSrgb(spaceOf(space), values.data(), n, 3);
  return matrix(values, n, 3);
}

using IndexArray = py::array_t<std::uint32_t, py::array::c_style | py::array::forcecast>;

/// Every pixel's palette entry with dithering (core/dither_pixels.h, as kmeans-cli --dither):
/// `rows` the distinct colours in the clustering's space, `pixel_rows` each pixel's row
/// (height × width), `centroids` k × 3 in the same space.
py::array_t<std::int32_t> dither(const FloatArray& rows, const IndexArray& pixel_rows, int width,
                                 int height, const FloatArray& centroids, const std::string& mode) {
  const auto parsed = kms::app::parseDitherMode(mode);
  if (!parsed)
    throw py::value_error("dither must be 'none', 'fs' or 'ordered', not '" + mode + "'");
  if (rows.ndim() != 2 || centroids.ndim() != 2 || rows.shape(1) != centroids.shape(1) ||
      pixel_rows.size() != static_cast<py::ssize_t>(width) * height)
    throw py::value_error("dither: rows, centroids and pixels do not agree");
  kms::app::DitherPicture picture;
  picture.width = width;
  picture.height = height;
  picture.d = static_cast<int>(rows.shape(1));
  picture.rows = rows.data();
  picture.rowCount = static_cast<std::size_t>(rows.shape(0));
  picture.pixelRows = pixel_rows.data();
  for (py::ssize_t p = 0; p < pixel_rows.size(); ++p)
    if (pixel_rows.data()[p] >= picture.rowCount)
      throw py::value_error("dither: a pixel's row is out of range");
  const std::vector<float> palette(centroids.data(), centroids.data() + centroids.size());
  py::array_t<std::int32_t> out(
      {static_cast<py::ssize_t>(height), static_cast<py::ssize_t>(width)});
  struct Sink final : kms::app::DitherSink {
    std::int32_t* entries;
    int width;
    void set(int x, int y, int entry) override {
      entries[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
              static_cast<std::size_t>(x)] = entry;
    }
  } sink;
  sink.entries = out.mutable_data();
  sink.width = width;
  std::atomic<bool> interrupt{false};
  runInterruptibly(interrupt, [&] {
    if (!kms::app::ditherPixels(picture, palette, *parsed, sink, &interrupt))
      throw kms::Interrupted("dithering interrupted");
  });
  return out;
}

}  // namespace

PYBIND11_MODULE(_engine, m) {
  m.doc() = "KMeans Studio's exact k-means engine (CPU and CUDA backends)";
  // Translators are tried newest first: the base class first, so that the subclasses win.
  py::register_exception<kms::Error>(m, "EngineError", PyExc_RuntimeError);
  py::register_exception<kms::InvalidArgument>(m, "InvalidArgument", PyExc_ValueError);
  py::register_exception<kms::Interrupted>(m, "Interrupted", PyExc_KeyboardInterrupt);
  m.def("fit", &fit, py::arg("x"), py::arg("weights"), py::arg("counts"), py::arg("k"),
        py::arg("init"), py::arg("initial_centroids"), py::arg("n_init"), py::arg("max_iter"),
        py::arg("tol"), py::arg("seed"), py::arg("empty_clusters"), py::arg("backend"),
        py::arg("devices"), py::arg("threads"), py::arg("record") = "none",
        py::arg("seed_rows") = std::nullopt);
  m.def("predict", &predict, py::arg("x"), py::arg("centroids"), py::arg("centred"),
        py::arg("fit_mid"), py::arg("backend"), py::arg("devices"), py::arg("threads"));
  m.def("frame_of", &frameOf, py::arg("x"));
  m.def("distinct_rows", &distinctRows, py::arg("x"), py::arg("probe"));
  m.def(
      "colours_from_srgb",
      [](const FloatArray& rows, const std::string& space) {
        return convertColours(rows, space, false);
      },
      py::arg("rows"), py::arg("space"));
  m.def(
      "colours_to_srgb",
      [](const FloatArray& rows, const std::string& space) {
        return convertColours(rows, space, true);
      },
      py::arg("rows"), py::arg("space"));
  m.def("dither", &dither, py::arg("rows"), py::arg("pixel_rows"), py::arg("width"),
        py::arg("height"), py::arg("centroids"), py::arg("mode"));
  m.def(
      "data_address",
      [](const FloatArray& x) { return reinterpret_cast<std::uintptr_t>(x.data()); },
      "The address the engine reads X at (equal to X's own for float32 C-contiguous arrays: no "
      "copy).");
}
