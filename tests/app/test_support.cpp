#include "test_support.h"

#include <QFile>
#include <QFileInfo>
#include <QtEndian>

namespace kms::app::test {

TempFiles::TempFiles() {
  EXPECT_TRUE(dir_.isValid()) << "cannot create a temporary directory";
}

QString TempFiles::write(const QString& name, const QByteArray& bytes) const {
  const QString file = path(name);
  QFile out(file);
  EXPECT_TRUE(out.open(QIODevice::WriteOnly)) << file.toStdString();
  EXPECT_EQ(out.write(bytes), bytes.size());
  return file;
}

template <typename T>
QByteArray encode(const std::vector<T>& values) {
  QByteArray bytes(qsizetype(values.size() * sizeof(T)), '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    qToLittleEndian(values[i], bytes.data() + i * sizeof(T));
  return bytes;
}

QByteArray littleEndian(const std::vector<std::int32_t>& values) {
  return encode(values);
}
QByteArray littleEndian(const std::vector<float>& values) {
  return encode(values);
}
QByteArray littleEndian(const std::vector<double>& values) {
  return encode(values);
}

QByteArray classicBinary(std::int32_t n, std::int32_t d, const std::vector<float>& values) {
  return littleEndian(std::vector<std::int32_t>{n, d}) + littleEndian(values);
}

QByteArray npyFile(const std::string& dict, const QByteArray& data, int majorVersion) {
  const int lengthBytes = majorVersion == 1 ? 2 : 4;
  QByteArray header = QByteArray::fromStdString(dict);
  // NumPy pads the header with spaces and a newline so the data starts on a 64-byte boundary.
  const qsizetype prefix = 8 + lengthBytes;
  while ((prefix + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  QByteArray file("\x93NUMPY", 6);
  file += char(majorVersion);
  file += char(0);
  if (majorVersion == 1)
    file += littleEndian(std::vector<std::int32_t>{std::int32_t(header.size())}).left(2);
  else
    file += littleEndian(std::vector<std::int32_t>{std::int32_t(header.size())});
  return file + header + data;
}

::testing::AssertionResult failsToLoad(const QString& path,
                                       std::initializer_list<const char*> parts,
                                       const LoadOptions& options) {
  try {
    loadDataset(path, options);
  } catch (const LoadError& e) {
    const std::string message = e.what();
    const std::string prefix = QFileInfo(path).fileName().toStdString() + ": ";
    if (message.rfind(prefix, 0) != 0)
      return ::testing::AssertionFailure()
             << "message \"" << message << "\" does not start with \"" << prefix << "\"";
    for (const char* part : parts)
      if (message.find(part) == std::string::npos)
        return ::testing::AssertionFailure()
               << "message \"" << message << "\" does not contain \"" << part << "\"";
    return ::testing::AssertionSuccess() << message;
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw something else than LoadError: " << e.what();
  }
  return ::testing::AssertionFailure() << "loaded without an error";
}

DatasetPtr loadOrFail(const QString& path, const LoadOptions& options) {
  try {
    return loadDataset(path, options);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "loading " << path.toStdString() << " failed: " << e.what();
  }
  return nullptr;
}

bool ignoresFilePermissions() {
  // Root (or CAP_DAC_OVERRIDE) opens a file whatever its mode: find out by trying.
  const TempFiles files;
  const QString probe = files.write(QStringLiteral("probe"), "x");
  QFile::setPermissions(probe, QFileDevice::Permissions());
  QFile file(probe);
  return file.open(QIODevice::ReadOnly);
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
  return file.readAll();
}

}  // namespace kms::app::test
