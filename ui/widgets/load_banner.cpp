#include "widgets/load_banner.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>

namespace kms::ui {

LoadBanner::LoadBanner(QWidget* parent)
    : QWidget(parent),
      label_(new QLabel(this)),
      bar_(new QProgressBar(this)),
      cancel_(new QPushButton(tr("Cancel"), this)) {
  setObjectName(QStringLiteral("loadBanner"));
  setAttribute(Qt::WA_StyledBackground);
  setStyleSheet(QStringLiteral(
      "QWidget#loadBanner { background: #eef2f7; border-bottom: 1px solid #d5dbe3; }"));
  bar_->setRange(0, 1000);
  bar_->setTextVisible(false);
  bar_->setMaximumHeight(14);
  bar_->setMinimumWidth(200);
  cancel_->setToolTip(tr("Stop loading; the current data stays as it is"));
  connect(cancel_, &QPushButton::clicked, this, &LoadBanner::cancelRequested);
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 5, 8, 5);
  layout->addWidget(label_, 1);
  layout->addWidget(bar_);
  layout->addWidget(cancel_);
  hide();
}

void LoadBanner::start(const QString& what, bool cancellable) {
  const QFileInfo info(what);
  label_->setText(tr("Loading %1…").arg(info.exists() ? info.fileName() : what));
  bar_->setRange(0, 0);  // busy until the loader reports
  cancel_->setVisible(cancellable);
  show();
}

void LoadBanner::setProgress(double fraction) {
  if (fraction <= 0.0) return;
  bar_->setRange(0, 1000);
  bar_->setValue(int(fraction * 1000.0));
}

void LoadBanner::finish() {
  hide();
}

}  // namespace kms::ui
