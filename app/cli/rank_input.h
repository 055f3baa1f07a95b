// What a rank of a run over several processes reads and how the ranks tell they agree: its
// share of the input, the hash of the options and file every rank must share, and the data
// set's hash (the same for any split of the rows) that checkpoints carry.
#pragma once

#include <cstdint>

#include "cli/options.h"
#include "core/dataset.h"
#include "kmeans/collective.h"

namespace kms::app::cli {

/// This rank's share of the data: a point file's rows [first, last) read alone where the format
/// allows (.npy and classic binary by arithmetic; delimited text by the lines that start in the
/// rank's slice of the bytes, found together with the other ranks through `world`, so every
/// rank must call it at once, on the thread that may use `world`), else every row read and the
/// share taken. Throws LoadError for more ranks than blocks of rows, a picture or weighted points.
DatasetPtr loadShare(const CliOptions& options, Collective& world);

/// Whether loadShare exchanges with the other ranks (a text file read by several processes).
bool loadShareUsesTheRanks(const CliOptions& options, int ranks);

/// A hash of what decides the run: the arguments (after the program name) and the input file's
/// size and modification time. Ranks started differently would compute different things.
std::int64_t optionsHash(const CliOptions& options);

/// The wrapping sum of the share's rows' hashes (cli/checkpoint.h), on `threads` threads.
std::uint64_t dataHash(const Dataset& data, int threads);

}  // namespace kms::app::cli
