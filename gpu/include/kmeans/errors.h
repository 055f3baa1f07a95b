// Exceptions thrown by the k-means engine. Plain C++; no Qt, no CUDA.
#pragma once

#include <stdexcept>
#include <string>

namespace kms {

/// Base class of every error the engine throws on purpose.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The caller passed something the engine cannot work with (k out of range, NaN in the data,
/// centroids of the wrong size, ...). The message says what and where.
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

/// The GPU backend failed: no device, out of memory, a kernel launch failure. The message
/// carries the CUDA error text.
class DeviceError : public Error {
 public:
  using Error::Error;
};

/// A step() or initialize() stopped early because the interrupt flag (Engine::setInterruptFlag)
/// was raised. The engine is as it was before the call: step() can simply be called again;
/// after an interrupted initialize() the engine is not initialised.
class Interrupted : public Error {
 public:
  using Error::Error;
};

}  // namespace kms
