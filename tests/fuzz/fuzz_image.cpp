// libFuzzer target: pictures through QImageReader (every format Qt reads: the content decides, not
// the suffix). Any outcome but a Dataset or a LoadError (a crash, a sanitizer report, another
// exception, a hang) is a bug.
#include "fuzz_support.h"
#include "io/image_loader.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kms::fuzz::initialize(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kms::app;
  try {
    io::loadImage(kms::fuzz::inputFile(data, size, ".png"), kms::fuzz::loadOptions());
  } catch (const LoadError&) {
  }
  return 0;
}
