// Dithering a clustered picture, without Qt: every pixel takes a palette colour chosen in the
// colour space the picture was clustered in, so that areas average to the original colours
// instead of showing flat bands. Used by the window and kmeans-cli (through core/dither.h, which
// makes a QImage of it) and by the Python package's quantize, so all three give the same pixels.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace kms::app {

enum class DitherMode {
  None,            ///< each pixel its nearest palette colour (the plain quantised picture)
  FloydSteinberg,  ///< error diffusion, serpentine rows
  Ordered,         ///< 8 × 8 Bayer thresholds between each pixel's two nearest palette colours
};

std::string_view toString(DitherMode mode);
/// Accepts "none", "fs" (also "floyd-steinberg") and "ordered" (also "bayer").
std::optional<DitherMode> parseDitherMode(std::string_view text);

/// Rows of a band that Floyd–Steinberg diffuses on its own; each band starts kDitherWarmupRows
/// above itself (those rows are diffused but not kept), so the seams are invisible and the
/// result is the same for any number of threads.
inline constexpr int kDitherBandRows = 128;
inline constexpr int kDitherWarmupRows = 16;

/// A picture as rows of colour values and each pixel's row.
struct DitherPicture {
  int width = 0;
  int height = 0;
  int d = 3;                    ///< values per colour, 1 to 8 (3, or 4 with alpha)
  const float* rows = nullptr;  ///< rowCount × d values in the clustering's colour space
  std::size_t rowCount = 0;
  /// Pixel p's row (row-major, width × height), or kNoPixelRow for a pixel left out of
  /// clustering (fully transparent). Null: pixel p is row p.
  const std::uint32_t* pixelRows = nullptr;
};
inline constexpr std::uint32_t kNoPixelRow = 0xFFFFFFFFu;

/// Receives the chosen palette entry of each pixel; set() is called from several threads, for
/// disjoint pixels.
class DitherSink {
 public:
  virtual ~DitherSink() = default;
  /// `entry` is a palette index, or k (the palette's size) for a pixel left out.
  virtual void set(int x, int y, int entry) = 0;
};

/// Chooses a palette entry for every pixel of `picture` among the k colours of `centroids`
/// (k × d, the picture's colour space). DitherMode::None takes each pixel's nearest colour
/// (ties to the lower index). Multi-threaded and deterministic: the same entries for any number
/// of threads. Returns false when `cancel` was raised (the sink then holds part of the picture).
/// Throws std::invalid_argument when the sizes disagree.
bool ditherPixels(const DitherPicture& picture, const std::vector<float>& centroids,
                  DitherMode mode, DitherSink& sink, const std::atomic<bool>* cancel = nullptr);

}  // namespace kms::app
