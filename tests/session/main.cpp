// Session tests (the worker thread, frame mailbox, label pool): GoogleTest as the runner and a
// QGuiApplication on the offscreen platform, no widgets — so they also build and run in the
// ThreadSanitizer build (preset tsan) without the GUI.
#include <QGuiApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);
  QGuiApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
