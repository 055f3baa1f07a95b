#include "views/graphics_support.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFunctions>

namespace kms::ui {
namespace {

ThreeDSupport probe() {
  auto tr = [](const char* text) { return QCoreApplication::translate("ThreeDSupport", text); };
  ThreeDSupport support;
  const QByteArray disabled = qgetenv("KMS_NO_3D");
  if (!disabled.isEmpty() && disabled != "0") {
    support.reason = tr("3-D view turned off (KMS_NO_3D)");
    return support;
  }
  const QString platform = QGuiApplication::platformName();
  static const QStringList noGl = {QStringLiteral("offscreen"), QStringLiteral("minimal"),
                                   QStringLiteral("minimalegl"), QStringLiteral("vnc"),
                                   QStringLiteral("linuxfb")};
  if (noGl.contains(platform)) {
    support.reason = tr("no OpenGL on the \"%1\" platform").arg(platform);
    return support;
  }
  QOpenGLContext context;
  if (!context.create()) {
    support.reason = tr("no OpenGL context could be created");
    return support;
  }
  QOffscreenSurface surface;
  surface.setFormat(context.format());
  surface.create();
  if (!surface.isValid() || !context.makeCurrent(&surface)) {
    support.reason = tr("the OpenGL context could not be made current");
    return support;
  }
  const QSurfaceFormat format = context.format();
  const bool es = context.isOpenGLES();
  if (!es &&
      (format.majorVersion() < 2 || (format.majorVersion() == 2 && format.minorVersion() < 1))) {
    support.reason = tr("OpenGL %1.%2 is too old (2.1 needed)")
                         .arg(format.majorVersion())
                         .arg(format.minorVersion());
    context.doneCurrent();
    return support;
  }
  const auto* renderer = context.functions()->glGetString(GL_RENDERER);
  support.renderer =
      renderer ? QString::fromLatin1(reinterpret_cast<const char*>(renderer)) : QString();
  context.doneCurrent();
  support.available = true;
  return support;
}

}  // namespace

const ThreeDSupport& threeDSupport() {
  static const ThreeDSupport support = probe();
  return support;
}

}  // namespace kms::ui
