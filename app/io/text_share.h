// One rank's share of a delimited text file in a run over several processes
// (LoadOptions::textShare): the rows of a text file cannot be found by arithmetic as a .npy's
// can, so the ranks find them together.
//  1. Every rank reads the file's first data lines for its layout (delimiter, header, columns).
//  2. Rank r scans the lines that start in its slice of the bytes (the slices' cuts moved to the
//     next line start) and counts their data rows and newlines; the ranks exchange the counts.
//  3. From the total, LoadOptions::rowShare gives the rank its rows [first, last) — whole blocks
//     of rows, as the engines need. The rank finds row `first` by counting rows from the start of
//     the slice that holds it (at most one slice of scanning), then parses its rows.
//  4. The ranks exchange what the id-column rule needs (each part's ids against its first row,
//     and the ids at the parts' edges), and every rank decides it alike.
// A rank that fails says why to all of them: every rank throws the same LoadError.
#pragma once

#include <QString>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Reads this rank's rows of the delimited text file `path` (options.textShare and rowShare are
/// set). Throws LoadError on every rank alike.
DatasetPtr loadTextShare(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
