#include "widgets/step_keys.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>

namespace kms::ui {
namespace {

/// The spin box, combo box or line edit that `object` is or belongs to (a spin box's editor
/// is a QLineEdit child), or null.
QWidget* fieldOf(QObject* object) {
  auto* widget = qobject_cast<QWidget*>(object);
  for (QWidget* w = widget; w; w = w->parentWidget()) {
    if (qobject_cast<QAbstractSpinBox*>(w) || qobject_cast<QComboBox*>(w)) return w;
    if (w->isWindow()) break;
  }
  return qobject_cast<QLineEdit*>(widget);
}

bool isStepKey(const QKeyEvent* key) {
  const Qt::KeyboardModifiers mods = key->modifiers() & ~Qt::KeypadModifier;
  return (key->key() == Qt::Key_Left || key->key() == Qt::Key_Right) &&
         (mods == Qt::NoModifier || mods == Qt::ShiftModifier);
}

}  // namespace

StepKeyFilter::StepKeyFilter(QWidget* window) : QObject(window), window_(window) {
  qApp->installEventFilter(this);
}

bool StepKeyFilter::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
    case QEvent::FocusIn:
    case QEvent::FocusOut:
      if (typing_ && fieldOf(watched) == typing_) typing_ = nullptr;
      break;
    case QEvent::KeyPress: {
      const auto* key = static_cast<QKeyEvent*>(event);
      QWidget* field = fieldOf(watched);
      if (!field) break;
      if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter ||
          key->key() == Qt::Key_Escape)
        typing_ = nullptr;
      else if (!key->text().isEmpty() && key->text().at(0).isPrint())
        typing_ = field;
      else if (key->key() == Qt::Key_Backspace || key->key() == Qt::Key_Delete)
        typing_ = field;
      break;
    }
    case QEvent::ShortcutOverride: {
      // A focused field asks to keep the arrows for itself; unless it is being typed into,
      // refuse, so the window's step shortcuts fire.
      const auto* key = static_cast<QKeyEvent*>(event);
      QWidget* field = fieldOf(watched);
      if (!field || !isStepKey(key) || field == typing_) break;
      if (field->window() != window_) break;  // dialogs keep their arrows
      return true;
    }
    default:
      break;
  }
  return QObject::eventFilter(watched, event);
}

}  // namespace kms::ui
