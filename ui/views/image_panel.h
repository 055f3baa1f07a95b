// The image tab: a small tool row (comparison mode, fit, 1:1, zoom) above ImageCompareView.
#pragma once

#include <QWidget>

#include "views/image_compare_view.h"

class QButtonGroup;
class QLabel;

namespace kms::ui {

class ImagePanel : public QWidget {
  Q_OBJECT

 public:
  explicit ImagePanel(QWidget* parent = nullptr);
  ImageCompareView* view() const { return view_; }

 private:
  ImageCompareView* view_;
  QButtonGroup* modes_;
  QLabel* zoomLabel_;
};

}  // namespace kms::ui
