// What a rank of a run over several processes reads and how the ranks tell they agree: its
// share of the input, the hash of the options and file every rank must share, and the data
// set's hash (the same for any split of the rows) that checkpoints carry.
#pragma once

#include <cstdint>

#include "cli/options.h"
#include "core/dataset.h"

namespace kms::app::cli {

/// This rank's share of the data: a point file's rows [first, last) read alone where the format
/// allows (.npy, classic binary), else every row read and the share taken. Throws LoadError for
/// more ranks than blocks of rows, a picture or weighted points.
DatasetPtr loadShare(const CliOptions& options, int rank, int ranks);

/// A hash of what decides the run: the arguments (after the program name) and the input file's
/// size and modification time. Ranks started differently would compute different things.
std::int64_t optionsHash(const CliOptions& options);

/// The wrapping sum of the share's rows' hashes (cli/checkpoint.h), on `threads` threads.
std::uint64_t dataHash(const Dataset& data, int threads);

}  // namespace kms::app::cli
