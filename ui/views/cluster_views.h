// The central views: Image (original vs quantised), Points 2-D and Points 3-D tabs above a
// palette / cluster-size strip. Every frame updates the strip and the visible tab only; a tab
// brought to the front is given the newest frame then, so hidden views cost nothing.
#pragma once

#include <QImage>
#include <QWidget>

#include <optional>

#include "core/dataset.h"
#include "core/principal_components.h"
#include "session/session_types.h"

class QComboBox;
class QCheckBox;
class QToolButton;
class QLabel;
class QTabWidget;

namespace kms::ui {

class ImagePanel;
class PaletteStrip;
class Scatter3DView;
class ScatterView;

class ClusterViews : public QWidget {
  Q_OBJECT

 public:
  enum class Tab { Image = 0, Points2D = 1, Points3D = 2 };

  explicit ClusterViews(QWidget* parent = nullptr);

  void setDataset(const kms::app::DatasetPtr& dataset, const QImage& original);
  void showFrame(const session::FramePtr& frame);
  void clear();

  void setCurrentTab(Tab tab);
  Tab currentTab() const;
  bool tabEnabled(Tab tab) const;

  ImagePanel* imagePanel() const { return image_; }
  ScatterView* scatter2d() const { return scatter2d_; }
  /// The OpenGL view, or null where 3-D is unavailable.
  Scatter3DView* scatter3d() const { return scatter3d_; }
  /// The 2-D projection used instead of the OpenGL view, or null.
  ScatterView* projection3d() const { return projection_; }
  PaletteStrip* paletteStrip() const { return strip_; }
  const session::FramePtr& frame() const { return frame_; }
  std::uint64_t framesReceived() const { return framesReceived_; }

  /// Paints the OpenGL scene over `image` (a grab of the window, whose 3-D container
  /// would otherwise come out blank) at the container's place relative to `window`.
  void paint3DInto(QImage& image, const QWidget* window);

  void setTrailsVisible(bool visible);
  bool trailsVisible() const;
  /// The colour of each cluster in the views now.
  const std::vector<QColor>& colours() const { return colours_; }
  /// The 2-D view's Voronoi regions (on for data of at most two dimensions).
  void setRegionsVisible(bool visible);
  /// Presentation mode of the point views (larger points, centroids, trails and text).
  void setPresentation(bool on);
  /// The point views on the data's principal components (point data of 3 to 1,024
  /// dimensions): the points, centroids and trails projected onto PC1–PC3, each axis named
  /// with the share of the variance it explains; off: the raw dimensions.
  void setPrincipalAxes(bool on);
  bool principalAxes() const { return principal_; }
  /// The data set the point views draw: the data, or their principal-component projection.
  const kms::app::DatasetPtr& shownDataset() const { return shown_; }

 signals:
  void trailsToggled(bool visible);

 private:
  QWidget* build2DPage();
  QWidget* build3DPage();
  void fillDimensionCombos();
  void apply2DDimensions();
  void apply3DDimensions();
  void showFrameInCurrentTab();
  /// frame_ as the point views draw it (projected onto the principal axes when they are on).
  session::FramePtr pointFrame();
  void showPointDataset();

  QTabWidget* tabs_;
  ImagePanel* image_;
  ScatterView* scatter2d_ = nullptr;
  Scatter3DView* scatter3d_ = nullptr;
  ScatterView* projection_ = nullptr;
  PaletteStrip* strip_;
  QComboBox* dim2d_[2] = {};
  QComboBox* dim3d_[3] = {};
  QCheckBox* trails_ = nullptr;
  QCheckBox* regions_ = nullptr;
  QToolButton* place_ = nullptr;
  QCheckBox* equalAxes_ = nullptr;
  QCheckBox* principal2d_ = nullptr;
  QCheckBox* principal3d_ = nullptr;

  kms::app::DatasetPtr dataset_;
  kms::app::DatasetPtr shown_;    ///< dataset_ or its projection (principal_)
  bool principal_ = false;        ///< the point views show the principal axes now
  bool principalWanted_ = false;  ///< the user's choice, kept across data sets
  bool axesPossible_ = false;     ///< the data set has principal axes to show
  std::optional<kms::app::PrincipalComponents> components_;  ///< computed when first asked for
  kms::app::DatasetPtr projected_;
  session::FramePtr frame_;
  session::FramePtr projectedFrame_;  ///< frame_ projected (the last one asked for)
  session::FramePtr projectedFrom_;
  std::vector<QColor> colours_;
  std::uint64_t framesReceived_ = 0;
};

}  // namespace kms::ui
