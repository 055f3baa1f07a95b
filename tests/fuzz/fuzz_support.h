// What every libFuzzer target shares: a QCoreApplication (image plugins need one), the fuzzer's
// bytes as a file (the loaders read files, and map them as they do in the program), and load
// options that refuse huge claims before allocating (a header may announce 2^31 points).
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>

#include "io/load.h"

namespace kms::fuzz {

/// Call from LLVMFuzzerInitialize.
void initialize(int* argc, char*** argv);

/// Writes `data` to a private file whose name ends in `suffix` (".csv", ".npy", ...) and
/// returns its path; every call overwrites the same file.
QString inputFile(const std::uint8_t* data, std::size_t size, const char* suffix);

/// Default options with a value budget small enough for the fuzzer's memory limit.
app::LoadOptions loadOptions();

}  // namespace kms::fuzz
