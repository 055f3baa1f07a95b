// An Engine that follows a run another process makes (kmeans-cli --live-report, perhaps over
// several machines under mpirun): its iterations as they arrive in the live report
// (io/live_report.h), each row's label the nearest of the report's centroids — what the window
// shows of any run, so every view, chart and the status bar work unchanged (kmeans-studio
// --follow FILE). step() waits for the next iteration, polling the file, and stops waiting when
// the interrupt flag is raised (Interrupted). The labels are computed here on the CPU from the
// data set the report names (Engine::assign of a CPU engine).
#pragma once

#include <QString>

#include <memory>

#include "io/live_report.h"
#include "kmeans/engine.h"

namespace kms::session {

class FollowedRunEngine final : public kms::Engine {
 public:
  /// `path`: the live report. `pollMs`: how often a waiting step() reads it again.
  explicit FollowedRunEngine(QString path, int pollMs = 50);
  ~FollowedRunEngine() override;

  kms::BackendInfo info() const override;
  void setData(const kms::DataView& data) override;
  /// Waits for the report's header; k must be the followed run's (InvalidArgument otherwise).
  /// max_iterations becomes the followed run's.
  void initialize(const kms::KMeansConfig& config) override;
  /// The followed run's next iteration, once it is in the report. When the report ends first,
  /// no iteration runs (iteration() stays; finished() becomes true) and the last stats return.
  kms::IterationStats step() override;
  void snapshot(kms::Snapshot& out) override;
  void assign(const std::vector<float>& centred_centroids,
              std::vector<std::int32_t>& labels) override;

  /// The report's header (after initialize()).
  const kms::app::LiveRunHeader& header() const;

 private:
  CentroidsNow centroidsForHistory() const override;
  std::vector<float> centred(const std::vector<float>& dataUnits) const;
  /// Reads the report until it holds iteration `count` (1-based) or has ended; false when it ended
  /// first. Throws Interrupted when the interrupt flag is raised while waiting.
  bool waitFor(std::size_t count);

  kms::app::LiveReportReader reader_;
  int pollMs_;
  std::unique_ptr<kms::Engine> labeller_;  ///< a CPU engine on the same data: assign()
  std::vector<float> mid_;                 ///< the data's centre (the engines' frame)
  std::size_t n_ = 0;
  int d_ = 0;
  std::vector<float> before_, now_;  ///< centred centroids after t − 1 and after t
};

}  // namespace kms::session
