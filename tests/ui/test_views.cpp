// The widgets and helpers on their own: palette strip, image comparison, point thinning,
// colours, speed mapping, charts, run history, 3-D detection.
#include <qcustomplot.h>
#include <QComboBox>
#include <QMainWindow>
#include <QSpinBox>
#include <QTest>

#include <gtest/gtest.h>

#include <QAbstractSpinBox>

#include <set>

#include "charts/convergence_chart.h"
#include "charts/timing_chart.h"
#include "controls_panel.h"
#include "data/run_history.h"
#include "generator_dialog.h"
#include "session/frame_builder.h"
#include "studio_actions.h"
#include "ui_test_support.h"
#include "views/cluster_colours.h"
#include "views/graphics_support.h"
#include "views/image_compare_view.h"
#include "views/palette_strip.h"
#include "views/point_sampler.h"
#include "views/scatter_view.h"
#include "widgets/scientific_spin_box.h"

using namespace kms::ui;

namespace {

std::vector<kms::session::IterationRecord> records(int from, int to, std::uint64_t run = 1) {
  std::vector<kms::session::IterationRecord> out;
  for (int i = from; i <= to; ++i) {
    kms::session::IterationRecord r;
    r.runId = run;
    r.stats.iteration = i;
    r.stats.inertia = 1000.0 / i;
    r.stats.changed = std::size_t(100 / i);
    r.stats.max_shift = 1.0 / (i * i);
    r.stats.ms.assign_ms = 2.0;
    r.stats.ms.reduce_ms = 0.5;
    r.stats.ms.update_ms = 0.25;
    r.wallMs = i * 10.0;  // 100 it/s
    out.push_back(r);
  }
  return out;
}

}  // namespace

TEST(PointSampler, KeepsEverythingWhenSmall) {
  const auto all = samplePoints(100, 1000);
  ASSERT_EQ(all.size(), 100u);
  for (std::uint32_t i = 0; i < 100; ++i)
    EXPECT_EQ(all[i], i);
}

TEST(PointSampler, ThinsToDistinctSortedIndicesDeterministically) {
  const auto a = samplePoints(1000000, 40000, 5);
  ASSERT_EQ(a.size(), 40000u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<std::uint32_t>(a.begin(), a.end()).size(), a.size());
  EXPECT_LT(a.back(), 1000000u);
  EXPECT_EQ(a, samplePoints(1000000, 40000, 5)) << "same picture every time";
}

TEST(ClusterColours, ImagesUseTheCentroidColour) {
  kms::session::Frame frame;
  frame.k = 2;
  frame.d = 3;
  frame.centroids = {1.0f, 0.0f, 0.0f, 0.0f, 0.5f, 1.0f};
  const auto colours = clusterColours(frame, true);
  EXPECT_EQ(colours[0], QColor(255, 0, 0));
  EXPECT_EQ(colours[1], QColor(0, 128, 255));
  const auto points = clusterColours(frame, false);
  EXPECT_EQ(points[0], categoricalColour(0));
  EXPECT_NE(points[0], points[1]);
}

TEST(ClusterColours, CategoricalColoursStayDistinctBeyondThePalette) {
  std::set<QRgb> seen;
  for (int i = 0; i < 64; ++i)
    seen.insert(categoricalColour(i).rgb());
  EXPECT_EQ(seen.size(), 64u);
}

TEST(PaletteStrip, LargestClusterComesFirst) {
  PaletteStrip strip;
  strip.resize(600, 34);
  strip.setClusters({Qt::red, Qt::green, Qt::blue}, {0.2, 0.7, 0.1}, true);
  EXPECT_EQ(strip.clusterCount(), 3);
  EXPECT_EQ(strip.clusterAt(110), 1) << "the 70 % cluster starts at the left";
  EXPECT_EQ(strip.clusterAt(strip.width() - 12), 2);
  strip.clear();
  EXPECT_EQ(strip.clusterAt(200), -1);
}

TEST(ImageCompareView, FitsZoomsAndSplits) {
  ImageCompareView view;
  view.resize(800, 400);
  view.show();
  QImage picture(1600, 400, QImage::Format_RGB32);
  picture.fill(Qt::darkGreen);
  view.setOriginal(picture);
  EXPECT_TRUE(view.fitting());
  EXPECT_NEAR(view.zoom(), 0.5, 0.01);
  view.setZoom(2.0);
  EXPECT_FALSE(view.fitting());
  EXPECT_DOUBLE_EQ(view.zoom(), 2.0);
  view.fitToView();
  EXPECT_NEAR(view.zoom(), 0.5, 0.01);
  view.setSplit(1.5);
  EXPECT_DOUBLE_EQ(view.split(), 1.0);
  view.setMode(ImageCompareView::Mode::SideBySide);
  EXPECT_NEAR(view.zoom(), 0.25, 0.01) << "each pane is half as wide";
  QImage quantised = picture;
  quantised.fill(Qt::green);
  view.setQuantised(quantised, 4);
  EXPECT_EQ(view.quantisedUpdates(), 1u);
  EXPECT_FALSE(view.grab().isNull());
}

TEST(FrameBuilder, RecolourMatchesCentroidsAndCountsShares) {
  auto data = std::make_shared<kms::app::Dataset>();
  data->kind = kms::app::DatasetKind::Image;
  data->width = 4;
  data->height = 2;
  data->n = 8;
  data->d = 3;
  data->values.assign(24, 0.5f);
  kms::Snapshot snap;
  snap.iteration = 3;
  snap.n = 8;
  snap.k = 2;
  snap.d = 3;
  snap.centroids = {1.0f, 0.0f, 0.0f, 0.0f, 0.0f, 1.0f};
  snap.labels = {0, 0, 0, 0, 0, 0, 1, 1};
  const kms::session::FrameContext context{kms::app::ClusteringInput::build(data, {}),
                                           kms::app::QualityContext::build(*data)};
  const auto frame = kms::session::buildFrame(snap, context, 9, false);
  EXPECT_EQ(frame->dataset, data);
  EXPECT_EQ(frame->palette, (std::vector<QRgb>{qRgb(255, 0, 0), qRgb(0, 0, 255)}));
  EXPECT_TRUE(frame->quality.valid());
  EXPECT_EQ(frame->runId, 9u);
  EXPECT_EQ(frame->iteration, 3);
  ASSERT_EQ(frame->quantized.size(), QSize(4, 2));
  EXPECT_EQ(frame->quantized.pixel(0, 0), qRgb(255, 0, 0));
  EXPECT_EQ(frame->quantized.pixel(3, 1), qRgb(0, 0, 255));
  ASSERT_EQ(frame->shares.size(), 2u);
  EXPECT_DOUBLE_EQ(frame->shares[0], 0.75);
  EXPECT_EQ(frame->labels.size(), 8u);
  const QImage original = kms::session::originalImage(*data);
  EXPECT_EQ(original.pixel(1, 1), qRgb(128, 128, 128));
}

TEST(ControlsPanel, SpeedSliderMapsToRates) {
  EXPECT_EQ(ControlsPanel::paceForPosition(ControlsPanel::kFlatOut), 0.0);
  EXPECT_DOUBLE_EQ(ControlsPanel::paceForPosition(0), 0.25);
  EXPECT_NEAR(ControlsPanel::paceForPosition(20), 25.0, 1e-9);
  for (const double pace : {0.25, 1.0, 2.5, 10.0, 100.0})
    EXPECT_NEAR(ControlsPanel::paceForPosition(ControlsPanel::positionForPace(pace)), pace,
                pace * 0.13);
  EXPECT_EQ(ControlsPanel::positionForPace(0.0), ControlsPanel::kFlatOut);
}

TEST(ControlsPanel, ListsAllGpusOnlyWhenThereAreSeveral) {
  QMainWindow window;
  const StudioActions actions(&window);
  ControlsPanel panel(actions);
  auto* backend = panel.findChild<QComboBox*>(QStringLiteral("backendCombo"));
  ASSERT_NE(backend, nullptr);
  const int allGpus = int(kms::BackendKind::CudaAllGpus);
  panel.setCudaStatus(true, QStringLiteral("NVIDIA H200"), 1);
  EXPECT_EQ(backend->findData(allGpus), -1);
  // Settings asking for every GPU before the probe has counted them: the CUDA entry stands in,
  // and the settings keep asking for every GPU.
  kms::session::RunSettings settings;
  settings.backend = kms::BackendKind::CudaAllGpus;
  panel.setSettings(settings);
  EXPECT_EQ(backend->currentData().toInt(), int(kms::BackendKind::Cuda));
  EXPECT_EQ(panel.settings().backend, kms::BackendKind::CudaAllGpus);
  panel.setCudaStatus(true, QStringLiteral("NVIDIA H200"), 2);
  const int index = backend->findData(allGpus);
  ASSERT_GE(index, 0);
  EXPECT_EQ(backend->itemText(index), QStringLiteral("CUDA, all GPUs (2)"));
  EXPECT_EQ(backend->currentIndex(), index);  // now listed, and selected
  EXPECT_EQ(panel.settings().backend, kms::BackendKind::CudaAllGpus);
  panel.setCudaStatus(true, QStringLiteral("NVIDIA H200"), 2);  // a second probe adds nothing
  EXPECT_EQ(backend->count(), 4);
  backend->setCurrentIndex(backend->findData(int(kms::BackendKind::Cuda)));  // the user picks one
  EXPECT_EQ(panel.settings().backend, kms::BackendKind::Cuda);
}

TEST(ScientificSpinBox, ReadsAndWritesExponents) {
  ScientificSpinBox box;
  box.setValue(1e-4);
  EXPECT_EQ(box.text(), QStringLiteral("0.0001"));
  EXPECT_DOUBLE_EQ(box.valueFromText(QStringLiteral("1e-6")), 1e-6);
  box.stepBy(-2);
  EXPECT_NEAR(box.value(), 1e-6, 1e-15);
  box.setValue(1e-7);
  EXPECT_EQ(box.text(), QStringLiteral("1e-07"));
}

TEST(RunHistory, RateAndRunChanges) {
  RunHistory history;
  int started = 0;
  QObject::connect(&history, &RunHistory::runStarted, [&] { ++started; });
  history.append(records(1, 200));
  EXPECT_EQ(started, 1);
  EXPECT_NEAR(history.iterationsPerSecond(), 100.0, 1.0);
  EXPECT_DOUBLE_EQ(history.recentMedianMs(), 2.75);
  history.append(records(1, 3, 2));
  EXPECT_EQ(started, 2);
  EXPECT_EQ(history.records().size(), 3u);
}

TEST(Charts, TimingChartTakesBatchesAndRenders) {
  std::unique_ptr<TimingChart> chart(createTimingChart(nullptr));
  chart->resize(600, 300);
  chart->append(records(1, 50));
  chart->append(records(51, 2000));
  chart->refresh();
  EXPECT_EQ(chart->iterationCount(), 2000u);
  const QImage image = chart->toImage(QSize(640, 360));
  EXPECT_EQ(image.size(), QSize(640, 360));
  chart->clear();
  EXPECT_EQ(chart->iterationCount(), 0u);
}

TEST(Charts, ConvergenceChartReadsTheNearestIteration) {
  ConvergenceChart chart;
  chart.resize(600, 300);
  chart.append(records(1, 20));
  chart.refresh();
  EXPECT_EQ(chart.iterationCount(), 20u);
  EXPECT_TRUE(chart.readout(4.2).startsWith(QStringLiteral("Iteration 4\nInertia 250")))
      << chart.readout(4.2).toStdString();
  EXPECT_EQ(chart.toImage(QSize(500, 300)).size(), QSize(500, 300));
}

TEST(Charts, HoveringTheConvergenceChartReadsValues) {
  ConvergenceChart chart;
  chart.resize(700, 400);
  chart.show();
  chart.append(records(1, 10));
  chart.refresh();
  chart.plot()->replot();
  EXPECT_TRUE(chart.hoverText().isEmpty());
  QCPAxisRect* bottom = chart.plot()->axisRects().at(1);
  const int x = int(bottom->axis(QCPAxis::atBottom)->coordToPixel(7.0));
  QTest::mouseMove(chart.plot(), QPoint(x, bottom->rect().center().y()));
  EXPECT_TRUE(chart.hoverText().startsWith(QStringLiteral("Iteration 7")))
      << chart.hoverText().toStdString();
}

// The legend (inertia, PSNR for pictures, points changed, largest shift) stays inside the chart:
// one row when the chart is wide, fewer entries to a row in a narrow dock, and back again.
TEST(Charts, TheConvergenceLegendFitsTheChartsWidth) {
  ConvergenceChart chart;
  chart.append(records(1, 12));
  chart.show();
  const QCPLegend* legend = chart.plot()->findChild<QCPLegend*>();
  ASSERT_NE(legend, nullptr);
  // The legend's entries (a wrapped grid has empty cells, where item() is null).
  const auto entries = [&] {
    std::vector<const QCPAbstractLegendItem*> items;
    for (int i = 0; i < legend->itemCount(); ++i)
      if (legend->item(i)) items.push_back(legend->item(i));
    return items;
  };
  // Rows of entries at `width`; every entry inside the chart.
  const auto legendRows = [&](int width) {
    chart.resize(width, 320);
    QCoreApplication::processEvents();
    chart.refresh();
    chart.plot()->replot();
    std::set<int> rows;
    for (const QCPAbstractLegendItem* item : entries()) {
      EXPECT_LE(item->outerRect().right(), chart.plot()->width()) << "at width " << width;
      rows.insert(item->outerRect().top());
    }
    return rows.size();
  };
  EXPECT_EQ(entries().size(), 3u);  // no PSNR for points
  EXPECT_EQ(legendRows(900), 1u);
  EXPECT_GE(legendRows(260), 2u);
  kms::app::Quality quality;
  quality.psnr = 23.0;
  chart.addQuality(3, quality);  // a picture's run: the PSNR entry joins
  EXPECT_EQ(legendRows(900), 1u);
  EXPECT_EQ(entries().size(), 4u);
  EXPECT_GE(legendRows(380), 2u);
  EXPECT_EQ(legendRows(900), 1u);
  chart.clear();  // a new run of points: PSNR goes again
  chart.append(records(1, 5));
  EXPECT_EQ(legendRows(900), 1u);
  EXPECT_EQ(entries().size(), 3u);
}

TEST(ScatterView, ThinsLargeCloudsForDrawingOnly) {
  ScatterView view(ScatterView::Projection::Axes);
  view.resize(600, 400);
  const auto data = kms::test::blobs(150000, 3);
  view.setDataset(data);
  EXPECT_EQ(view.drawnPoints(), ScatterView::kMaxDrawnPoints);
  auto frame = std::make_shared<kms::session::Frame>();
  frame->runId = 1;
  frame->iteration = 1;
  frame->n = data->n;
  frame->k = 3;
  frame->d = 2;
  frame->centroids = {0, 0, 1, 1, -1, -1};
  frame->labels.assign(data->n, 0);
  view.showFrame(frame, {Qt::red, Qt::green, Qt::blue});
  auto next = std::make_shared<kms::session::Frame>(*frame);
  next->iteration = 2;
  view.showFrame(next, {Qt::red, Qt::green, Qt::blue});
  EXPECT_EQ(view.framesShown(), 2u);
  EXPECT_EQ(view.trailLength(), 2u);
}

TEST(GraphicsSupport, NoOpenGLViewOnTheOffscreenPlatform) {
  if (QGuiApplication::platformName() != QLatin1String("offscreen")) GTEST_SKIP();
  EXPECT_FALSE(threeDSupport().available);
  EXPECT_TRUE(threeDSupport().reason.contains(QStringLiteral("offscreen")));
}

TEST(GeneratorDialog, OffersThePhotoGeneratorWithItsOwnFields) {
  GeneratorDialog dialog;
  kms::app::GeneratorParams p;
  p.kind = kms::app::GeneratorKind::Photo;
  p.n = 512 * 512;
  dialog.setParams(p);
  EXPECT_EQ(dialog.params().kind, kms::app::GeneratorKind::Photo);
  // Groups, dimensions and noise do not apply to the picture: their fields are disabled.
  int disabled = 0;
  for (auto* spin : dialog.findChildren<QAbstractSpinBox*>())
    disabled += !spin->isEnabled();
  EXPECT_EQ(disabled, 3);
  p.kind = kms::app::GeneratorKind::Blobs;
  dialog.setParams(p);
  disabled = 0;
  for (auto* spin : dialog.findChildren<QAbstractSpinBox*>())
    disabled += !spin->isEnabled();
  EXPECT_EQ(disabled, 0);
}

TEST(GeneratorDialog, RoundTripsItsParameters) {
  GeneratorDialog dialog;
  kms::app::GeneratorParams p;
  p.kind = kms::app::GeneratorKind::Rings;
  p.n = 12345;
  p.groups = 3;
  p.d = 4;
  p.noise = 0.125;
  p.seed = 99;
  dialog.setParams(p);
  const auto back = dialog.params();
  EXPECT_EQ(back.kind, p.kind);
  EXPECT_EQ(back.n, p.n);
  EXPECT_EQ(back.groups, p.groups);
  EXPECT_EQ(back.d, p.d);
  EXPECT_DOUBLE_EQ(back.noise, p.noise);
  EXPECT_EQ(back.seed, p.seed);
}
