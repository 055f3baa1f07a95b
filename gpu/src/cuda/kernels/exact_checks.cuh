// Tests of the device's exact arithmetic (exact_math.h) against the host's: the quotients of a
// cluster's means formed on the device both ways — IEEE division (meanFromSums) and the
// corrected reciprocal (MeanDivisor) — for the host to compare with its own division.
#pragma once

#include <cstdint>
#include <vector>

namespace kms::cuda {

/// The device's double quotients (sum_q[i] · 2^−coord_exp[i]) / sum_w[i], by __ddiv_rn into
/// `divided` and by MeanDivisor::quotient into `corrected`, and MeanDivisor::mean into `means`.
/// Throws DeviceError on a device failure.
void deviceMeanQuotients(const std::vector<std::int64_t>& sum_q, const std::vector<int>& coord_exp,
                         const std::vector<std::int64_t>& sum_w, std::vector<double>& divided,
                         std::vector<double>& corrected, std::vector<float>& means);

}  // namespace kms::cuda
