// kmeans-cli: headless colour quantisation and point clustering. Usage and exit status: --help,
// cli/options.cpp and cli/exit_codes.h.
#include <QCoreApplication>

#include <cstdio>

#include "cli/exit_codes.h"
#include "cli/options.h"
#include "cli/run.h"

int main(int argc, char** argv) {
  // QImage reading and writing need no GUI platform, so a core application is enough.
  QCoreApplication app(argc, argv);
  QCoreApplication::setApplicationName(QStringLiteral("kmeans-cli"));
  QCoreApplication::setApplicationVersion(QStringLiteral(KMS_VERSION));
  kms::app::cli::CliOptions options;
  try {
    options = kms::app::cli::parseCommandLine(QCoreApplication::arguments());
  } catch (const kms::app::cli::UsageError& e) {
    std::fprintf(stderr, "kmeans-cli: %s\nTry 'kmeans-cli --help'.\n", e.what());
    return kms::app::cli::kBadArguments;
  }
  return kms::app::cli::run(options);
}
