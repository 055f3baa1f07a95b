// A Collective over threads of one process, for testing distributed runs without MPI: rank r is
// thread r; every operation puts each rank's part in a shared slot, waits for all, and combines
// the slots in rank order (as MPI's collectives do).
#pragma once

#include <algorithm>
#include <barrier>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

#include "kmeans/collective.h"

namespace kms::test {

class ThreadWorld {
 public:
  explicit ThreadWorld(int ranks)
      : ranks_(ranks), barrier_(ranks), slots_(static_cast<std::size_t>(ranks)) {}
  int ranks() const { return ranks_; }
  /// The collective of rank `rank` (one per thread).
  std::shared_ptr<Collective> rank(int rank);

 private:
  friend class ThreadCollective;
  int ranks_;
  std::barrier<> barrier_;
  std::vector<std::vector<unsigned char>> slots_;
};

class ThreadCollective final : public Collective {
 public:
  ThreadCollective(ThreadWorld& world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int size() const override { return world_.ranks(); }

  void allReduce(std::int64_t* values, std::size_t count, Op op) override {
    reduce(values, count, op);
  }
  void allReduce(float* values, std::size_t count, Op op) override { reduce(values, count, op); }
  std::vector<double> allGather(const std::vector<double>& mine) override { return gather(mine); }
  std::vector<float> allGather(const std::vector<float>& mine) override { return gather(mine); }
  std::vector<std::int64_t> allGather(const std::vector<std::int64_t>& mine) override {
    return gather(mine);
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    auto& slot = world_.slots_[static_cast<std::size_t>(rank_)];
    if (rank_ == root)
      slot.assign(static_cast<unsigned char*>(data), static_cast<unsigned char*>(data) + bytes);
    world_.barrier_.arrive_and_wait();
    if (rank_ != root)
      std::memcpy(data, world_.slots_[static_cast<std::size_t>(root)].data(), bytes);
    world_.barrier_.arrive_and_wait();
  }

 private:
  template <typename T>
  std::vector<T> gather(const std::vector<T>& mine) {
    auto& slot = world_.slots_[static_cast<std::size_t>(rank_)];
    slot.resize(mine.size() * sizeof(T));
    if (!mine.empty()) std::memcpy(slot.data(), mine.data(), slot.size());
    world_.barrier_.arrive_and_wait();
    std::vector<T> all;
    for (const auto& s : world_.slots_) {
      const std::size_t at = all.size();
      all.resize(at + s.size() / sizeof(T));
      if (!s.empty()) std::memcpy(all.data() + at, s.data(), s.size());
    }
    world_.barrier_.arrive_and_wait();
    return all;
  }
  template <typename T>
  void reduce(T* values, std::size_t count, Op op) {
    const std::vector<T> all = gather(std::vector<T>(values, values + count));
    for (std::size_t i = 0; i < count; ++i) {
      T v = all[i];
      for (int r = 1; r < world_.ranks(); ++r) {
        const T o = all[static_cast<std::size_t>(r) * count + i];
        if constexpr (std::is_integral_v<T>) {
          if (op == Op::Sum) {  // wrapping, as MPI's int64 sum on two's complement
            v = static_cast<T>(static_cast<std::uint64_t>(v) + static_cast<std::uint64_t>(o));
            continue;
          }
        }
        v = op == Op::Min ? std::min(v, o) : std::max(v, o);
      }
      values[i] = v;
    }
  }

  ThreadWorld& world_;
  int rank_;
};

inline std::shared_ptr<Collective> ThreadWorld::rank(int rank) {
  return std::make_shared<ThreadCollective>(*this, rank);
}

}  // namespace kms::test
