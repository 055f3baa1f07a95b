// Asks for a synthetic data set: kind, number of points, groups, dimensions, noise and seed.
#pragma once

#include <QDialog>

#include "io/generators.h"

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;

namespace kms::ui {

class GeneratorDialog : public QDialog {
  Q_OBJECT

 public:
  explicit GeneratorDialog(QWidget* parent = nullptr);

  void setParams(const kms::app::GeneratorParams& params);
  kms::app::GeneratorParams params() const;

 private:
  void updateEnabled();

  QComboBox* kind_;
  QSpinBox* n_;
  QSpinBox* groups_;
  QSpinBox* d_;
  QDoubleSpinBox* noise_;
  QSpinBox* seed_;
};

}  // namespace kms::ui
