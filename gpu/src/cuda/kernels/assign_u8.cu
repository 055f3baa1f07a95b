// Assignment pass for k ≤ 256 (8-bit labels).
#include "cuda/kernels/assign_launch_impl.cuh"

namespace kms::cuda {
template AssignPlan planAssign<std::uint8_t>(std::size_t, int, int, const DeviceLimits&);
template AssignPlan planGeneric<std::uint8_t>(std::size_t, const DeviceLimits&);
template void launchAssign<std::uint8_t>(const AssignPlan&, const AssignArgs<std::uint8_t>&,
                                         cudaStream_t);
template void launchAccumulate<std::uint8_t>(const AssignPlan&, const AccumulateArgs<std::uint8_t>&,
                                             cudaStream_t);
}  // namespace kms::cuda
