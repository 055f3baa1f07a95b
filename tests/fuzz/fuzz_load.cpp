// libFuzzer target: loadDataset's choice of reader. The first byte picks the file's suffix
// (none, or one the dispatcher knows), the rest is the content, so magic bytes and suffixes are
// fuzzed together. Anything but a Dataset or a LoadError is a bug.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kms::fuzz::initialize(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const char* const kSuffixes[] = {"",     ".csv", ".tsv", ".txt", ".xyz", ".dat", ".bin",
                                          ".npy", ".ply", ".png", ".jpg", ".gif", ".bmp"};
  constexpr std::size_t kCount = sizeof kSuffixes / sizeof kSuffixes[0];
  if (size < 1) return 0;
  using namespace kms::app;
  try {
    loadDataset(kms::fuzz::inputFile(data + 1, size - 1, kSuffixes[data[0] % kCount]),
                kms::fuzz::loadOptions());
  } catch (const LoadError&) {
  }
  return 0;
}
