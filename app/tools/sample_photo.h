// The bundled sample "photo": a painted lake landscape with the colour variety of a real
// photograph (sky gradient, sun and glow, clouds, hazy mountain layers with snow, a lake with
// rippled reflections and sun glitter, conifers, autumn trees, grass, film grain, vignette).
// Painted, not downloaded, so the repository owns every byte of it.
#pragma once

#include <QImage>
#include <QSize>

#include <cstdint>

namespace kms::app::tools {

/// Paints the landscape at `size` (designed for 1600 × 1067). Deterministic for a seed.
QImage paintLandscape(QSize size, std::uint64_t seed);

}  // namespace kms::app::tools
