// A procedural, photo-like RGB image (sky, sun, mountains, lake, foliage, grain) without Qt,
// for benchmarks that need realistic colour statistics at any size.
#pragma once

#include <cstdint>
#include <vector>

namespace kms::synthetic {

/// width × height pixels as R, G, B in [0, 1], row-major (3 floats per pixel). Deterministic
/// for a seed; uses all hardware threads.
std::vector<float> syntheticPhoto(int width, int height, std::uint32_t seed = 1);

}  // namespace kms::synthetic
