// Reading a memory-mapped input safely while another program truncates it. Touching a mapped page
// past the file's new end raises SIGBUS, which would kill the process; while a mapping is guarded,
// the SIGBUS handler puts zero-filled memory over the rest of it and marks it, so the reader runs
// to its end and the caller reports "the file changed while it was being read" instead. Internal
// to app/io (io/load_support.cpp uses it for every input file).
#pragma once

#include <cstddef>

namespace kms::app::io {

/// Guards [data, data + size) for its lifetime. At most kMaxGuardedMappings mappings are guarded
/// at once (loads run one per thread); beyond that a mapping is left unguarded (valid() false)
/// and the caller should read the file instead of mapping it.
class MappedFileGuard {
 public:
  static constexpr int kMaxGuardedMappings = 64;

  MappedFileGuard(const void* data, std::size_t size);
  ~MappedFileGuard();
  MappedFileGuard(const MappedFileGuard&) = delete;
  MappedFileGuard& operator=(const MappedFileGuard&) = delete;

  /// The mapping is registered with the SIGBUS handler.
  bool valid() const { return slot_ >= 0; }
  /// A page of the mapping could not be read (the file shrank); its bytes read as zeros since.
  bool faulted() const;

 private:
  int slot_ = -1;
};

}  // namespace kms::app::io
