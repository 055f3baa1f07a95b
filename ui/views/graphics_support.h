// Whether this process can show Qt Data Visualization's OpenGL 3-D view.
//
// Q3DScatter aborts the process on a platform without OpenGL, so this is decided before one is
// ever created: KMS_NO_3D=1 turns 3-D off (tests, remote sessions), the offscreen/minimal/VNC
// platforms never have it, and elsewhere an OpenGL context must create and make current on an
// offscreen surface. The answer is computed once per process.
#pragma once

#include <QString>

namespace kms::ui {

struct ThreeDSupport {
  bool available = false;
  QString reason;    ///< why not, fit to show in the fallback's note
  QString renderer;  ///< GL_RENDERER when available
};

const ThreeDSupport& threeDSupport();

}  // namespace kms::ui
