#include "widgets/message_bar.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace kms::ui {

MessageBar::MessageBar(QWidget* parent)
    : QWidget(parent),
      icon_(new QLabel(this)),
      text_(new QLabel(this)),
      action_(new QToolButton(this)),
      close_(new QToolButton(this)) {
  setObjectName(QStringLiteral("messageBar"));
  setAttribute(Qt::WA_StyledBackground);
  text_->setObjectName(QStringLiteral("messageText"));
  text_->setWordWrap(true);
  text_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  close_->setText(QStringLiteral("✕"));
  close_->setAutoRaise(true);
  close_->setToolTip(tr("Dismiss"));
  connect(close_, &QToolButton::clicked, this, &MessageBar::dismiss);
  action_->setObjectName(QStringLiteral("messageAction"));
  action_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  action_->hide();
  connect(action_, &QToolButton::clicked, this, [this] {
    const std::function<void()> action = std::move(onAction_);
    dismiss();
    if (action) action();
  });
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(10, 6, 6, 6);
  layout->addWidget(icon_);
  layout->addWidget(text_, 1);
  layout->addWidget(action_, 0, Qt::AlignVCenter);
  layout->addWidget(close_, 0, Qt::AlignTop);
  autoHide_.setSingleShot(true);
  connect(&autoHide_, &QTimer::timeout, this, &MessageBar::dismiss);
  hide();
}

void MessageBar::showMessage(Level level, const QString& text, const QString& actionText,
                             std::function<void()> action) {
  showMessage(level, text);
  onAction_ = std::move(action);
  action_->setText(actionText);
  action_->show();
  autoHide_.stop();  // a message that offers something stays until it is answered
}

void MessageBar::showMessage(Level level, const QString& text) {
  level_ = level;
  action_->hide();
  onAction_ = {};
  const char* colours[] = {"#e8f1fb; color: #1e3a5f; border-bottom: 1px solid #b9d3f0",
                           "#fff7e0; color: #6b4e00; border-bottom: 1px solid #ecd9a0",
                           "#fdecec; color: #7f1d1d; border-bottom: 1px solid #f3b7b7"};
  setStyleSheet(QStringLiteral("QWidget#messageBar { background: %1; } QLabel { color: inherit; }")
                    .arg(QString::fromLatin1(colours[int(level)])));
  const QStyle::StandardPixmap pixmaps[] = {QStyle::SP_MessageBoxInformation,
                                            QStyle::SP_MessageBoxWarning,
                                            QStyle::SP_MessageBoxCritical};
  icon_->setPixmap(style()->standardIcon(pixmaps[int(level)]).pixmap(20, 20));
  text_->setText(text);
  show();
  if (level == Level::Info)
    autoHide_.start(6000);
  else
    autoHide_.stop();
}

void MessageBar::dismiss() {
  autoHide_.stop();
  action_->hide();
  onAction_ = {};
  hide();
}

QString MessageBar::text() const {
  return isVisible() ? text_->text() : QString();
}

}  // namespace kms::ui
