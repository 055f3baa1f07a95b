// A bar at the top of the views that shows errors and notices in the window itself (not in a
// modal dialog that would stop a running demo). Newest message wins; errors stay until closed,
// notices fade after a few seconds.
#pragma once

#include <QTimer>
#include <QWidget>

#include <functional>

class QLabel;
class QToolButton;

namespace kms::ui {

class MessageBar : public QWidget {
  Q_OBJECT

 public:
  enum class Level { Info, Warning, Error };

  explicit MessageBar(QWidget* parent = nullptr);

  void showMessage(Level level, const QString& text);
  /// With a button labelled `actionText` that runs `action` and dismisses the message.
  void showMessage(Level level, const QString& text, const QString& actionText,
                   std::function<void()> action);
  void dismiss();
  QString text() const;
  /// The action button (hidden when the message has none).
  QToolButton* actionButton() const { return action_; }
  Level level() const { return level_; }

 private:
  QLabel* icon_;
  QLabel* text_;
  QToolButton* action_;
  std::function<void()> onAction_;
  QToolButton* close_;
  QTimer autoHide_;
  Level level_ = Level::Info;
};

}  // namespace kms::ui
