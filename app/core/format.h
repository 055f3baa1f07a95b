// Number formatting shared by display names, reports and the CLI.
#pragma once

#include <QString>

#include <cstddef>

namespace kms::app {

/// A count with thousands separators, independent of the user's locale: 10000 → "10,000".
QString groupedCount(std::size_t count);

}  // namespace kms::app
