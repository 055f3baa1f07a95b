#include "generator_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace kms::ui {

GeneratorDialog::GeneratorDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Generate Data"));
  kind_ = new QComboBox(this);
  using kms::app::GeneratorKind;
  kind_->addItem(tr("Gaussian blobs"), int(GeneratorKind::Blobs));
  kind_->addItem(tr("Concentric rings (2-D)"), int(GeneratorKind::Rings));
  kind_->addItem(tr("Two moons (2-D)"), int(GeneratorKind::Moons));
  kind_->addItem(tr("Uniform cube"), int(GeneratorKind::Uniform));
  kind_->addItem(tr("Photo-like picture (points = pixels)"), int(GeneratorKind::Photo));
  kind_->addItem(tr("Stretched blobs (2-D)"), int(GeneratorKind::Anisotropic));
  kind_->addItem(tr("Blobs of unequal spread (2-D)"), int(GeneratorKind::UnequalVariances));
  kind_->addItem(tr("Blobs of unequal size (2-D)"), int(GeneratorKind::UnequalSizes));
  kind_->setToolTip(
      tr("Rings, moons, stretched blobs and unequal spreads or sizes show where "
         "k-means' round, equal clusters fail"));
  n_ = new QSpinBox(this);
  n_->setRange(1, 50000000);
  n_->setGroupSeparatorShown(true);
  n_->setSingleStep(1000);
  n_->setToolTip(tr("Number of points"));
  groups_ = new QSpinBox(this);
  groups_->setRange(1, 1000);
  groups_->setToolTip(tr("Number of blobs or rings (the k that should find them)"));
  d_ = new QSpinBox(this);
  d_->setRange(1, 64);
  d_->setToolTip(tr("Dimensions of blobs and uniform points (rings and moons are 2-D)"));
  noise_ = new QDoubleSpinBox(this);
  noise_->setRange(0.0, 10.0);
  noise_->setDecimals(3);
  noise_->setSingleStep(0.01);
  noise_->setToolTip(tr("Gaussian jitter relative to the layout's size"));
  seed_ = new QSpinBox(this);
  seed_->setRange(0, 999999999);
  seed_->setToolTip(tr("Same parameters and seed give the same points"));

  auto* form = new QFormLayout;
  form->addRow(tr("Kind"), kind_);
  form->addRow(tr("Points"), n_);
  form->addRow(tr("Groups"), groups_);
  form->addRow(tr("Dimensions"), d_);
  form->addRow(tr("Noise"), noise_);
  form->addRow(tr("Seed"), seed_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Generate"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(buttons);
  connect(kind_, &QComboBox::currentIndexChanged, this, &GeneratorDialog::updateEnabled);
  setParams({});
}

void GeneratorDialog::setParams(const kms::app::GeneratorParams& p) {
  kind_->setCurrentIndex(std::max(0, kind_->findData(int(p.kind))));
  n_->setValue(int(std::min<std::size_t>(p.n, std::size_t(n_->maximum()))));
  groups_->setValue(p.groups);
  d_->setValue(p.d);
  noise_->setValue(p.noise);
  seed_->setValue(int(std::min<std::uint64_t>(p.seed, std::uint64_t(seed_->maximum()))));
  updateEnabled();
}

kms::app::GeneratorParams GeneratorDialog::params() const {
  kms::app::GeneratorParams p;
  p.kind = kms::app::GeneratorKind(kind_->currentData().toInt());
  p.n = std::size_t(n_->value());
  p.groups = groups_->value();
  p.d = d_->value();
  p.noise = noise_->value();
  p.seed = std::uint64_t(seed_->value());
  return p;
}

void GeneratorDialog::updateEnabled() {
  const auto kind = kms::app::GeneratorKind(kind_->currentData().toInt());
  using kms::app::GeneratorKind;
  groups_->setEnabled(kind != GeneratorKind::Moons && kind != GeneratorKind::Uniform &&
                      kind != GeneratorKind::Photo);
  d_->setEnabled(kind == GeneratorKind::Blobs || kind == GeneratorKind::Uniform);
  noise_->setEnabled(kind != GeneratorKind::Uniform && kind != GeneratorKind::Photo);
}

}  // namespace kms::ui
