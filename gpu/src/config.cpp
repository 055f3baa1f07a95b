#include "kmeans/config.h"

#include <cmath>
#include <sstream>

#include "kmeans/errors.h"

namespace kms {

void validateConfig(const KMeansConfig& config, std::size_t n, int d) {
  auto fail = [](const std::string& message) { throw InvalidArgument(message); };
  if (n == 0) fail("The data set has no points.");
  if (d <= 0) fail("The data set has no dimensions (d = 0).");
  if (config.k < 1) fail("k = " + std::to_string(config.k) + " is invalid: k must be at least 1.");
  if (config.k > kMaxClusters)
    fail("k = " + std::to_string(config.k) + " is larger than the supported maximum of " +
         std::to_string(kMaxClusters) + ".");
  if (static_cast<std::size_t>(config.k) > n)
    fail("k = " + std::to_string(config.k) + " is larger than the number of points (" +
         std::to_string(n) + ").");
  if (config.max_iterations < 1)
    fail("max_iterations = " + std::to_string(config.max_iterations) + " must be at least 1.");
  if (!std::isfinite(config.tolerance) || config.tolerance < 0.0) {
    std::ostringstream os;
    os << "tolerance = " << config.tolerance << " must be a finite number ≥ 0.";
    fail(os.str());
  }
  if (config.init == InitMethod::Given) {
    const std::size_t expected = static_cast<std::size_t>(config.k) * static_cast<std::size_t>(d);
    if (config.initial_centroids.size() != expected)
      fail("Initial centroids: expected k × d = " + std::to_string(expected) + " values, got " +
           std::to_string(config.initial_centroids.size()) + ".");
    for (std::size_t i = 0; i < expected; ++i)
      if (!std::isfinite(config.initial_centroids[i]))
        fail("Initial centroid " + std::to_string(i / static_cast<std::size_t>(d)) +
             ", coordinate " + std::to_string(i % static_cast<std::size_t>(d)) +
             " is not a finite number.");
  }
}

InitMethod defaultInitFor(std::size_t rows, int d, int k, bool on_gpus) {
  return on_gpus && static_cast<double>(rows) * d * k >= kParallelSeedingWork
             ? InitMethod::KMeansParallel
             : InitMethod::GreedyKMeansPlusPlus;
}

int validateCentroidCount(std::size_t values, int d) {
  if (d <= 0) throw InvalidArgument("The data set has no dimensions (d = 0).");
  const std::size_t dd = static_cast<std::size_t>(d);
  if (values == 0 || values % dd != 0)
    throw InvalidArgument("Centroids: " + std::to_string(values) +
                          " values are not k × d for d = " + std::to_string(d) + ".");
  if (values / dd > static_cast<std::size_t>(kMaxClusters))
    throw InvalidArgument("k = " + std::to_string(values / dd) +
                          " is larger than the supported maximum of " +
                          std::to_string(kMaxClusters) + ".");
  return static_cast<int>(values / dd);
}

std::string_view toString(InitMethod method) {
  switch (method) {
    case InitMethod::Random:
      return "random";
    case InitMethod::KMeansPlusPlus:
      return "kmeans++";
    case InitMethod::GreedyKMeansPlusPlus:
      return "greedy-kmeans++";
    case InitMethod::KMeansParallel:
      return "kmeans||";
    case InitMethod::Given:
      return "given";
  }
  return "?";
}

std::string_view toString(EmptyClusterPolicy policy) {
  switch (policy) {
    case EmptyClusterPolicy::KeepCentroid:
      return "keep";
    case EmptyClusterPolicy::ReseedFarthest:
      return "reseed";
  }
  return "?";
}

std::optional<InitMethod> parseInitMethod(std::string_view text) {
  if (text == "random") return InitMethod::Random;
  if (text == "kmeans++" || text == "k-means++" || text == "plusplus")
    return InitMethod::KMeansPlusPlus;
  if (text == "greedy-kmeans++" || text == "greedy-k-means++" || text == "greedy")
    return InitMethod::GreedyKMeansPlusPlus;
  if (text == "kmeans||" || text == "k-means||" || text == "parallel")
    return InitMethod::KMeansParallel;
  if (text == "given") return InitMethod::Given;
  return std::nullopt;
}

std::optional<EmptyClusterPolicy> parseEmptyClusterPolicy(std::string_view text) {
  if (text == "keep") return EmptyClusterPolicy::KeepCentroid;
  if (text == "reseed" || text == "farthest") return EmptyClusterPolicy::ReseedFarthest;
  return std::nullopt;
}

}  // namespace kms
