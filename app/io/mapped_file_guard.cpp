#include "io/mapped_file_guard.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <mutex>

namespace kms::app::io {
namespace {

/// One guarded mapping. `begin` is 0 while the slot is free; the signal handler reads the slots
/// with atomic loads only (lock-free, async-signal-safe).
struct Slot {
  std::atomic<bool> claimed{false};  ///< owned by a guard (set before begin, cleared after)
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<bool> faulted{false};
};

Slot g_slots[MappedFileGuard::kMaxGuardedMappings];
struct sigaction g_previous {};

void onBusError(int signal, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (Slot& slot : g_slots) {
    const std::uintptr_t begin = slot.begin.load(std::memory_order_acquire);
    const std::uintptr_t end = slot.end.load(std::memory_order_acquire);
    if (begin == 0 || address < begin || address >= end) continue;
    // Zero pages over the rest of the mapping: the faulting read is retried and gets zeros.
    const std::uintptr_t pageSize = std::uintptr_t(::sysconf(_SC_PAGESIZE));
    const std::uintptr_t page = address & ~(pageSize - 1);
    void* replaced = ::mmap(reinterpret_cast<void*>(page), end - page, PROT_READ,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (replaced == MAP_FAILED) break;
    slot.faulted.store(true, std::memory_order_release);
    return;
  }
  // Not one of ours: hand it to whoever was there before (a sanitizer, or the default: die).
  if (g_previous.sa_flags & SA_SIGINFO) {
    if (g_previous.sa_sigaction) return g_previous.sa_sigaction(signal, info, context);
  } else if (g_previous.sa_handler != SIG_DFL && g_previous.sa_handler != SIG_IGN &&
             g_previous.sa_handler) {
    return g_previous.sa_handler(signal);
  }
  ::signal(signal, SIG_DFL);  // returning re-runs the access, which now ends the process
}

void installHandler() {
  struct sigaction action {};
  action.sa_sigaction = onBusError;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGBUS, &action, &g_previous);
}

}  // namespace

MappedFileGuard::MappedFileGuard(const void* data, std::size_t size) {
  static std::once_flag installed;
  std::call_once(installed, installHandler);
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  for (int i = 0; i < kMaxGuardedMappings; ++i) {
    Slot& slot = g_slots[i];
    if (slot.claimed.exchange(true, std::memory_order_acq_rel)) continue;
    // end before begin: the handler never sees this mapping's begin with another's end.
    slot.faulted.store(false, std::memory_order_relaxed);
    slot.end.store(begin + size, std::memory_order_release);
    slot.begin.store(begin, std::memory_order_release);
    slot_ = i;
    return;
  }
}

MappedFileGuard::~MappedFileGuard() {
  if (slot_ < 0) return;
  g_slots[slot_].begin.store(0, std::memory_order_release);
  g_slots[slot_].claimed.store(false, std::memory_order_release);
}

bool MappedFileGuard::faulted() const {
  return slot_ >= 0 && g_slots[slot_].faulted.load(std::memory_order_acquire);
}

}  // namespace kms::app::io
