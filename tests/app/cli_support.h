// Running kmeans-cli from the tests: its exit code and output, and reading what it wrote.
#pragma once

#include <gtest/gtest.h>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStringList>

namespace kms::app::test {

struct CliRun {
  int exitCode = -1;
  QString out, err;
};

/// Runs kmeans-cli with `arguments`; `environment`: extra NAME=value settings.
inline CliRun runCli(const QStringList& arguments, const QStringList& environment = {}) {
  QProcess process;
  if (!environment.isEmpty()) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const QString& setting : environment)
      env.insert(setting.section(u'=', 0, 0), setting.section(u'=', 1));
    process.setProcessEnvironment(env);
  }
  process.start(QStringLiteral(KMS_CLI_PATH), arguments);
  EXPECT_TRUE(process.waitForFinished(60000)) << "kmeans-cli did not finish";
  CliRun run;
  run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  run.out = QString::fromUtf8(process.readAllStandardOutput());
  run.err = QString::fromUtf8(process.readAllStandardError());
  return run;
}

inline QString sample(const char* name) {
  return QStringLiteral(KMS_RESOURCES_DIR "/samples/") + QString::fromLatin1(name);
}

inline QJsonObject readJson(const QString& path) {
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
  QJsonParseError error;
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
  EXPECT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString();
  return doc.object();
}

inline int countLines(const QString& path) {
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
  return int(file.readAll().count('\n'));
}

}  // namespace kms::app::test
