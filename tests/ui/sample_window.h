// A main window with fresh settings on a built-in sample, ready at iteration 0: the start of the
// UI tests that drive a whole window.
#pragma once

#include <QSettings>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <memory>

#include "main_window.h"
#include "ui_test_support.h"

namespace kms::test {

inline std::unique_ptr<kms::ui::MainWindow> sampleWindow(const QString& sample) {
  QSettings().clear();
  auto w = std::make_unique<kms::ui::MainWindow>();
  w->resize(1280, 800);
  w->show();
  QSignalSpy changed(&w->session(), &kms::session::SessionController::datasetChanged);
  EXPECT_TRUE(w->openSample(sample));
  EXPECT_TRUE(waitFor([&] { return changed.count() > 0; }, 30000));
  EXPECT_TRUE(
      waitFor([&] { return w->session().state() == kms::session::SessionState::Ready; }, 60000));
  return w;
}

}  // namespace kms::test
