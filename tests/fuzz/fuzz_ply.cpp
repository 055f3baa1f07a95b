// libFuzzer target: PLY point clouds (ascii and binary). Any outcome but a Dataset or a LoadError
// (a crash, a sanitizer report, another exception, a hang) is a bug.
#include "fuzz_support.h"
#include "io/ply_loader.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kms::fuzz::initialize(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace kms::app;
  try {
    io::loadPly(kms::fuzz::inputFile(data, size, ".ply"), kms::fuzz::loadOptions());
  } catch (const LoadError&) {
  }
  return 0;
}
