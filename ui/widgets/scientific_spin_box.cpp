#include "widgets/scientific_spin_box.h"

#include <algorithm>
#include <cmath>

namespace kms::ui {

ScientificSpinBox::ScientificSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  setDecimals(12);  // the value is stored with this precision; the text comes from textFromValue
  setRange(0.0, 1.0);
}

QString ScientificSpinBox::textFromValue(double value) const {
  if (value == 0.0) return QStringLiteral("0");
  return QString::number(value, 'g', 3);
}

double ScientificSpinBox::valueFromText(const QString& text) const {
  bool ok = false;
  const double v = text.trimmed().toDouble(&ok);  // C locale: "1e-4" is what users type
  return ok ? v : value();
}

QValidator::State ScientificSpinBox::validate(QString& text, int&) const {
  const QString t = text.trimmed();
  if (t.isEmpty() || t.endsWith(QLatin1Char('e')) || t.endsWith(QLatin1String("e-")) ||
      t == QLatin1String("."))
    return QValidator::Intermediate;
  bool ok = false;
  const double v = t.toDouble(&ok);
  if (!ok) return QValidator::Invalid;
  return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
}

void ScientificSpinBox::stepBy(int steps) {
  const double v = value() > 0.0 ? value() : 1e-7;
  setValue(std::clamp(v * std::pow(10.0, steps), 1e-12, maximum()));
}

}  // namespace kms::ui
