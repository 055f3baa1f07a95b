// Palette PNGs: an indexed picture written with the fewest bits per pixel its palette needs
// (1, 2, 4 or 8), a tRNS chunk when a colour is transparent, and no filtering (what suits
// palette data). Qt's own PNG writer stores every indexed picture at 8 bits per pixel, and
// deflates on one thread; here the scanlines are deflated on every hardware thread in segments
// of 1 MB, each primed with the 32 KB before it, and joined into one zlib stream (as pigz does):
// a 17.9-megapixel picture at 4 bits is written in a fraction of the time, at the same size
// within a fraction of a percent.
// Internal to app/io; use writeImage().
#pragma once

#include <QIODevice>
#include <QImage>
#include <QString>

namespace kms::app::io {

/// Bits per pixel a palette of `colours` entries needs in a PNG: 1, 2, 4 or 8.
int pngBitDepth(int colours);

/// Writes `image` (Format_Indexed8, 1..256 colours) to `device` as a palette PNG. Throws
/// ExportError naming `path` when zlib or the device fails.
void writePalettePng(QIODevice& device, const QImage& image, const QString& path);

}  // namespace kms::app::io
