// Assignment pass for 256 < k ≤ 65535 (16-bit labels).
#include "cuda/kernels/assign_launch_impl.cuh"

namespace kms::cuda {
template AssignPlan planAssign<std::uint16_t>(std::size_t, int, int, const DeviceLimits&);
template AssignPlan planGeneric<std::uint16_t>(std::size_t, const DeviceLimits&);
template void launchAssign<std::uint16_t>(const AssignPlan&, const AssignArgs<std::uint16_t>&,
                                          cudaStream_t);
template void launchAccumulate<std::uint16_t>(const AssignPlan&,
                                              const AccumulateArgs<std::uint16_t>&, cudaStream_t);
}  // namespace kms::cuda
