#include "core/format.h"

#include <QLocale>

namespace kms::app {

QString groupedCount(std::size_t count) {
  static const QLocale english(QLocale::English, QLocale::UnitedStates);
  return english.toString(qulonglong(count));
}

}  // namespace kms::app
