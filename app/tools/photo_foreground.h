// The foreground of the sample photo: a grassy bank with flowers, conifers and autumn trees.
#pragma once

#include "tools/photo_canvas.h"

namespace kms::app::tools {

/// Paints the bank across the bottom of the picture and what stands on it.
void paintForeground(Canvas& c);

}  // namespace kms::app::tools
