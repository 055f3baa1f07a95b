#include "studio_options.h"

#include "core/sweep.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QRegularExpression>

#include <cstdio>

namespace kms::studio {
namespace {

struct Failure {
  QString message;
};

int toInt(const QString& text, const QString& name, int min) {
  bool ok = false;
  const int v = text.toInt(&ok);
  if (!ok || v < min)
    throw Failure{
        QStringLiteral("--%1 needs an integer ≥ %2, not \"%3\"").arg(name).arg(min).arg(text)};
  return v;
}

double toDouble(const QString& text, const QString& name, double min) {
  bool ok = false;
  const double v = text.toDouble(&ok);
  if (!ok || v < min)
    throw Failure{
        QStringLiteral("--%1 needs a number ≥ %2, not \"%3\"").arg(name).arg(min).arg(text)};
  return v;
}

}  // namespace

std::optional<StudioOptions> parseStudioOptions(const QCoreApplication& app) {
  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral(
      "KMeans Studio: watch k-means quantise a photo's colours or cluster points, live."));
  parser.addHelpOption();
  parser.addVersionOption();
  const auto opt = [](const QString& name, const QString& help, const QString& value = {}) {
    return QCommandLineOption(name, help, value);
  };
  const QCommandLineOption sample =
      opt("sample", "Open a built-in sample: photo, blobs or cloud.", "name");
  const QCommandLineOption open = opt("open", "Open a picture or point file.", "file");
  const QCommandLineOption generate =
      opt("generate",
          "Generate data: blobs, rings, moons, uniform, or photo (a picture of --points pixels).",
          "kind");
  const QCommandLineOption points = opt("points", "Generated points (default 10000).", "n");
  const QCommandLineOption groups = opt("groups", "Generated groups (default 5).", "g");
  const QCommandLineOption dims = opt("dims", "Generated dimensions (default 2).", "d");
  const QCommandLineOption noise = opt("noise", "Generated noise (default 0.05).", "x");
  const QCommandLineOption k = opt("k", "Number of clusters.", "k");
  const QCommandLineOption init =
      opt("init", "Initialisation: greedy, kmeans++, kmeans|| or random.", "method");
  const QCommandLineOption seed = opt("seed", "Random seed of the initialisation.", "s");
  const QCommandLineOption maxIter = opt("max-iterations", "Iteration limit.", "n");
  const QCommandLineOption tolerance = opt("tolerance", "Convergence tolerance.", "t");
  const QCommandLineOption backend =
      opt("backend", "auto, cuda, cuda-all (every GPU) or cpu.", "kind");
  const QCommandLineOption colourSpace =
      opt("colour-space", "Pictures: srgb, linear, lab or oklab.", "space");
  const QCommandLineOption compaction = opt(
      "compaction", "auto (distinct colours), always (merge repeated points) or never.", "mode");
  const QCommandLineOption restarts = opt("restarts", "Best of this many seeded starts.", "n");
  const QCommandLineOption dither =
      opt("dither", "Dithering of the Dithered image mode: fs or ordered.", "method");
  const QCommandLineOption speed =
      opt("speed", "Iterations per second, or \"flat\" (as fast as possible).", "rate");
  const QCommandLineOption run = opt("run", "Start running as soon as the data is ready.");
  const QCommandLineOption initCentroids =
      opt("init-centroids", "Start from the centroids in a CSV file (k rows of d values).", "file");
  const QCommandLineOption sweep =
      opt("sweep",
          "Open the k sweep over A..B and run it (best of --restarts); a screenshot shows "
          "the sweep.",
          "A..B");
  const QCommandLineOption compare =
      opt("compare",
          "Open Compare Initialisations (k-means++ against random); --half-steps steps "
          "both; a screenshot shows the comparison.");
  const QCommandLineOption trace =
      opt("trace",
          "Compare the run traced in this folder (docs/trace-format.md) with exact Lloyd on the "
          "data (File > Open Trace...); a screenshot shows the comparison.",
          "folder");
  const QCommandLineOption presentation =
      opt("presentation", "Presentation mode: larger points, centroids, trails and text.");
  const QCommandLineOption regions =
      opt("regions", "Shade the centroids' Voronoi regions in the 2-D view (2-D data).");
  const QCommandLineOption principalAxes =
      opt("principal-axes",
          "Show points of 3 or more dimensions on their principal components (PC1-PC3).");
  const QCommandLineOption halfSteps =
      opt("half-steps",
          "Step this many half iterations (assign, update, ...) once the data is "
          "ready; a screenshot shows the last.",
          "n");
  const QCommandLineOption view = opt("view", "Show the image, 2d or 3d view.", "view");
  const QCommandLineOption imageMode =
      opt("image-mode", "split, side, original, quantised or dithered.", "mode");
  const QCommandLineOption split = opt("split", "Split line position, 0 to 1.", "f");
  const QCommandLineOption size = opt("size", "Window size, e.g. 1600x1000.", "WxH");
  const QCommandLineOption screenshot =
      opt("screenshot",
          "Save a PNG of the window, then exit (after the run finishes unless "
          "--screenshot-after-ms is given).",
          "file");
  const QCommandLineOption after =
      opt("screenshot-after-ms", "Take the screenshot this long after the run starts.", "ms");
  const QCommandLineOption report =
      opt("report", "Write the run report (JSON) when the run finishes.", "file");
  const QCommandLineOption quit = opt("quit-when-finished", "Exit when the run finishes.");
  const QCommandLineOption stats =
      opt("print-stats", "Print iterations, time and iterations/s when the run finishes.");
  const QCommandLineOption timeout =
      opt("timeout-ms", "Exit with code 3 if not done after this long.", "ms");
  const QCommandLineOption noPersist = opt("no-persist", "Do not read or write saved settings.");
  const QCommandLineOption follow =
      opt("follow",
          "Follow a run another process makes (kmeans-cli --live-report FILE, e.g. under "
          "mpirun): open its data and show its iterations as they arrive, each rank's time in "
          "the timing chart; a finished run is replayed (--speed sets the pace).",
          "file");
  for (const auto* o :
       {&sample,   &open,   &generate,      &points,  &groups,        &dims,        &noise,
        &k,        &init,   &seed,          &maxIter, &tolerance,     &backend,     &speed,
        &run,      &view,   &imageMode,     &split,   &size,          &screenshot,  &after,
        &report,   &quit,   &stats,         &timeout, &noPersist,     &colourSpace, &compaction,
        &restarts, &dither, &halfSteps,     &regions, &initCentroids, &sweep,       &presentation,
        &compare,  &follow, &principalAxes, &trace})
    parser.addOption(*o);
  parser.addPositionalArgument(QStringLiteral("file"),
                               QStringLiteral("A file to open (like --open)."),
                               QStringLiteral("[file]"));
  parser.process(app);

  StudioOptions o;
  try {
    o.sample = parser.value(sample);
    o.file = parser.isSet(open) ? parser.value(open) : parser.positionalArguments().value(0);
    if (parser.isSet(generate)) {
      const auto kind = kms::app::parseGeneratorKind(parser.value(generate));
      if (!kind)
        throw Failure{QStringLiteral("unknown generator \"%1\"").arg(parser.value(generate))};
      kms::app::GeneratorParams params;
      params.kind = *kind;
      if (parser.isSet(points)) params.n = std::size_t(toInt(parser.value(points), "points", 1));
      if (parser.isSet(groups)) params.groups = toInt(parser.value(groups), "groups", 1);
      if (parser.isSet(dims)) params.d = toInt(parser.value(dims), "dims", 1);
      if (parser.isSet(noise)) params.noise = toDouble(parser.value(noise), "noise", 0.0);
      o.generator = params;
    }
    o.follow = parser.value(follow);
    if (int(!o.sample.isEmpty()) + int(!o.file.isEmpty()) + int(o.generator.has_value()) +
            int(!o.follow.isEmpty()) >
        1)
      throw Failure{
          QStringLiteral("give only one of --sample, --open/file, --generate and --follow")};
    if (parser.isSet(k)) o.k = toInt(parser.value(k), "k", 1);
    if (parser.isSet(init)) {
      o.init = kms::parseInitMethod(parser.value(init).toStdString());
      if (!o.init || *o.init == kms::InitMethod::Given)
        throw Failure{QStringLiteral("--init takes greedy, kmeans++, kmeans|| or random")};
    }
    if (parser.isSet(seed)) o.seed = std::uint64_t(toInt(parser.value(seed), "seed", 0));
    if (parser.isSet(maxIter)) o.maxIterations = toInt(parser.value(maxIter), "max-iterations", 1);
    if (parser.isSet(tolerance)) o.tolerance = toDouble(parser.value(tolerance), "tolerance", 0.0);
    if (parser.isSet(backend)) {
      o.backend = kms::parseBackendKind(parser.value(backend).toLower().toStdString());
      if (!o.backend) throw Failure{QStringLiteral("--backend takes auto, cuda, cuda-all or cpu")};
    }
    if (parser.isSet(colourSpace)) {
      o.colourSpace = kms::app::parseColourSpace(parser.value(colourSpace).toLower().toStdString());
      if (!o.colourSpace)
        throw Failure{QStringLiteral("--colour-space takes srgb, linear, lab or oklab")};
    }
    if (parser.isSet(compaction)) {
      o.compaction = kms::app::parseCompaction(parser.value(compaction).toLower().toStdString());
      if (!o.compaction) throw Failure{QStringLiteral("--compaction takes auto, always or never")};
    }
    if (parser.isSet(restarts)) o.restarts = toInt(parser.value(restarts), "restarts", 1);
    if (parser.isSet(dither)) {
      o.dither = kms::app::parseDitherMode(parser.value(dither).toLower().toStdString());
      if (!o.dither || *o.dither == kms::app::DitherMode::None)
        throw Failure{QStringLiteral("--dither takes fs or ordered")};
    }
    if (parser.isSet(speed)) {
      const QString v = parser.value(speed).toLower();
      o.pace = v == QLatin1String("flat") || v == QLatin1String("max") ? 0.0
                                                                       : toDouble(v, "speed", 0.01);
    }
    o.run = parser.isSet(run);
    o.regions = parser.isSet(regions);
    o.principalAxes = parser.isSet(principalAxes);
    o.presentation = parser.isSet(presentation);
    o.compare = parser.isSet(compare);
    o.trace = parser.value(trace);
    o.initCentroids = parser.value(initCentroids);
    if (parser.isSet(sweep)) {
      try {
        o.sweep = kms::app::parseKRange(parser.value(sweep).toStdString());
      } catch (const std::exception&) {
        throw Failure{QStringLiteral("--sweep takes a range like 2..12")};
      }
    }
    if (parser.isSet(halfSteps)) o.halfSteps = toInt(parser.value(halfSteps), "half-steps", 1);
    if (o.run && o.halfSteps > 0) throw Failure{QStringLiteral("give --run or --half-steps")};
    o.view = parser.value(view).toLower();
    if (!o.view.isEmpty() && !QStringList{"image", "2d", "3d"}.contains(o.view))
      throw Failure{QStringLiteral("--view takes image, 2d or 3d")};
    o.imageMode = parser.value(imageMode).toLower();
    if (!o.imageMode.isEmpty() &&
        !QStringList{"split", "side", "original", "quantised", "quantized", "dithered"}.contains(
            o.imageMode))
      throw Failure{
          QStringLiteral("--image-mode takes split, side, original, quantised or dithered")};
    if (parser.isSet(split)) o.split = std::min(1.0, toDouble(parser.value(split), "split", 0.0));
    if (parser.isSet(size)) {
      const auto m =
          QRegularExpression(QStringLiteral("^(\\d+)[xX](\\d+)$")).match(parser.value(size));
      if (!m.hasMatch()) throw Failure{QStringLiteral("--size takes WIDTHxHEIGHT, e.g. 1600x1000")};
      o.size = QSize(m.captured(1).toInt(), m.captured(2).toInt());
    }
    o.screenshot = parser.value(screenshot);
    if (parser.isSet(after))
      o.screenshotAfterMs = toInt(parser.value(after), "screenshot-after-ms", 0);
    o.report = parser.value(report);
    o.quitWhenFinished = parser.isSet(quit);
    o.printStats = parser.isSet(stats);
    o.timeoutMs = parser.isSet(timeout) ? toInt(parser.value(timeout), "timeout-ms", 1)
                                        : (o.scripted() ? 600000 : 0);
    o.noPersist = parser.isSet(noPersist);
  } catch (const Failure& failure) {
    std::fprintf(stderr, "kmeans-studio: %s\n\n%s", qPrintable(failure.message),
                 qPrintable(parser.helpText()));
    return std::nullopt;
  }
  return o;
}

}  // namespace kms::studio
