// The per-row arithmetic of k-means|| (parallel_seeding.h) that the CPU and the GPU must do
// bit for bit alike: the counter-based uniform number keyed by a row's global index, and the
// test that samples the row. Integer hashing and two correctly rounded double products, so the
// decision depends only on (seed, round, global row, the row's term, the potential) — never on
// which rank, GPU or thread looks at the row.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace kms::seeding {

/// splitmix64's finaliser (Steele, Lea and Flood).
KMS_HD std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The counter-th number of stream `stream` of `seed` (seeding::hash).
KMS_HD std::uint64_t counterHash(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return splitmix64(splitmix64(seed ^ splitmix64(stream)) + counter);
}

/// Uniform double in [0, 1) with 53 random bits (seeding::uniform).
KMS_HD double counterUniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return static_cast<double>(counterHash(seed, stream, counter) >> 11) * 0x1.0p-53;
}

/// k-means||'s streams: round r draws from stream kStreamParallelRound + r.
inline constexpr std::uint64_t kStreamParallelRound = 0x4b4d5000;  // "KMP" and the round

/// Whether global row `row` joins the candidates in round `round`: with probability
/// min(1, ℓ·term / potential), where term is the row's exact integer potential term
/// (potentialTerm(w·D², scale)) and potential the sum of every row's. Tested as u·potential <
/// ℓ·term with both products rounded once (no FMA), so every backend decides alike.
KMS_HD bool sampledInRound(std::uint64_t seed, int round, std::uint64_t row, std::int64_t term,
                           std::int64_t potential, double oversampling) {
  if (term <= 0 || potential <= 0) return false;
  const double u =
      counterUniform(seed, kStreamParallelRound + static_cast<std::uint64_t>(round), row);
#if defined(__CUDA_ARCH__)
  return __dmul_rn(u, static_cast<double>(potential)) <
         __dmul_rn(oversampling, static_cast<double>(term));
#else
  return u * static_cast<double>(potential) < oversampling * static_cast<double>(term);
#endif
}

}  // namespace kms::seeding
