// CpuEngine::initParallel: k-means|| (common/parallel_seeding.h) over this rank's rows. The rows'
// distances to each round's candidates are scored vectorised, a chunk of rows a task; the sampled
// rows, their potential and the candidates' weights are integers or index lists, so the thread
// count changes nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/constants.h"
#include "common/parallel_sampling.h"
#include "common/parallel_seeding.h"
#include "common/seeding.h"
#include "cpu/cpu_engine.h"
#include "cpu/exact_distances.h"
#include "kmeans/errors.h"

namespace kms {

void CpuEngine::initParallel() {
  // A local class has the member function's access: it reads the engine's rows in place.
  class Rows final : public seeding::ParallelSeedingRows {
   public:
    explicit Rows(CpuEngine& engine)
        : e_(engine),
          n_(engine.data_.n),
          chunks_(chunkCount(n_, kSamplingChunk)),
          d2_(n_, 0.0f),
          nearest_(n_, 0) {}

    std::size_t firstGlobalRow() const override { return e_.share_.first_row; }
    std::size_t rowCount() const override { return n_; }

    void lowerWith(const float* candidates, std::size_t first, std::size_t count,
                   double scale) override {
      const int d = e_.d_;
      // Columns for the vectorised distances, padded with +∞ (never the nearest).
      const std::size_t width = (count + 7) & ~std::size_t(7);
      std::vector<float> transposed(static_cast<std::size_t>(d) * width, INFINITY);
      for (std::size_t j = 0; j < count; ++j)
        for (int c = 0; c < d; ++c)
          transposed[static_cast<std::size_t>(c) * width + j] = candidates[j * d + c];
      std::vector<std::uint64_t> terms(chunks_, 0);
      std::vector<std::vector<float>> scratch(static_cast<std::size_t>(e_.pool_.size()));
      e_.pool_.parallelFor(chunks_, [&](std::size_t chunk, int worker) {
        if (e_.interruptRequested()) return;  // the caller stops before using the state
        std::vector<float>& s = scratch[static_cast<std::size_t>(worker)];
        s.resize(width + static_cast<std::size_t>(d));
        float* dist = s.data();
        float* x = s.data() + width;
        const std::size_t begin = chunk * kSamplingChunk,
                          end = std::min(n_, begin + kSamplingChunk);
        std::uint64_t sum = 0;
        for (std::size_t i = begin; i < end; ++i) {
          e_.centreInto(i, x);
          cpu::exactDistancesToColumns(x, transposed.data(), d, width, 0, static_cast<int>(width),
                                       dist);
          const int best = cpu::firstNearest(dist, static_cast<int>(width));
          if (first == 0 || dist[best] < d2_[i]) {
            d2_[i] = dist[best];
            nearest_[i] = static_cast<std::uint32_t>(first + static_cast<std::size_t>(best));
          }
          sum += static_cast<std::uint64_t>(e_.potentialTermOf(i, d2_[i], scale));
        }
        terms[chunk] = sum;
      });
      std::uint64_t total = 0;
      for (std::uint64_t t : terms)
        total += t;
      potential_ = static_cast<std::int64_t>(total);
    }
    std::int64_t lowered() override { return potential_; }

    void sampleRound(std::uint64_t seed, int round, std::int64_t potential, double oversampling,
                     double scale) override {
      std::vector<std::vector<std::size_t>> taken(chunks_);
      const std::size_t global = e_.share_.first_row;
      e_.pool_.parallelFor(chunks_, [&](std::size_t chunk, int) {
        const std::size_t begin = chunk * kSamplingChunk,
                          end = std::min(n_, begin + kSamplingChunk);
        for (std::size_t i = begin; i < end; ++i)
          if (seeding::sampledInRound(seed, round, global + i, e_.potentialTermOf(i, d2_[i], scale),
                                      potential, oversampling))
            taken[chunk].push_back(i);
      });
      sampled_.clear();
      for (const auto& part : taken)
        sampled_.insert(sampled_.end(), part.begin(), part.end());
    }
    std::vector<std::size_t> sampled() override { return std::move(sampled_); }

    void centredRows(const std::vector<std::size_t>& rows, float* out) override {
      for (std::size_t r = 0; r < rows.size(); ++r)
        e_.centreInto(rows[r], out + r * static_cast<std::size_t>(e_.d_));
    }

    void sumCandidateWeights(std::size_t count, double weight_scale) override {
      parts_.assign(static_cast<std::size_t>(e_.pool_.size()), {});
      auto& parts = parts_;
      e_.pool_.parallelFor(chunks_, [&](std::size_t chunk, int worker) {
        std::vector<std::uint64_t>& part = parts[static_cast<std::size_t>(worker)];
        if (part.empty()) part.assign(count, 0);
        const std::size_t begin = chunk * kSamplingChunk,
                          end = std::min(n_, begin + kSamplingChunk);
        for (std::size_t i = begin; i < end; ++i)
          part[nearest_[i]] +=
              static_cast<std::uint64_t>(seeding::potentialTerm(e_.pointWeight(i), weight_scale));
      });
    }
    void addCandidateWeights(std::int64_t* sums) override {
      for (const auto& part : parts_)
        for (std::size_t j = 0; j < part.size(); ++j)
          sums[j] = static_cast<std::int64_t>(static_cast<std::uint64_t>(sums[j]) + part[j]);
      parts_.clear();
    }

    void release() override {
      d2_ = {};
      nearest_ = {};
    }

   private:
    CpuEngine& e_;
    std::size_t n_;
    std::size_t chunks_;
    std::vector<float> d2_;
    std::vector<std::uint32_t> nearest_;
    std::int64_t potential_ = 0;                     // lowerWith's sum
    std::vector<std::size_t> sampled_;               // sampleRound's rows
    std::vector<std::vector<std::uint64_t>> parts_;  // each worker's candidate weights
  };

  Rows rows(*this);
  centroids_ =
      seeding::seedKMeansParallel({&rows}, *collective_, share_.global_rows, summary_, k_, d_,
                                  config_.seed, [this] { return interruptRequested(); });
}

}  // namespace kms
