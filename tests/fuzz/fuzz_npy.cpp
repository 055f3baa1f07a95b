// libFuzzer target: NumPy .npy arrays. Any outcome but a Dataset or a LoadError (a crash, a
// sanitizer report, another exception, a hang) is a bug.
#include "fuzz_support.h"
#include "io/npy_loader.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kms::fuzz::initialize(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kms::app;
  try {
    io::loadNpy(kms::fuzz::inputFile(data, size, ".npy"), kms::fuzz::loadOptions());
  } catch (const LoadError&) {
  }
  return 0;
}
