// Clips (app/clip): frames replay the run exactly; GIF, WebP and MP4 files decode frame by frame
// (Qt's GIF and WebP readers, FFmpeg's decoder); bad names, sizes and a cancel leave no file.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImageReader>
#include <QTemporaryDir>

#include <atomic>
#include <cstdlib>
#include <random>
#include <set>

#include "cli_support.h"
#include "clip/clip_export.h"
#include "clip/clip_painter.h"
#include "clip/clip_run.h"
#include "io/export.h"
#include "io/load.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "render/cluster_style.h"

#ifdef KMS_TEST_FFMPEG
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}
#endif

namespace kms::app::test {
namespace {

using clip::ClipFormat;
using clip::ClipJob;
using clip::ClipOptions;
using clip::ClipPhase;
using clip::ClipRun;

ClusteringInputPtr blobsInput() {
  return ClusteringInput::build(loadDataset(sample("blobs-2d.csv")), {});
}

KMeansConfig randomStart(int k, std::uint64_t seed) {
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Random;
  config.seed = seed;
  return config;
}

/// Frames decoded by Qt's reader for `path` (GIF, WebP): each frame's size checked.
int decodedFrames(const QString& path, QSize size, int* loops = nullptr) {
  QImageReader reader(path);
  int frames = 0;
  if (loops) *loops = reader.loopCount();
  while (reader.canRead()) {
    const QImage frame = reader.read();
    if (frame.isNull()) break;
    EXPECT_EQ(frame.size(), size) << path.toStdString() << " frame " << frames;
    ++frames;
  }
  return frames;
}

TEST(Clip, FramesReplayTheRunExactly) {
  const ClusteringInputPtr input = blobsInput();
  const KMeansConfig config = randomStart(6, 3);
  ClipRun run(input, config, BackendKind::Cpu);
  ASSERT_GT(run.iterations(), 3);
  // The same run stepped by an engine of its own: every iteration's labels and centroids.
  auto engine = createEngine(BackendKind::Cpu).engine;
  engine->setData(input->view());
  engine->initialize(config);
  Snapshot snapshot;
  engine->snapshot(snapshot);
  const clip::ClipFrame start = run.frame(0, false);
  EXPECT_EQ(start.phase, ClipPhase::Start);
  EXPECT_TRUE(start.labels.empty());
  EXPECT_EQ(start.centroids, snapshot.centroids);
  for (int t = 1; t <= run.iterations(); ++t) {
    engine->step();
    engine->snapshot(snapshot);
    const clip::ClipFrame whole = run.frame(t, false);
    EXPECT_EQ(whole.iteration, t);
    EXPECT_EQ(whole.labels, snapshot.labels) << "iteration " << t;
    EXPECT_EQ(whole.centroids, snapshot.centroids) << "iteration " << t;  // bit for bit
    const clip::ClipFrame assign = run.frame(2 * t - 1, true);
    const clip::ClipFrame update = run.frame(2 * t, true);
    EXPECT_EQ(assign.phase, ClipPhase::Assign);
    EXPECT_EQ(update.phase, ClipPhase::Update);
    EXPECT_EQ(assign.labels, whole.labels);
    EXPECT_EQ(assign.centroids, run.centroidsAfter(t - 1));  // not yet moved
    EXPECT_EQ(update.centroids, whole.centroids);
    EXPECT_EQ(update.movedFrom, assign.centroids);
  }
  EXPECT_TRUE(engine->finished());
  EXPECT_EQ(run.frameCount(false), run.iterations() + 1);
  EXPECT_EQ(run.frameCount(true), 2 * run.iterations() + 1);
  EXPECT_THROW(run.frame(run.frameCount(true), true), std::out_of_range);
}

TEST(Clip, CaptionsNameTheMoveAndTheInertia) {
  ClipRun run(blobsInput(), randomStart(4, 1), BackendKind::Cpu);
  const clip::ClipPainter painter(run, QSize(800, 600));
  EXPECT_TRUE(painter.caption(run.frame(0, true)).startsWith(QStringLiteral("Start: 4 centroids")));
  const QString assign = painter.caption(run.frame(1, true));
  EXPECT_TRUE(assign.contains(QStringLiteral("Iteration 1 of"))) << assign.toStdString();
  EXPECT_TRUE(assign.contains(QStringLiteral("assign"))) << assign.toStdString();
  EXPECT_TRUE(assign.contains(QStringLiteral("inertia"))) << assign.toStdString();
  const QString last = painter.caption(run.frame(run.frameCount(true) - 1, true));
  EXPECT_TRUE(last.contains(QStringLiteral("update"))) << last.toStdString();
  EXPECT_TRUE(last.endsWith(QStringLiteral("converged"))) << last.toStdString();
  // A drawn frame holds every cluster's colour and the caption's ink.
  const QImage frame = painter.paint(run.frame(2, true), run.frameCount(true));
  ASSERT_EQ(frame.size(), QSize(800, 600));
  const QImage rgb = frame.convertToFormat(QImage::Format_RGB32);
  std::set<QRgb> colours;
  for (int y = 0; y < rgb.height(); ++y)
    for (int x = 0; x < rgb.width(); ++x)
      colours.insert(rgb.pixel(x, y) & 0xffffff);
  for (int j = 0; j < 4; ++j)
    EXPECT_TRUE(colours.count(categoricalColour(j).rgb() & 0xffffff)) << "cluster " << j;
}

TEST(Clip, IndexedFramesKeepFewColoursExactlyAndClusterMany) {
  QImage few(64, 48, QImage::Format_RGB32);
  few.fill(qRgb(10, 20, 30));
  for (int x = 0; x < 64; ++x)
    few.setPixel(x, x % 48, qRgb(200, x, 7));
  const QImage indexed = clip::indexedFrame(few);
  ASSERT_EQ(indexed.format(), QImage::Format_Indexed8);
  EXPECT_EQ(indexed.convertToFormat(QImage::Format_RGB32), few);  // lossless up to 256 colours

  QImage many(300, 200, QImage::Format_RGB32);
  std::mt19937 rng(5);
  for (int y = 0; y < 200; ++y)
    for (int x = 0; x < 300; ++x)
      many.setPixel(x, y, qRgb(x * 255 / 299, y * 255 / 199, int(rng() % 64)));
  const QImage a = clip::indexedFrame(many), b = clip::indexedFrame(many);
  EXPECT_EQ(a.colorCount(), 256);
  EXPECT_EQ(a, b);  // deterministic
  const auto squaredError = [&](const QImage& indexed) {
    double error = 0;
    const QImage back = indexed.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < 200; ++y)
      for (int x = 0; x < 300; ++x) {
        const QRgb p = many.pixel(x, y), q = back.pixel(x, y);
        const int r = qRed(p) - qRed(q), g = qGreen(p) - qGreen(q), u = qBlue(p) - qBlue(q);
        error += r * r + g * g + u * u;
      }
    return error;
  };
  // Clustered palettes beat Qt's own conversion to 256 colours (a fixed colour cube).
  const QImage qt = many.convertToFormat(QImage::Format_Indexed8, Qt::ThresholdDither);
  EXPECT_LT(squaredError(a), 0.5 * squaredError(qt));
}

class ClipFormats : public ::testing::TestWithParam<ClipFormat> {};

TEST_P(ClipFormats, EveryFrameDecodes) {
  const ClipFormat format = GetParam();
  if (!clip::clipFormatBuilt(format))
    GTEST_SKIP() << "built without " << toString(format).toStdString();
  QTemporaryDir dir;
  const QString suffix = toString(format).toLower();
  const QString path = dir.filePath(QStringLiteral("run.") + suffix);
  ClipJob job{blobsInput(), randomStart(5, 2), BackendKind::Cpu};
  ClipOptions options;
  options.size = QSize(400, 300);
  options.halfSteps = true;
  int calls = 0, lastDone = 0, total = 0;
  const clip::ClipResult result = clip::exportClip(job, path, options, [&](int done, int all) {
    ++calls;
    EXPECT_EQ(done, lastDone + 1);
    lastDone = done;
    total = all;
  });
  EXPECT_EQ(result.frames, 2 * result.iterations + 1);
  EXPECT_EQ(calls, result.frames);
  EXPECT_EQ(total, result.frames);
  EXPECT_EQ(result.bytes, QFileInfo(path).size());
  if (format == ClipFormat::Mp4) {
#ifdef KMS_TEST_FFMPEG
    AVFormatContext* file = nullptr;
    ASSERT_EQ(avformat_open_input(&file, path.toUtf8().constData(), nullptr, nullptr), 0);
    ASSERT_GE(avformat_find_stream_info(file, nullptr), 0);
    const int stream = av_find_best_stream(file, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    ASSERT_GE(stream, 0);
    const AVCodec* codec = avcodec_find_decoder(file->streams[stream]->codecpar->codec_id);
    AVCodecContext* decoder = avcodec_alloc_context3(codec);
    avcodec_parameters_to_context(decoder, file->streams[stream]->codecpar);
    ASSERT_EQ(avcodec_open2(decoder, codec, nullptr), 0);
    AVPacket* packet = av_packet_alloc();
    AVFrame* frame = av_frame_alloc();
    int decoded = 0;
    const auto drain = [&] {
      while (avcodec_receive_frame(decoder, frame) == 0) {
        EXPECT_EQ(frame->width, 400);
        EXPECT_EQ(frame->height, 300);
        ++decoded;
      }
    };
    int packets = 0;
    while (av_read_frame(file, packet) >= 0) {
      packets += packet->stream_index == stream;
      if (packet->stream_index == stream) {
        int sent;
        while ((sent = avcodec_send_packet(decoder, packet)) == AVERROR(EAGAIN))
          drain();  // the decoder's output is full: take frames, then send the packet again
        EXPECT_EQ(sent, 0);
        drain();
      }
      av_packet_unref(packet);
    }
    avcodec_send_packet(decoder, nullptr);
    drain();
    EXPECT_EQ(packets, result.frames);
    EXPECT_EQ(decoded, result.frames);
    av_frame_free(&frame);
    av_packet_free(&packet);
    avcodec_free_context(&decoder);
    avformat_close_input(&file);
#else
    GTEST_SKIP() << "the tests were built without FFmpeg's decoder";
#endif
  } else {
    int loops = 0;
    EXPECT_EQ(decodedFrames(path, QSize(400, 300), &loops), result.frames);
    EXPECT_EQ(loops, -1);  // loops forever
  }
}

INSTANTIATE_TEST_SUITE_P(Clip, ClipFormats,
                         ::testing::Values(ClipFormat::Gif, ClipFormat::WebP, ClipFormat::Mp4),
                         [](const auto& info) { return toString(info.param).toStdString(); });

TEST(Clip, APictureClipShowsTheQuantisedPhoto) {
  if (!clip::clipFormatBuilt(ClipFormat::Gif)) GTEST_SKIP() << "built without GIF";
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("photo.gif"));
  const auto input = ClusteringInput::build(loadDataset(sample("tulip-field.png")), {});
  KMeansConfig config;
  config.k = 6;
  config.max_iterations = 5;
  const clip::ClipResult result =
      clip::exportClip({input, config, BackendKind::Cpu}, path, ClipOptions{QSize(320, 240)});
  EXPECT_EQ(result.frames, 6);
  QImageReader reader(path);
  QImage last;
  for (int i = 0; i < 6; ++i)
    last = reader.read();
  last = last.convertToFormat(QImage::Format_RGB32);
  ASSERT_FALSE(last.isNull());
  // The palette strip under the picture holds the run's final colours (GIF keeps them exactly:
  // the frame has few colours there).
  ClipRun run(input, config, BackendKind::Cpu);
  const auto palette = paletteOf(run.centroidsAfter(run.iterations()), 3);
  std::set<QRgb> colours;
  for (int y = 0; y < last.height(); ++y)
    for (int x = 0; x < last.width(); ++x)
      colours.insert(last.pixel(x, y) | 0xff000000u);
  int found = 0;
  for (QRgb c : palette)
    found += int(colours.count(c | 0xff000000u));
  EXPECT_GE(found, 5) << "of 6 palette colours";
}

TEST(Clip, BadNamesSizesAndCancelLeaveNoFile) {
  QTemporaryDir dir;
  const ClipJob job{blobsInput(), randomStart(4, 1), BackendKind::Cpu};
  const auto fails = [&](const QString& path, const ClipOptions& options, const char* words) {
    try {
      clip::exportClip(job, path, options);
      ADD_FAILURE() << "no error for " << path.toStdString();
    } catch (const ExportError& e) {
      EXPECT_TRUE(e.message().contains(QFileInfo(path).fileName())) << e.what();
      EXPECT_TRUE(e.message().contains(QString::fromUtf8(words))) << e.what();
    }
    EXPECT_FALSE(QFile::exists(path));
  };
  fails(dir.filePath("run.avi"), {}, ".gif, .webp or .mp4");
  fails(dir.filePath("small.gif"), ClipOptions{QSize(100, 80)}, "240 × 180");
  ClipOptions fast;
  fast.framesPerSecond = 500;
  fails(dir.filePath("fast.gif"), fast, "0.5 to 60");
  fails(dir.filePath("no/such/folder/run.gif"), {}, "");

  const QString cancelled = dir.filePath("cancelled.gif");
  std::atomic<bool> cancel{false};
  EXPECT_THROW(clip::exportClip(
                   job, cancelled, {},
                   [&](int done, int) {
                     if (done >= 2) cancel = true;
                   },
                   &cancel),
               Interrupted);
  EXPECT_FALSE(QFile::exists(cancelled));
}

TEST(Clip, CliAnimatesTheChosenStart) {
  QTemporaryDir dir;
  const QString gif = dir.filePath("blobs.gif");
  const CliRun run = runCli({sample("blobs-2d.csv"), "-k", "5", "--init", "random", "--restarts",
                             "3", "--seed", "4", "--animate", gif, "--animate-size", "480x360",
                             "--half-steps", "--out-centroids", dir.filePath("c.csv")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  EXPECT_TRUE(run.out.contains(QStringLiteral("wrote ") + gif)) << run.out.toStdString();
  // The clip is the best start's run: as many frames as its iterations say.
  const QRegularExpression said(QStringLiteral("converged after (\\d+) iteration"));
  const auto match = said.match(run.out);
  ASSERT_TRUE(match.hasMatch()) << run.out.toStdString();
  EXPECT_EQ(decodedFrames(gif, QSize(480, 360)), 2 * match.captured(1).toInt() + 1);
  // The clip's run is the best start's: replayed with its seed it ends on the centroids written.
  const auto best =
      QRegularExpression(QStringLiteral("best start: \\d+ \\(seed (\\d+)")).match(run.out);
  ASSERT_TRUE(best.hasMatch()) << run.out.toStdString();
  KMeansConfig config = randomStart(5, best.captured(1).toULongLong());
  ClipRun replay(blobsInput(), config, BackendKind::Cpu);
  EXPECT_EQ(replay.iterations(), match.captured(1).toInt());
  QFile csv(dir.filePath("c.csv"));  // cluster,x,y,share; values that read back exactly
  ASSERT_TRUE(csv.open(QIODevice::ReadOnly));
  const QStringList lines = QString::fromUtf8(csv.readAll()).split(u'\n', Qt::SkipEmptyParts);
  const std::vector<float> last = replay.centroidsAfter(replay.iterations());
  ASSERT_EQ(lines.size(), 6);
  for (int j = 0; j < 5; ++j) {
    const QStringList fields = lines[j + 1].split(u',');
    for (int c = 0; c < 2; ++c)
      EXPECT_EQ(std::strtof(fields[c + 1].toUtf8().constData(), nullptr),
                last[std::size_t(j) * 2 + std::size_t(c)])
          << "cluster " << j;
  }

  const CliRun bad =
      runCli({sample("blobs-2d.csv"), "-k", "3", "--animate", dir.filePath("x.avi")});
  EXPECT_EQ(bad.exitCode, 1);  // a usage error
  EXPECT_TRUE(bad.err.contains(QStringLiteral(".gif, .webp or .mp4"))) << bad.err.toStdString();
  const CliRun lonely = runCli({sample("blobs-2d.csv"), "-k", "3", "--half-steps"});
  EXPECT_EQ(lonely.exitCode, 1);
  EXPECT_TRUE(lonely.err.contains(QStringLiteral("--animate FILE"))) << lonely.err.toStdString();
}

}  // namespace
}  // namespace kms::app::test
