// The convergence rule of KMeansConfig::tolerance, shared by every backend.
#pragma once

#include <cstddef>

#include "common/host_device.h"

namespace kms {

KMS_HD bool passesConvergenceTest(unsigned long long changed, unsigned long long n,
                                  double max_shift, double scale, double tolerance) {
  if (changed == 0) return true;
  if (static_cast<double>(changed) < tolerance * static_cast<double>(n)) return true;
  return max_shift < tolerance * scale;
}

}  // namespace kms
