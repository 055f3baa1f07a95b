#include "views/cluster_views.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "views/cluster_colours.h"
#include "views/graphics_support.h"
#include "views/image_panel.h"
#include "views/palette_strip.h"
#include "views/scatter_3d_view.h"
#include "views/scatter_view.h"

#include "io/generators.h"

namespace kms::ui {
namespace {

QComboBox* dimensionCombo(QWidget* parent, const QString& tip) {
  auto* combo = new QComboBox(parent);
  combo->setToolTip(tip);
  combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  return combo;
}

QCheckBox* principalCheck(QWidget* parent) {
  auto* check = new QCheckBox(QObject::tr("Principal axes"), parent);
  check->setToolTip(QObject::tr(
      "Show the points on their principal components (PC1, PC2, PC3: the directions of largest "
      "variance, each named with its share), the centroids and trails projected the same way. "
      "Clustering still uses every dimension."));
  return check;
}

QHBoxLayout* toolRow() {
  auto* row = new QHBoxLayout;
  row->setContentsMargins(8, 4, 8, 4);
  row->setSpacing(6);
  return row;
}

}  // namespace

ClusterViews::ClusterViews(QWidget* parent)
    : QWidget(parent),
      tabs_(new QTabWidget(this)),
      image_(new ImagePanel(this)),
      strip_(new PaletteStrip(this)) {
  tabs_->setObjectName(QStringLiteral("viewTabs"));
  tabs_->setDocumentMode(true);
  tabs_->addTab(image_, tr("Image"));
  tabs_->addTab(build2DPage(), tr("Points 2-D"));
  tabs_->addTab(build3DPage(), tr("Points 3-D"));
  tabs_->setTabToolTip(0, tr("Original and quantised picture (images only)"));
  tabs_->setTabToolTip(
      1, tr("Two dimensions of the points, coloured by cluster, with centroid trails"));
  tabs_->setTabToolTip(2, tr("Three dimensions of the points (needs d ≥ 3)"));
  connect(tabs_, &QTabWidget::currentChanged, this, [this] { showFrameInCurrentTab(); });

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(tabs_, 1);
  layout->addWidget(strip_);
  clear();
}

QWidget* ClusterViews::build2DPage() {
  auto* page = new QWidget(this);
  auto* row = toolRow();
  dim2d_[0] = dimensionCombo(page, tr("Dimension on the horizontal axis"));
  dim2d_[1] = dimensionCombo(page, tr("Dimension on the vertical axis"));
  row->addWidget(new QLabel(tr("X"), page));
  row->addWidget(dim2d_[0]);
  row->addWidget(new QLabel(tr("Y"), page));
  row->addWidget(dim2d_[1]);
  principal2d_ = principalCheck(page);
  principal2d_->setObjectName(QStringLiteral("principalAxes2d"));
  principal2d_->setVisible(false);  // shown for data they apply to (setDataset)
  row->addWidget(principal2d_);
  connect(principal2d_, &QCheckBox::toggled, this, &ClusterViews::setPrincipalAxes);
  row->addStretch(1);
  equalAxes_ = new QCheckBox(tr("Equal axes"), page);
  equalAxes_->setChecked(true);
  equalAxes_->setToolTip(tr("Same scale on both axes: the distances k-means measures"));
  row->addWidget(equalAxes_);
  place_ = new QToolButton(page);
  place_->setObjectName(QStringLiteral("placeCentroids"));
  place_->setText(tr("Place centroids"));
  place_->setCheckable(true);
  place_->setToolTip(
      tr("Click to add a centroid, right-click to remove one; the run starts "
         "from them. Any centroid can be dragged."));
  row->addWidget(place_);
  regions_ = new QCheckBox(tr("Regions"), page);
  regions_->setObjectName(QStringLiteral("regionsCheck"));
  regions_->setToolTip(tr("Shade each centroid's Voronoi region: the points it would take"));
  row->addWidget(regions_);
  trails_ = new QCheckBox(tr("Centroid trails"), page);
  trails_->setChecked(true);
  trails_->setToolTip(tr("Draw the path each centroid took across the iterations shown"));
  row->addWidget(trails_);
  for (auto* combo : dim2d_)
    connect(combo, &QComboBox::activated, this, [this] { apply2DDimensions(); });
  connect(trails_, &QCheckBox::toggled, this, [this](bool on) {
    scatter2d_->setTrailsVisible(on);
    if (projection_) projection_->setTrailsVisible(on);
    emit trailsToggled(on);
  });
  scatter2d_ = new ScatterView(ScatterView::Projection::Axes, page);
  connect(equalAxes_, &QCheckBox::toggled, scatter2d_, &ScatterView::setEqualAspect);
  connect(regions_, &QCheckBox::toggled, scatter2d_, &ScatterView::setRegionsVisible);
  connect(place_, &QToolButton::toggled, scatter2d_, &ScatterView::setPlacing);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(row);
  layout->addWidget(scatter2d_, 1);
  return page;
}

QWidget* ClusterViews::build3DPage() {
  auto* page = new QWidget(this);
  auto* row = toolRow();
  const QString tips[3] = {tr("Dimension along the floor, left to right"),
                           tr("Dimension along the floor, front to back"), tr("Dimension upwards")};
  const QString names[3] = {tr("X"), tr("Y"), tr("Z (up)")};
  for (int i = 0; i < 3; ++i) {
    dim3d_[i] = dimensionCombo(page, tips[i]);
    row->addWidget(new QLabel(names[i], page));
    row->addWidget(dim3d_[i]);
    connect(dim3d_[i], &QComboBox::activated, this, [this] { apply3DDimensions(); });
  }
  principal3d_ = principalCheck(page);
  principal3d_->setObjectName(QStringLiteral("principalAxes3d"));
  principal3d_->setVisible(false);
  row->addWidget(principal3d_);
  connect(principal3d_, &QCheckBox::toggled, this, &ClusterViews::setPrincipalAxes);
  row->addStretch(1);
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(row);
  const ThreeDSupport& support = threeDSupport();
  if (support.available) {
    scatter3d_ = new Scatter3DView(page);
    layout->addWidget(scatter3d_, 1);
  } else {
    projection_ = new ScatterView(ScatterView::Projection::Oblique, page);
    projection_->setNote(tr("3-D view unavailable (%1): showing a 2-D projection of the three "
                            "dimensions instead. Drag to turn it, wheel to zoom.")
                             .arg(support.reason));
    layout->addWidget(projection_, 1);
  }
  return page;
}

void ClusterViews::clear() {
  dataset_.reset();
  shown_.reset();
  components_.reset();
  projected_.reset();
  projectedFrame_.reset();
  projectedFrom_.reset();
  frame_.reset();
  image_->clear();
  scatter2d_->clear();
  if (scatter3d_) scatter3d_->clear();
  if (projection_) projection_->clear();
  strip_->clear();
  for (int t = 0; t < 3; ++t)
    tabs_->setTabEnabled(t, t == int(Tab::Points2D));
}

void ClusterViews::fillDimensionCombos() {
  QStringList names;
  for (int c = 0; c < shown_->d; ++c)
    names << (c < shown_->dimensionNames.size() ? shown_->dimensionNames[c]
                                                : QStringLiteral("x%1").arg(c + 1));
  for (auto* combo : dim2d_)
    combo->clear(), combo->addItems(names);
  for (auto* combo : dim3d_)
    combo->clear(), combo->addItems(names);
  dim2d_[0]->setCurrentIndex(0);
  dim2d_[1]->setCurrentIndex(std::min(1, shown_->d - 1));
  for (int i = 0; i < 3; ++i)
    dim3d_[i]->setCurrentIndex(std::min(i, shown_->d - 1));
  for (auto* combo : dim2d_)
    combo->setEnabled(shown_->d > 2);
  for (auto* combo : dim3d_)
    combo->setEnabled(shown_->d > 3);
}

void ClusterViews::setDataset(const kms::app::DatasetPtr& dataset, const QImage& original) {
  clear();
  dataset_ = dataset;
  shown_ = dataset;
  if (!dataset_) return;
  // Principal axes for point data of 4 to 1,024 dimensions (three or fewer are all on screen
  // already), shown again for the next data set when the user left them on. The check boxes
  // are hidden where they do not apply, so the tool rows stay as narrow as before.
  const bool axesPossible = axesPossible_ =
      !dataset_->isImage() && dataset_->d > 3 && dataset_->d <= kms::app::kMaxPrincipalDims;
  for (QCheckBox* check : {principal2d_, principal3d_}) {
    check->setEnabled(axesPossible);
    check->setVisible(axesPossible);
  }
  principal_ = false;
  setPrincipalAxes(principalWanted_);
  fillDimensionCombos();
  const bool picture = !original.isNull();
  tabs_->setTabEnabled(int(Tab::Image), picture);
  tabs_->setTabEnabled(int(Tab::Points3D), dataset_->d >= 3);
  image_->view()->setOriginal(original);
  scatter2d_->setDataset(shown_);
  // Generated teaching data: what k-means makes of them, above the 2-D view.
  const QString prefix = QStringLiteral("generator:");
  const auto kind = dataset_->source.startsWith(prefix)
                        ? kms::app::parseGeneratorKind(dataset_->source.mid(prefix.size()))
                        : std::nullopt;
  scatter2d_->setNote(kind ? kms::app::explanation(*kind) : QString());
  regions_->setEnabled(scatter2d_->regionsAvailable());
  place_->setChecked(false);
  place_->setEnabled(!dataset_->isImage() && !principal_);
  regions_->setToolTip(scatter2d_->regionsAvailable()
                           ? tr("Shade each centroid's Voronoi region: the points it would take")
                           : tr("Regions need data of at most two dimensions: with more, the "
                                "nearest centroid depends on the dimensions not shown"));
  scatter2d_->setRegionsVisible(regions_->isChecked());
  if (scatter3d_) scatter3d_->setDataset(shown_);
  if (projection_) projection_->setDataset(shown_);
  setCurrentTab(picture ? Tab::Image : dataset_->d >= 3 ? Tab::Points3D : Tab::Points2D);
}

void ClusterViews::apply2DDimensions() {
  scatter2d_->setDimensions(dim2d_[0]->currentIndex(), dim2d_[1]->currentIndex());
}

void ClusterViews::apply3DDimensions() {
  const int x = dim3d_[0]->currentIndex(), y = dim3d_[1]->currentIndex(),
            z = dim3d_[2]->currentIndex();
  if (scatter3d_) scatter3d_->setDimensions(x, y, z);
  if (projection_) projection_->setDimensions(x, y, z);
}

void ClusterViews::setRegionsVisible(bool visible) {
  regions_->setChecked(visible);
}

void ClusterViews::setCurrentTab(Tab tab) {
  if (tabs_->isTabEnabled(int(tab))) tabs_->setCurrentIndex(int(tab));
}

ClusterViews::Tab ClusterViews::currentTab() const {
  return Tab(tabs_->currentIndex());
}

bool ClusterViews::tabEnabled(Tab tab) const {
  return tabs_->isTabEnabled(int(tab));
}

void ClusterViews::setPresentation(bool on) {
  scatter2d_->setPresentation(on);
  if (projection_) projection_->setPresentation(on);
}

void ClusterViews::setTrailsVisible(bool visible) {
  trails_->setChecked(visible);
}
bool ClusterViews::trailsVisible() const {
  return trails_->isChecked();
}

void ClusterViews::showFrame(const session::FramePtr& frame) {
  if (!frame || !dataset_ || frame->dataset != dataset_) return;  // a frame of older data
  frame_ = frame;
  ++framesReceived_;
  colours_ = clusterColours(*frame, dataset_->isImage());
  strip_->setClusters(colours_, frame->shares, dataset_->isImage());
  showFrameInCurrentTab();
}

void ClusterViews::showFrameInCurrentTab() {
  if (!frame_) return;
  switch (currentTab()) {
    case Tab::Image:
      // A null picture (iteration 0 after a reset) shows the original with a hint.
      image_->showFrame(frame_);
      break;
    case Tab::Points2D:
      scatter2d_->showFrame(pointFrame(), colours_);
      break;
    case Tab::Points3D:
      if (scatter3d_) scatter3d_->showFrame(pointFrame(), colours_);
      if (projection_) projection_->showFrame(pointFrame(), colours_);
      break;
  }
}

void ClusterViews::setPrincipalAxes(bool on) {
  principalWanted_ = on;
  const auto syncChecks = [this] {
    for (QCheckBox* check : {principal2d_, principal3d_}) {
      const QSignalBlocker block(check);
      check->setChecked(principal_);
    }
  };
  if (!dataset_ || !axesPossible_ || on == principal_) return syncChecks();
  if (on && !components_) {
    QApplication::setOverrideCursor(Qt::WaitCursor);  // a second or two for a million rows
    try {
      components_ = kms::app::principalComponents(*dataset_, 3);
      projected_ = kms::app::projectedDataset(*dataset_, *components_);
    } catch (const std::exception&) {
      components_.reset();  // cannot happen where the boxes are shown; the raw view stays
    }
    QApplication::restoreOverrideCursor();
    if (!components_) return syncChecks();
  }
  principal_ = on;
  syncChecks();
  showPointDataset();
}

void ClusterViews::showPointDataset() {
  shown_ = principal_ ? projected_ : dataset_;
  projectedFrame_.reset();
  projectedFrom_.reset();
  fillDimensionCombos();
  scatter2d_->setDataset(shown_);
  if (scatter3d_) scatter3d_->setDataset(shown_);
  if (projection_) projection_->setDataset(shown_);
  place_->setEnabled(!dataset_->isImage() && !principal_);
  if (principal_) place_->setChecked(false);
  showFrameInCurrentTab();
}

session::FramePtr ClusterViews::pointFrame() {
  if (!principal_ || !frame_ || !components_) return frame_;
  if (projectedFrom_ == frame_) return projectedFrame_;
  auto projected = std::make_shared<session::Frame>(*frame_);
  projected->dataset = projected_;
  projected->d = components_->m;
  projected->centroids = components_->project(frame_->centroids);
  if (!frame_->movedFrom.empty()) projected->movedFrom = components_->project(frame_->movedFrom);
  projectedFrom_ = frame_;
  projectedFrame_ = std::move(projected);
  return projectedFrame_;
}

void ClusterViews::paint3DInto(QImage& image, const QWidget* window) {
  if (!scatter3d_ || currentTab() != Tab::Points3D || !scatter3d_->isVisible()) return;
  QWidget* container = scatter3d_->container();
  const QPoint at = container->mapTo(window, QPoint(0, 0));
  const qreal dpr = image.devicePixelRatio();
  const QImage scene = scatter3d_->renderImage(container->size() * dpr);
  if (scene.isNull()) return;
  QPainter p(&image);
  p.drawImage(QRectF(at, QSizeF(container->size())), scene);
}

}  // namespace kms::ui
