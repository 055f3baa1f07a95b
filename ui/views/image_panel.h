// The image tab: a small tool row (comparison mode, dithering method, fit, 1:1, zoom) above
// ImageCompareView. The dithered picture is computed on the thread pool — for the newest frame
// only, the job in flight cancelled when a newer frame comes — so a live run never waits on it.
#pragma once

#include <QFutureWatcher>
#include <QWidget>

#include <atomic>
#include <memory>

#include "core/dither.h"
#include "session/session_types.h"
#include "views/image_compare_view.h"

class QButtonGroup;
class QComboBox;
class QLabel;

namespace kms::ui {

class ImagePanel : public QWidget {
  Q_OBJECT

 public:
  explicit ImagePanel(QWidget* parent = nullptr);
  ~ImagePanel() override;  // cancels and waits for a dithering job

  ImageCompareView* view() const { return view_; }
  /// Shows a frame's quantised picture (and dithers it when the view shows dithering).
  void showFrame(const session::FramePtr& frame);
  void clear();

  /// The dithering the Dithered mode uses (Floyd–Steinberg unless chosen otherwise).
  kms::app::DitherMode ditherMethod() const;
  void setDitherMethod(kms::app::DitherMode mode);
  /// The dithering of what the view shows: the method in Dithered mode, None otherwise.
  kms::app::DitherMode shownDithering() const;
  /// Frames dithered so far (tests).
  std::uint64_t ditheredFrames() const { return dithered_; }

 private:
  void requestDither();
  void startDither();
  static QString methodName(kms::app::DitherMode mode);

  ImageCompareView* view_;
  QButtonGroup* modes_;
  QComboBox* method_;
  QLabel* zoomLabel_;
  session::FramePtr frame_;
  QFutureWatcher<QImage> job_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  session::FramePtr ditherFrame_;  // the frame the job in flight dithers
  kms::app::DitherMode ditherMode_ = kms::app::DitherMode::FloydSteinberg;
  kms::app::DitherMode jobMode_ = kms::app::DitherMode::FloydSteinberg;
  bool pending_ = false;  // a newer frame (or method) wants dithering once the job ends
  std::uint64_t dithered_ = 0;
};

}  // namespace kms::ui
