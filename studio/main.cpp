// kmeans-studio: the live k-means visualiser.
#include <QApplication>
#include <QSettings>
#include <QStyleFactory>
#include <QTemporaryDir>

#include <memory>
#include <string_view>

#include "main_window.h"
#include "scripted_run.h"
#include "studio_options.h"

namespace {

void setNames() {
  QCoreApplication::setOrganizationName(QStringLiteral("KMeansStudio"));
  QCoreApplication::setApplicationName(QStringLiteral("kmeans-studio"));
  QCoreApplication::setApplicationVersion(QStringLiteral(KMS_VERSION));
}

/// --help and --version are answered before any window system is needed (QApplication aborts
/// without a display).
bool asksForHelpOrVersion(int argc, char* argv[]) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;
    if (arg == "-h" || arg == "--help" || arg == "--help-all" || arg == "-?" || arg == "-v" ||
        arg == "--version")
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char* argv[]) {
  if (asksForHelpOrVersion(argc, argv)) {
    QCoreApplication core(argc, argv);
    setNames();
    return kms::studio::parseStudioOptions(core) ? 0 : 2;  // prints and exits itself
  }
  QApplication app(argc, argv);
  setNames();
  QApplication::setApplicationDisplayName(QStringLiteral("KMeans Studio"));
  QApplication::setDesktopFileName(QStringLiteral("org.kmeansstudio.KMeansStudio"));
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
