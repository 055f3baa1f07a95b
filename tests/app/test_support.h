// Helpers shared by the app tests: temporary files, little-endian encoders, and checks on the
// LoadError a malformed file must produce.
#pragma once

#include <QByteArray>
#include <QString>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "io/load.h"

namespace kms::app::test {

/// A fresh temporary directory per test; removed with the object.
class TempFiles {
 public:
  TempFiles();
  /// Absolute path of `name` inside the directory (the file need not exist).
  QString path(const QString& name) const { return dir_.filePath(name); }
  /// Writes `bytes` to `name` and returns its path.
  QString write(const QString& name, const QByteArray& bytes) const;

 private:
  QTemporaryDir dir_;
};

/// The little-endian bytes of each value, one after the other.
QByteArray littleEndian(const std::vector<std::int32_t>& values);
QByteArray littleEndian(const std::vector<float>& values);
QByteArray littleEndian(const std::vector<double>& values);

/// A classic binary point file: int32 n, int32 d, then the values.
QByteArray classicBinary(std::int32_t n, std::int32_t d, const std::vector<float>& values);

/// A .npy file of the given format version with `dict` as its header text (padded as NumPy
/// pads it) followed by `data`.
QByteArray npyFile(const std::string& dict, const QByteArray& data, int majorVersion = 1);

/// Success when loading `path` throws LoadError whose message starts with "<file name>: " and
/// contains every one of `parts`.
::testing::AssertionResult failsToLoad(const QString& path,
                                       std::initializer_list<const char*> parts,
                                       const LoadOptions& options = {});

/// The bytes of `path` (a test failure when it cannot be opened).
QByteArray readAll(const QString& path);

/// Loads `path`, failing the test (and returning null) if anything is thrown.
DatasetPtr loadOrFail(const QString& path, const LoadOptions& options = {});

/// True when this process can read files whatever their permissions (root in a container), which
/// makes "unreadable file" and "read-only directory" impossible to set up.
bool ignoresFilePermissions();

}  // namespace kms::app::test
