#include "session/session_types.h"

#include <QCoreApplication>

namespace kms::session {

QString toDisplayString(SessionState state) {
  switch (state) {
    case SessionState::NoData:
      return QCoreApplication::translate("Session", "No data");
    case SessionState::Preparing:
      return QCoreApplication::translate("Session", "Preparing");
    case SessionState::Ready:
      return QCoreApplication::translate("Session", "Ready");
    case SessionState::Running:
      return QCoreApplication::translate("Session", "Running");
    case SessionState::Paused:
      return QCoreApplication::translate("Session", "Paused");
    case SessionState::Finished:
      return QCoreApplication::translate("Session", "Finished");
    case SessionState::Invalid:
      return QCoreApplication::translate("Session", "Invalid settings");
  }
  return {};
}

void registerSessionMetaTypes() {
  qRegisterMetaType<RunSettings>();
  qRegisterMetaType<SessionState>();
  qRegisterMetaType<StepPhase>();
  qRegisterMetaType<FramePtr>();
  qRegisterMetaType<EngineDescription>();
  qRegisterMetaType<kms::app::DatasetPtr>();
  qRegisterMetaType<kms::app::GeneratorParams>();
}

}  // namespace kms::session
