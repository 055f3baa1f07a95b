// kmeans-studio: the live k-means visualiser.
#include <QApplication>
#include <QSettings>
#include <QStyleFactory>
#include <QTemporaryDir>

#include <memory>

#include "main_window.h"
#include "scripted_run.h"
#include "studio_options.h"

int main(int argc, char* argv[]) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("KMeansStudio"));
  QApplication::setApplicationName(QStringLiteral("kmeans-studio"));
  QApplication::setApplicationDisplayName(QStringLiteral("KMeans Studio"));
  QApplication::setApplicationVersion(QStringLiteral(KMS_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("kmeans-studio"));
  // One look everywhere (desktops, Xvfb, the offscreen platform).
  if (QStyle* fusion = QStyleFactory::create(QStringLiteral("Fusion")))
    QApplication::setStyle(fusion);

  const std::optional<kms::studio::StudioOptions> options = kms::studio::parseStudioOptions(app);
  if (!options) return 2;

  // --no-persist: settings go to a folder that disappears on exit.
  std::unique_ptr<QTemporaryDir> scratch;
  if (options->noPersist) {
    scratch = std::make_unique<QTemporaryDir>();
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, scratch->path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, scratch->path());
  }

  kms::ui::MainWindow window;
  if (options->size) window.resize(*options->size);
  window.show();
  auto* script = new kms::studio::ScriptedRun(window, *options);
  script->start();
  return app.exec();
}
