#include "views/cluster_colours.h"

#include "io/export.h"

namespace kms::ui {

std::vector<QColor> clusterColours(const session::Frame& frame, bool image) {
  std::vector<QColor> colours(std::size_t(std::max(frame.k, 0)));
  for (int c = 0; c < frame.k; ++c) {
    if (image && frame.d == 3 && frame.centroids.size() >= std::size_t(frame.k) * 3)
      colours[std::size_t(c)] =
          QColor(kms::app::centroidColour(&frame.centroids[std::size_t(c) * 3]));
    else
      colours[std::size_t(c)] = categoricalColour(c);
  }
  return colours;
}

}  // namespace kms::ui
