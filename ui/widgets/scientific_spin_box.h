// A spin box for small positive quantities such as a convergence tolerance: shows "1e-04"
// instead of "0.000100", and its arrows step by factors of ten.
#pragma once

#include <QDoubleSpinBox>

namespace kms::ui {

class ScientificSpinBox : public QDoubleSpinBox {
  Q_OBJECT

 public:
  explicit ScientificSpinBox(QWidget* parent = nullptr);

  QString textFromValue(double value) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;
  void stepBy(int steps) override;
};

}  // namespace kms::ui
