// ← and → (with or without Shift) step the run wherever the keyboard focus is — also in the
// settings' spin boxes and combo boxes, which would otherwise take the arrows to move their
// cursor — except while the user is typing into such a field (from the first typed character
// until Enter, Escape or the focus leaving it).
#pragma once

#include <QObject>
#include <QPointer>

class QWidget;

namespace kms::ui {

class StepKeyFilter : public QObject {
  Q_OBJECT

 public:
  /// Filters the application's events while `window` (the main window) is alive.
  explicit StepKeyFilter(QWidget* window);

  /// The field being typed into, if any (for tests).
  QWidget* typingIn() const { return typing_; }

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QWidget* window_;
  QPointer<QWidget> typing_;
};

}  // namespace kms::ui
