// libFuzzer target for one file reader, chosen when it is built (tests/fuzz/CMakeLists.txt):
// KMS_FUZZ_HEADER declares KMS_FUZZ_READER, which reads a file named with KMS_FUZZ_SUFFIX. Any
// outcome but a Dataset or a LoadError (a crash, a sanitizer report, another exception, a hang)
// is a bug.
#include KMS_FUZZ_HEADER
#include "fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kms::fuzz::initialize(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kms::app;
  try {
    KMS_FUZZ_READER(kms::fuzz::inputFile(data, size, KMS_FUZZ_SUFFIX), kms::fuzz::loadOptions());
  } catch (const LoadError&) {
  }
  return 0;
}
