// kmeans-cli's exit status, also listed in its --help.
#pragma once

namespace kms::app::cli {

enum ExitCode : int {
  kSuccess = 0,       ///< everything was computed and written
  kBadArguments = 1,  ///< unknown option, bad value, missing input (usage printed)
  kBadInput = 2,  ///< the input cannot be loaded or clustered (LoadError, InvalidArgument, other)
  kDeviceError = 3,    ///< the GPU backend failed (DeviceError), e.g. --backend cuda without one
  kExportFailure = 4,  ///< an output file could not be written (ExportError)
};

}  // namespace kms::app::cli
