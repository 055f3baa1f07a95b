#include "views/image_panel.h"

#include <QButtonGroup>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/icons.h"

namespace kms::ui {

ImagePanel::ImagePanel(QWidget* parent)
    : QWidget(parent),
      view_(new ImageCompareView(this)),
      modes_(new QButtonGroup(this)),
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
  connect(view_, &ImageCompareView::modeChanged, this, [this](ImageCompareView::Mode mode) {
    if (auto* b = modes_->button(int(mode))) b->setChecked(true);
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

}  // namespace kms::ui
