#include "views/image_panel.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "widgets/icons.h"

namespace kms::ui {

ImagePanel::ImagePanel(QWidget* parent)
    : QWidget(parent),
      view_(new ImageCompareView(this)),
      modes_(new QButtonGroup(this)),
      method_(new QComboBox(this)),
      zoomLabel_(new QLabel(this)) {
  auto* tools = new QHBoxLayout;
  tools->setContentsMargins(6, 4, 6, 4);
  tools->setSpacing(4);
  const struct {
    ImageCompareView::Mode mode;
    QString text;
    QString tip;
  } modes[] = {
      {ImageCompareView::Mode::Split, tr("Split"),
       tr("Original left of the line, quantised right")},
      {ImageCompareView::Mode::SideBySide, tr("Side by side"),
       tr("Original and quantised next to each other")},
      {ImageCompareView::Mode::Original, tr("Original"), tr("Only the original picture")},
      {ImageCompareView::Mode::Quantised, tr("Quantised"), tr("Only the quantised picture")},
      {ImageCompareView::Mode::Dithered, tr("Dithered"),
       tr("The quantised picture dithered: its pixels mix the palette so areas keep their "
          "colour (computed in the clustering colour space)")},
  };
  for (const auto& m : modes) {
    auto* button = new QToolButton(this);
    button->setText(m.text);
    button->setToolTip(m.tip);
    button->setCheckable(true);
    button->setAutoRaise(true);
    button->setChecked(m.mode == view_->mode());
    modes_->addButton(button, int(m.mode));
    tools->addWidget(button);
  }
  modes_->setExclusive(true);
  connect(modes_, &QButtonGroup::idClicked, this,
          [this](int id) { view_->setMode(ImageCompareView::Mode(id)); });
  method_->addItem(methodName(kms::app::DitherMode::FloydSteinberg),
                   int(kms::app::DitherMode::FloydSteinberg));
  method_->addItem(methodName(kms::app::DitherMode::Ordered), int(kms::app::DitherMode::Ordered));
  method_->setToolTip(tr("Error diffusion (Floyd–Steinberg) or an 8 × 8 ordered pattern"));
  method_->setEnabled(false);
  tools->addWidget(method_);
  connect(method_, &QComboBox::currentIndexChanged, this, [this] {
    ditherMode_ = kms::app::DitherMode(method_->currentData().toInt());
    view_->setDithered({}, methodName(ditherMode_));
    requestDither();
  });
  connect(view_, &ImageCompareView::modeChanged, this, [this](ImageCompareView::Mode mode) {
    if (auto* b = modes_->button(int(mode))) b->setChecked(true);
    method_->setEnabled(mode == ImageCompareView::Mode::Dithered);
    requestDither();
  });
  connect(&job_, &QFutureWatcherBase::finished, this, [this] {
    const QImage image = job_.future().isValid() ? job_.result() : QImage();
    if (ditherFrame_ == frame_ && jobMode_ == ditherMode_ && !image.isNull()) {
      view_->setDithered(image, methodName(ditherMode_));
      ++dithered_;
    }
    ditherFrame_.reset();
    if (pending_) {  // a newer frame or another method came while this job ran
      pending_ = false;
      requestDither();
    }
  });
  tools->addStretch(1);

  auto* fit = new QToolButton(this);
  fit->setIcon(icon(IconKind::Fit));
  fit->setToolTip(tr("Fit the picture to the view (double-click)"));
  fit->setAutoRaise(true);
  connect(fit, &QToolButton::clicked, view_, &ImageCompareView::fitToView);
  auto* actual = new QToolButton(this);
  actual->setIcon(icon(IconKind::ActualSize));
  actual->setToolTip(tr("One picture pixel per screen pixel"));
  actual->setAutoRaise(true);
  connect(actual, &QToolButton::clicked, this, [this] { view_->setZoom(1.0); });
  zoomLabel_->setMinimumWidth(48);
  zoomLabel_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  connect(view_, &ImageCompareView::zoomChanged, this, [this](double zoom) {
    zoomLabel_->setText(QStringLiteral("%1 %").arg(qRound(zoom * 100)));
  });
  tools->addWidget(zoomLabel_);
  tools->addWidget(fit);
  tools->addWidget(actual);

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addLayout(tools);
  layout->addWidget(view_, 1);
}

ImagePanel::~ImagePanel() {
  if (cancel_) cancel_->store(true);
  job_.waitForFinished();
}

QString ImagePanel::methodName(kms::app::DitherMode mode) {
  return mode == kms::app::DitherMode::Ordered ? tr("ordered 8 × 8") : tr("Floyd–Steinberg");
}

kms::app::DitherMode ImagePanel::ditherMethod() const {
  return ditherMode_;
}

void ImagePanel::setDitherMethod(kms::app::DitherMode mode) {
  if (mode == kms::app::DitherMode::None) return;
  method_->setCurrentIndex(std::max(0, method_->findData(int(mode))));
}

kms::app::DitherMode ImagePanel::shownDithering() const {
  return view_->mode() == ImageCompareView::Mode::Dithered ? ditherMode_
                                                          : kms::app::DitherMode::None;
}

void ImagePanel::showFrame(const session::FramePtr& frame) {
  const bool newPicture = !frame_ || !frame || frame->quantized.cacheKey() != frame_->quantized.cacheKey();
  frame_ = frame;
  view_->setQuantised(frame ? frame->quantized : QImage(), frame ? frame->k : 0);
  if (newPicture) view_->setDithered({}, methodName(ditherMode_));
  requestDither();
}

void ImagePanel::clear() {
  frame_.reset();
  if (cancel_) cancel_->store(true);
  view_->clear();
}

void ImagePanel::requestDither() {
  if (view_->mode() != ImageCompareView::Mode::Dithered || !frame_ || frame_->quantized.isNull() ||
      !frame_->input || !view_->dithered().isNull())
    return;
  if (job_.isRunning()) {  // the newest frame goes next; an outdated job stops early
    pending_ = true;
    if ((ditherFrame_ != frame_ || jobMode_ != ditherMode_) && cancel_) cancel_->store(true);
    return;
  }
  startDither();
}

void ImagePanel::startDither() {
  ditherFrame_ = frame_;
  jobMode_ = ditherMode_;
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  job_.setFuture(QtConcurrent::run([frame = frame_, mode = ditherMode_, cancel = cancel_] {
    try {
      return kms::app::ditheredImage(*frame->input, frame->engineCentroids, frame->palette, mode,
                                     cancel.get());
    } catch (const std::exception&) {
      return QImage();  // (a frame without a picture; nothing to show)
    }
  }));
}

}  // namespace kms::ui
