#include "cli/options.h"

#include "clip/clip_export.h"

#include <QCommandLineParser>

#include <cmath>

#include "cli/exit_codes.h"
#include "core/sweep.h"

namespace kms::app::cli {
namespace {

constexpr const char* kDescription =
    "Clusters the pixels of a picture (colour quantisation) or a point set with exact\n"
    "Lloyd k-means, on the GPU when one is available.\n"
    "\n"
    "INPUT: an image (PNG, JPEG, BMP, GIF, TIFF, WebP, ...), a CSV/TSV/text point file, a\n"
    "classic binary point file (int32 N, int32 d, N*d float32), a PLY point cloud or a\n"
    "NumPy .npy array. --generate KIND replaces INPUT with synthetic data (--seed seeds\n"
    "the generator too).\n"
    "\n"
    "Several INPUTs are clustered one after another with the same settings; a file that\n"
    "fails is reported and the others go on. Output names may contain {name} (the input's\n"
    "name without its suffix), which several inputs need. With --out-dir and no output\n"
    "option, each picture gives NAME-kK.png and each point file NAME-kK-labels.csv.\n"
    "'-' as an output writes it to standard output (messages then go to standard error).\n"
    "\n"
    "Exit status: 0 success, 1 bad arguments, 2 bad input (cannot be read or clustered),\n"
    "3 GPU/device error, 4 an output file could not be written. With several INPUTs: the\n"
    "status of the first file that failed, 0 when none did.";

/// Throws "--<name> needs <expected>, not '<value>'" ("-k" for the one-letter option).
[[noreturn]] void badValue(const QCommandLineParser& parser, const QString& name,
                           const QString& expected) {
  const QString dashes = name.size() == 1 ? QStringLiteral("-") : QStringLiteral("--");
  throw UsageError(QStringLiteral("%1%2 needs %3, not '%4'")
                       .arg(dashes, name, expected, parser.value(name))
                       .toStdString());
}

int intValue(const QCommandLineParser& parser, const QString& name, int minimum) {
  bool ok = false;
  const int value = parser.value(name).toInt(&ok);
  if (!ok || value < minimum)
    badValue(parser, name, QStringLiteral("an integer ≥ %1").arg(minimum));
  return value;
}

double doubleValue(const QCommandLineParser& parser, const QString& name) {
  bool ok = false;
  const double value = parser.value(name).toDouble(&ok);
  if (!ok || !std::isfinite(value) || value < 0.0)
    badValue(parser, name, QStringLiteral("a number ≥ 0"));
  return value;
}

/// The value of option `name` read by `parse` (one of the engine's parseXxx functions).
template <typename Parse>
auto choice(const QCommandLineParser& parser, const QString& name, Parse parse,
            const char* expected) {
  const auto value = parse(parser.value(name).toStdString());
  if (!value) badValue(parser, name, QString::fromUtf8(expected));
  return *value;
}

void readGenerator(const QCommandLineParser& parser, CliOptions& options) {
  GeneratorParams params;
  params.kind = choice(
      parser, "generate",
      [](const std::string& text) { return parseGeneratorKind(QString::fromStdString(text)); },
      "blobs, rings, moons, uniform, anisotropic, unequal-variances, unequal-sizes or photo");
  params.n = std::size_t(intValue(parser, "points", 1));
  params.groups = intValue(parser, "groups", 1);
  params.d = intValue(parser, "dims", 1);
  params.noise = doubleValue(parser, "noise");
  params.seed = options.config.seed;
  options.generate = params;
}

}  // namespace

CliOptions parseCommandLine(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QString::fromLatin1(kDescription));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument("INPUT", "Image or point file(s) to cluster.", "[INPUT...]");
  parser.addOptions({
      {{"k", "clusters"}, "Number of clusters (required).", "K"},
      {"init",
       "Initial centroids: greedy (greedy k-means++: 2 + ln k candidates per centroid, the best "
       "kept), kmeans++, kmeans|| (k-means||: 5 rounds that sample 2k rows each, for many "
       "millions of rows and across processes) or random. Default: greedy, or on GPUs kmeans|| "
       "from rows × d × k = 2^35 (e.g. 50 M × 16 rows at k = 256).",
       "METHOD", "greedy"},
      {"init-centroids",
       "Start from the centroids in FILE (k rows of d values, e.g. written by --out-centroids "
       "or the window's Export > Centroids); k is the number of rows. Pictures: sRGB values in "
       "[0, 1].",
       "FILE"},
      {"sweep",
       "Cluster for every k in A..B (best of --restarts starts each) and print inertia with its "
       "elbow, silhouette, Calinski-Harabasz and Davies-Bouldin; --report writes them as JSON.",
       "A..B"},
      {"restarts",
       "Run N seeded starts (seeds S, S+1, ...) and keep the one with the lowest inertia "
       "(default 1, at most 10,000). On a GPU several starts run at once.",
       "N", "1"},
      {"track-quality",
       "Pictures: measure PSNR and mean ΔE2000 after every iteration of every start, into "
       "--report (host work after each iteration: slower; off by default, when only the "
       "result is measured)."},
      {"refine",
       "After the best start: move single rows (distinct colours) between clusters wherever "
       "that lowers the sum of squared distances (Hartigan's moves, which Lloyd's optimum does "
       "not rule out), then run Lloyd again from there; the refined result is kept only if its "
       "inertia is lower. Deterministic: the same result on every backend and thread count."},
      {"colour-space",
       "Pictures: cluster in srgb (default), linear (linear RGB), lab (CIELAB) or oklab; the "
       "palette is converted back to sRGB.",
       "SPACE", "srgb"},
      {"compaction",
       "auto (default: a picture's distinct colours with their pixel counts, a point set as "
       "given), always (also merge repeated points) or never (every pixel on its own). Exact "
       "either way: the same labels and centroids.",
       "MODE", "auto"},
      {"dedupe", "Same as --compaction always."},
      {"per-pixel", "Same as --compaction never."},
      {"dither", "--out-image: none (default), fs (Floyd-Steinberg) or ordered (Bayer 8x8).",
       "MODE", "none"},
      {"seed", "Random seed for initialisation and --generate (default 1).", "S", "1"},
      {"max-iter", "Most Lloyd iterations (default 300).", "N", "300"},
      {"tol",
       "Convergence tolerance: fraction of points changed or relative centroid shift (default "
       "1e-4).",
       "T", "1e-4"},
      {"empty-clusters", "Empty cluster policy: reseed (default) or keep.", "POLICY", "reseed"},
      {"backend", "auto (default), cuda, cuda-all (every GPU) or cpu.", "BACKEND", "auto"},
      {"devices",
       "CUDA GPUs to run on: numbers separated by commas (0,1) or all. Several GPUs split the "
       "points between them and add up their exact sums through NCCL: the same labels and "
       "centroids as one GPU, bit for bit. Default: GPU 0.",
       "LIST"},
      {"threads", "CPU backend threads (default 0 = all).", "N", "0"},
      {"out-image", "Write the quantised image (image input only).", "FILE"},
      {"out-palette",
       "Write the palette: .gpl = GIMP palette, else #rrggbb lines (image input "
       "only).",
       "FILE"},
      {"animate",
       "Write the run as an animated clip for slides: .gif, .webp or .mp4 (by the suffix). "
       "Every iteration (or, with --half-steps, its assign and update moves) drawn as the window "
       "draws it: points with regions and trails, or the quantised picture, beside the "
       "convergence chart, with a caption.",
       "FILE"},
      {"animate-size", "--animate: frame size in pixels (default 800x600).", "WxH", "800x600"},
      {"animate-fps", "--animate: frames a second (default 4; 0.5 to 60).", "N", "4"},
      {"half-steps", "--animate: show each iteration as its two moves, assign then update."},
      {"out-labels", "Write index,label CSV.", "FILE"},
      {"out-centroids", "Write the centroids as CSV.", "FILE"},
      {"report", "Write a JSON run report.", "FILE"},
      {"out-dir",
       "Write the outputs into DIR (created when missing), named after each input; without "
       "an output option: the quantised picture or the labels.",
       "DIR"},
      {"generate",
       "Cluster synthetic data instead of INPUT: blobs, rings, moons, uniform, anisotropic, "
       "unequal-variances, unequal-sizes or photo (a square picture of --points pixels).",
       "KIND"},
      {"points", "--generate: number of points (default 10000).", "N", "10000"},
      {"groups", "--generate: number of groups for blobs and rings (default 5).", "G", "5"},
      {"dims", "--generate: dimensions for blobs and uniform (default 2).", "D", "2"},
      {"noise", "--generate: Gaussian noise relative to the layout size (default 0.05).", "X",
       "0.05"},
      {"checkpoint",
       "Point files: write the run's state to FILE every --checkpoint-every iterations "
       "(atomically: a killed run leaves the last one whole); --resume continues it.",
       "FILE"},
      {"checkpoint-every", "Iterations between checkpoints (default 10).", "N", "10"},
      {"resume",
       "Continue the run a --checkpoint FILE saved, with any number of processes, to the result "
       "the uninterrupted run gives (the same options and data; checked).",
       "FILE"},
      {"live-report",
       "Point files: write every iteration to FILE as it ends (JSON Lines: stats, each rank's "
       "time, the centroids), for kmeans-studio --follow FILE.",
       "FILE"},
      {"trace",
       "Point files: write the run's trace into folder DIR (docs/trace-format.md): the "
       "centroids, labels and stats of every iteration of the chosen start.",
       "DIR"},
      {"compare-trace",
       "Compare the run traced in folder DIR (written by --trace, or by scikit-learn, FAISS or "
       "your own code: docs/trace-format.md) with exact Lloyd on INPUT from the trace's start: "
       "where they part and why. Prints the analysis; --report writes it as JSON.",
       "DIR"},
      {"rank-shares",
       "Under mpirun: the ranks' shares of the rows in these proportions, e.g. 1,3,2 (default: "
       "even). Shares are whole blocks of 8,192 rows.",
       "LIST"},
      {{"q", "quiet"}, "Print nothing but errors."},
  });
  if (!parser.parse(arguments)) throw UsageError(parser.errorText().toStdString());
  if (parser.isSet("help")) parser.showHelp(kSuccess);
  if (parser.isSet("version")) parser.showVersion();

  CliOptions options;
  const QStringList positional = parser.positionalArguments();
  options.initCentroids = parser.value("init-centroids");
  if (parser.isSet("sweep")) {
    try {
      options.sweep = parseKRange(parser.value("sweep").toStdString());
    } catch (const std::invalid_argument& e) {
      badValue(parser, "sweep", e.what());
    }
    if (parser.isSet("k")) throw UsageError("--sweep sets k; drop -k");
    if (!options.initCentroids.isEmpty())
      throw UsageError("--sweep and --init-centroids contradict each other");
    options.config.k = options.sweep->first;
  }
  options.checkpoint = parser.value("checkpoint");
  options.resume = parser.value("resume");
  options.liveReport = parser.value("live-report");
  options.trace = parser.value("trace");
  options.compareTrace = parser.value("compare-trace");
  if (!options.compareTrace.isEmpty() && (parser.isSet("k") || !options.initCentroids.isEmpty() ||
                                          parser.isSet("sweep") || !options.trace.isEmpty()))
    throw UsageError(
        "--compare-trace takes k and the start from the trace; drop -k, "
        "--init-centroids, --sweep and --trace");
  options.animate = parser.value("animate");
  if (!options.animate.isEmpty() || parser.isSet("animate-size") || parser.isSet("animate-fps") ||
      parser.isSet("half-steps")) {
    if (options.animate.isEmpty())
      throw UsageError("--animate-size, --animate-fps and --half-steps go with --animate FILE");
    if (options.sweep || !options.compareTrace.isEmpty())
      throw UsageError("--animate draws one run: drop --sweep and --compare-trace");
    if (!options.checkpoint.isEmpty() || !options.resume.isEmpty() || !options.liveReport.isEmpty())
      throw UsageError(
          "--animate draws a run of one process: drop --checkpoint, --resume and --live-report "
          "(or draw the run afterwards from the same seed)");
    if (!clip::clipFormatOf(options.animate))
      badValue(parser, "animate", "a file name ending in .gif, .webp or .mp4");
    const QStringList size = parser.value("animate-size").split(QLatin1Char('x'));
    bool wide = false, high = false;
    options.clip.size = QSize(size.value(0).toInt(&wide), size.value(1).toInt(&high));
    if (size.size() != 2 || !wide || !high)
      badValue(parser, "animate-size", "WIDTHxHEIGHT (800x600)");
    options.clip.framesPerSecond = doubleValue(parser, "animate-fps");
    options.clip.halfSteps = parser.isSet("half-steps");
    try {
      clip::validateClipOptions(options.clip);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--animate: ") + e.what());
    }
  }
  options.checkpointEvery = intValue(parser, "checkpoint-every", 1);
  if (parser.isSet("rank-shares")) {
    for (const QString& part : parser.value("rank-shares").split(u',')) {
      bool ok = false;
      const double share = part.toDouble(&ok);
      if (!ok || !(share > 0.0) || !std::isfinite(share))
        badValue(parser, "rank-shares", "positive numbers separated by commas, e.g. 1,3,2");
      options.rankShares.push_back(share);
    }
  }
  if (!parser.isSet("k") && options.initCentroids.isEmpty() && !options.sweep &&
      options.resume.isEmpty() && options.compareTrace.isEmpty())
    throw UsageError("missing -k (the number of clusters)");
  options.kGiven = parser.isSet("k");
  if (options.kGiven) options.config.k = intValue(parser, "k", 1);
  if (!options.initCentroids.isEmpty()) {
    if (parser.isSet("init"))
      throw UsageError("--init-centroids already says how to start; drop --init");
    if (parser.isSet("restarts") && intValue(parser, "restarts", 1) > 1)
      throw UsageError("--init-centroids gives one start; drop --restarts");
  }
  options.initGiven = parser.isSet("init");
  options.config.init =
      choice(parser, "init", parseInitMethod, "greedy, kmeans++, kmeans|| or random");
  if (options.config.init == InitMethod::Given)
    badValue(parser, "init", "greedy, kmeans++, kmeans|| or random");
  bool seedOk = false;
  options.config.seed = parser.value("seed").toULongLong(&seedOk);
  if (!seedOk) badValue(parser, "seed", "a non-negative integer");
  options.config.max_iterations = intValue(parser, "max-iter", 1);
  options.config.tolerance = doubleValue(parser, "tol");
  options.config.empty_clusters =
      choice(parser, "empty-clusters", parseEmptyClusterPolicy, "reseed or keep");
  options.backend = choice(parser, "backend", parseBackendKind, "auto, cuda, cuda-all or cpu");
  if (parser.isSet("devices")) {
    if (options.backend == BackendKind::Cpu)
      throw UsageError("--devices chooses GPUs, but --backend is cpu; drop one of them");
    EngineOptions devices;
    const std::string error = parseDeviceList(parser.value("devices").toStdString(), devices);
    if (!error.empty()) throw UsageError("--devices: " + error);
    options.devices = devices.cuda_devices;
    options.allDevices = devices.cuda_all_devices;
    // GPUs were asked for by number: no quiet fallback to the CPU.
    if (options.backend == BackendKind::Auto) options.backend = BackendKind::Cuda;
  }
  options.threads = intValue(parser, "threads", 0);
  options.restarts = intValue(parser, "restarts", 1);
  if (options.restarts > kMaxRestarts)
    badValue(parser, "restarts", QStringLiteral("at most %1 starts").arg(kMaxRestarts));
  options.trackQuality = parser.isSet("track-quality");
  options.refine = parser.isSet("refine");
  options.clustering.colourSpace =
      choice(parser, "colour-space", parseColourSpace, "srgb, linear, lab or oklab");
  options.clustering.compaction =
      choice(parser, "compaction", parseCompaction, "auto, always or never");
  if (parser.isSet("dedupe") && parser.isSet("per-pixel"))
    throw UsageError("--dedupe and --per-pixel contradict each other");
  if (parser.isSet("dedupe")) options.clustering.compaction = Compaction::Always;
  if (parser.isSet("per-pixel")) options.clustering.compaction = Compaction::Never;
  options.dither = choice(parser, "dither", parseDitherMode, "none, fs or ordered");
  options.outImage = parser.value("out-image");
  options.outPalette = parser.value("out-palette");
  options.outLabels = parser.value("out-labels");
  options.outCentroids = parser.value("out-centroids");
  options.report = parser.value("report");
  options.outDir = parser.value("out-dir");
  if (parser.isSet("out-dir") && options.outDir.isEmpty())
    throw UsageError("--out-dir needs a folder");
  options.quiet = parser.isSet("quiet");
  int toStdout = 0;
  for (const QString& out : options.outputs())
    toStdout += out == u"-" || out == u"/dev/stdout";
  if (toStdout > 1) throw UsageError("only one output can go to standard output ('-')");

  if (parser.isSet("generate")) {
    if (!positional.isEmpty()) throw UsageError("give either INPUT or --generate, not both");
    readGenerator(parser, options);
    if (options.wantsImageOutputs() && options.generate->kind != GeneratorKind::Photo)
      throw UsageError("--out-image and --out-palette need an image input (or --generate photo)");
  } else {
    if (positional.isEmpty()) throw UsageError("missing INPUT (or --generate KIND)");
    options.inputs = positional;
    options.input = positional.front();
  }
  if (options.inputs.size() > 1) {
    if (options.sweep) throw UsageError("--sweep takes one INPUT");
    if (toStdout > 0) throw UsageError("'-' (standard output) takes one INPUT");
    for (const QString& out : options.outputs())
      if (!out.isEmpty() && !out.contains(u"{name}"))
        throw UsageError("with several inputs, '" + out.toStdString() +
                         "' would be overwritten by each: put {name} in it (or use --out-dir "
                         "alone)");
  }
  return options;
}

EngineOptions engineOptionsFor(const CliOptions& options) {
  EngineOptions engine;
  engine.cpu_threads = options.threads;
  engine.cuda_devices = options.devices;
  engine.cuda_all_devices = options.allDevices;
  return engine;
}

}  // namespace kms::app::cli
