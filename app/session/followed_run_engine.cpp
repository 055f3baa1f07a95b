#include "session/followed_run_engine.h"

#include <QFileInfo>

#include <chrono>
#include <thread>

#include "core/dataset.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"

namespace kms::session {

FollowedRunEngine::FollowedRunEngine(QString path, int pollMs)
    : reader_(std::move(path)), pollMs_(pollMs), labeller_(kms::createCpuEngine()) {
  try {
    reader_.poll();  // the header names the followed engine (info()), when it is there yet
  } catch (const std::exception&) {
    // initialize() reads again and reports the problem
  }
}

FollowedRunEngine::~FollowedRunEngine() = default;

kms::BackendInfo FollowedRunEngine::info() const {
  if (!reader_.header()) return {"followed", "a run's live report"};
  const auto& h = *reader_.header();
  return {h.backend.toStdString(), h.device.toStdString() + ", followed from " +
                                       QFileInfo(reader_.path()).fileName().toStdString()};
}

void FollowedRunEngine::setData(const kms::DataView& data) {
  labeller_->setData(data);  // validates
  mid_ = kms::summarizeData(data).mid;
  n_ = data.n;
  d_ = data.d;
  resetRun();
}

const kms::app::LiveRunHeader& FollowedRunEngine::header() const {
  if (!reader_.header()) throw std::logic_error("FollowedRunEngine: no header read yet");
  return *reader_.header();
}

std::vector<float> FollowedRunEngine::centred(const std::vector<float>& dataUnits) const {
  std::vector<float> out(dataUnits.size());
  for (std::size_t i = 0; i < out.size(); ++i)
    out[i] = dataUnits[i] - mid_[i % mid_.size()];
  return out;
}

bool FollowedRunEngine::waitFor(std::size_t count) {
  while (true) {
    reader_.poll();
    if (reader_.header() && reader_.iterations().size() >= count) return true;
    if (reader_.end()) return false;
    if (interruptRequested()) throw kms::Interrupted("waiting for the followed run");
    std::this_thread::sleep_for(std::chrono::milliseconds(pollMs_));
  }
}

void FollowedRunEngine::initialize(const kms::KMeansConfig& config) {
  if (d_ == 0) throw std::logic_error("FollowedRunEngine::initialize called before setData");
  waitFor(0);
  const auto& h = header();
  if (h.d != d_ || h.n != n_)
    throw kms::InvalidArgument(QStringLiteral("The followed run clusters %1 points of %2 "
                                              "dimensions; the data opened have %3 of %4.")
                                   .arg(h.n)
                                   .arg(h.d)
                                   .arg(n_)
                                   .arg(d_)
                                   .toStdString());
  if (config.k != h.k)
    throw kms::InvalidArgument("The followed run has k = " + std::to_string(h.k) + ", not " +
                               std::to_string(config.k) + ".");
  config_ = config;
  config_.max_iterations = h.config.max_iterations;
  config_.seed = h.config.seed;
  config_.tolerance = h.config.tolerance;
  before_ = now_ = centred(h.centroids);
  beginRun();
}

kms::IterationStats FollowedRunEngine::step() {
  if (before_.empty()) throw std::logic_error("FollowedRunEngine::step called before initialize");
  const std::size_t next = std::size_t(iteration_) + 1;
  if (!waitFor(next)) {
    // The followed run ended here (its limit, or it stopped): so does this one.
    config_.max_iterations = iteration_;
    return last_;
  }
  const kms::app::LiveIteration& it = reader_.iterations()[next - 1];
  before_ = now_;
  now_ = centred(it.centroids);
  kms::IterationStats stats = it.stats;
  stats.iteration = int(next);
  if (reader_.end() && reader_.iterations().size() == next && !stats.converged)
    config_.max_iterations = int(next);  // the last iteration of a run that stopped unconverged
  endIteration(stats);
  return stats;
}

void FollowedRunEngine::snapshot(kms::Snapshot& out) {
  out.iteration = iteration_;
  out.n = n_;
  out.k = config_.k;
  out.d = d_;
  out.centred_centroids = now_;
  out.centroids.resize(now_.size());
  for (std::size_t i = 0; i < now_.size(); ++i)
    out.centroids[i] = now_[i] + mid_[i % mid_.size()];
  out.stats = last_;
  if (iteration_ > 0)
    labeller_->assign(before_, out.labels);  // the labels iteration t assigned
  else
    out.labels.clear();
}

void FollowedRunEngine::assign(const std::vector<float>& centred_centroids,
                               std::vector<std::int32_t>& labels) {
  labeller_->assign(centred_centroids, labels);
}

kms::Engine::CentroidsNow FollowedRunEngine::centroidsForHistory() const {
  return {now_, &mid_};
}

}  // namespace kms::session
