// Bad configurations and bad data give clear InvalidArgument messages, never crashes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kmeans/backend.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

std::string errorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ConfigValidation, RejectsKOutOfRange) {
  KMeansConfig c;
  c.k = 0;
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 2); }).find("at least 1"), std::string::npos);
  c.k = 11;
  EXPECT_NE(
      errorOf([&] { validateConfig(c, 10, 2); }).find("larger than the number of points (10)"),
      std::string::npos);
  c.k = kMaxClusters + 1;
  EXPECT_NE(errorOf([&] { validateConfig(c, 1000000, 2); }).find("supported maximum"),
            std::string::npos);
}

TEST(ConfigValidation, RejectsEmptyShapes) {
  KMeansConfig c;
  EXPECT_NE(errorOf([&] { validateConfig(c, 0, 2); }).find("no points"), std::string::npos);
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 0); }).find("d = 0"), std::string::npos);
}

TEST(ConfigValidation, RejectsIterationsToleranceAndGivenCentroids) {
  KMeansConfig c;
  c.k = 2;
  c.max_iterations = 0;
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 2); }).find("max_iterations"), std::string::npos);
  c.max_iterations = 10;
  c.tolerance = -1;
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 2); }).find("tolerance"), std::string::npos);
  c.tolerance = std::numeric_limits<double>::quiet_NaN();
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 2); }).find("tolerance"), std::string::npos);
  c.tolerance = 0;
  c.init = InitMethod::Given;
  c.initial_centroids = {1, 2, 3};
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 2); }).find("expected k × d = 4 values, got 3"),
            std::string::npos);
  c.initial_centroids = {1, 2, 3, std::numeric_limits<float>::infinity()};
  EXPECT_NE(errorOf([&] { validateConfig(c, 10, 2); }).find("centroid 1, coordinate 1"),
            std::string::npos);
  c.initial_centroids = {1, 2, 3, 4};
  EXPECT_NO_THROW(validateConfig(c, 10, 2));
}

TEST(DataValidation, NamesTheFirstNonFiniteValue) {
  std::vector<float> p = {0, 1, 2, 3, 4, std::numeric_limits<float>::quiet_NaN(), 6, 7};
  DataView v{p.data(), 4, 2, nullptr};
  EXPECT_NE(errorOf([&] { summarizeData(v); }).find("NaN at point 2, coordinate 1"),
            std::string::npos);
  p[5] = 5;
  p[6] = -std::numeric_limits<float>::infinity();
  EXPECT_NE(errorOf([&] { summarizeData(v); }).find("infinite value at point 3, coordinate 0"),
            std::string::npos);
}

TEST(DataValidation, RejectsBadWeightsAndShapes) {
  std::vector<float> p = {0, 1, 2, 3};
  std::vector<float> w = {1, -2};
  DataView v{p.data(), 2, 2, w.data()};
  EXPECT_NE(errorOf([&] { summarizeData(v); }).find("weight of point 1 is negative"),
            std::string::npos);
  w = {0, 0};
  EXPECT_NE(errorOf([&] { summarizeData(v); }).find("All point weights are zero"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              summarizeData(DataView{p.data(), 0, 2, nullptr});
            }).find("no points"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              summarizeData(DataView{p.data(), 2, 0, nullptr});
            }).find("d = 0"),
            std::string::npos);
  EXPECT_NE(errorOf([&] {
              summarizeData(DataView{nullptr, 2, 2, nullptr});
            }).find("no point array"),
            std::string::npos);
}

TEST(DataValidation, EngineRejectsBadDataAndStaysUsable) {
  auto engine = createCpuEngine(2);
  std::vector<float> bad = {0, std::numeric_limits<float>::infinity()};
  EXPECT_THROW(engine->setData(DataView{bad.data(), 1, 2, nullptr}), InvalidArgument);
  EXPECT_THROW(engine->initialize(KMeansConfig{}), std::logic_error);
  std::vector<float> good = {0, 0, 1, 1, 5, 5};
  engine->setData(DataView{good.data(), 3, 2, nullptr});
  KMeansConfig c;
  c.k = 4;
  EXPECT_THROW(engine->initialize(c), InvalidArgument);
  c.k = 2;
  EXPECT_NO_THROW(engine->initialize(c));
  EXPECT_NO_THROW(engine->step());
}

TEST(DataSummary, BoundsMidScaleAndFixedPointExponents) {
  std::vector<float> p = {-1, 10, 3, 30, 1, 20};
  const DataSummary s = summarizeData(DataView{p.data(), 3, 2, nullptr});
  EXPECT_EQ(s.lo, (std::vector<float>{-1, 10}));
  EXPECT_EQ(s.hi, (std::vector<float>{3, 30}));
  EXPECT_EQ(s.mid, (std::vector<float>{1, 20}));
  EXPECT_FLOAT_EQ(s.scale, 20.0f);
  // max |x − mid| is 2 and 10: 2 · 2^e < 2^23 ⇒ e = 21; 10 · 2^e < 2^23 ⇒ e = 19.
  EXPECT_EQ(s.fixed.coord_exp, (std::vector<int>{21, 19}));
  EXPECT_DOUBLE_EQ(s.total_weight, 3.0);
}

TEST(Backend, ParsesNamesAndCreatesCpu) {
  EXPECT_EQ(parseBackendKind("auto"), BackendKind::Auto);
  EXPECT_EQ(parseBackendKind("gpu"), BackendKind::Cuda);
  EXPECT_EQ(parseBackendKind("cpu"), BackendKind::Cpu);
  EXPECT_FALSE(parseBackendKind("tpu").has_value());
  EXPECT_EQ(parseInitMethod("k-means++"), InitMethod::KMeansPlusPlus);
  EXPECT_EQ(parseEmptyClusterPolicy("keep"), EmptyClusterPolicy::KeepCentroid);
  auto created = createEngine(BackendKind::Cpu);
  ASSERT_TRUE(created.engine);
  EXPECT_EQ(created.engine->info().backend, "cpu");
}

TEST(Backend, ParsesGpuLists) {
  EXPECT_EQ(parseBackendKind("cuda-all"), BackendKind::CudaAllGpus);
  EXPECT_EQ(parseBackendKind("all-gpus"), BackendKind::CudaAllGpus);
  EXPECT_EQ(toString(BackendKind::CudaAllGpus), "cuda-all");
  EngineOptions options;
  EXPECT_EQ(parseDeviceList("0,1", options), "");
  EXPECT_EQ(options.cuda_devices, (std::vector<int>{0, 1}));
  EXPECT_FALSE(options.cuda_all_devices);
  EXPECT_EQ(parseDeviceList("3", options), "");
  EXPECT_EQ(options.cuda_devices, (std::vector<int>{3}));
  EXPECT_EQ(parseDeviceList("all", options), "");
  EXPECT_TRUE(options.cuda_all_devices);
  EXPECT_TRUE(options.cuda_devices.empty());
  EngineOptions untouched;
  EXPECT_EQ(parseDeviceList("0,0", untouched), "GPU 0 is listed twice.");
  EXPECT_NE(parseDeviceList("0,x", untouched).find("\"x\" is not a GPU number"), std::string::npos);
  EXPECT_NE(parseDeviceList("", untouched).find("is not a GPU number"), std::string::npos);
  EXPECT_NE(parseDeviceList("1,", untouched).find("is not a GPU number"), std::string::npos);
  EXPECT_NE(parseDeviceList("-1", untouched).find("is not a GPU number"), std::string::npos);
  EXPECT_TRUE(untouched.cuda_devices.empty());  // a bad list changes nothing
}

TEST(Backend, SeveralGpusWithoutADeviceFailWithTheReason) {
  const CudaStatus status = cudaStatus();
  if (status.available) GTEST_SKIP() << "a CUDA device is present: " << status.device;
  for (const BackendKind kind : {BackendKind::Cuda, BackendKind::CudaAllGpus}) {
    EngineOptions options;
    options.cuda_devices = {0, 1};
    try {
      createEngine(kind, options);
      FAIL() << "expected DeviceError";
    } catch (const DeviceError& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA backend unavailable"), std::string::npos)
          << e.what();
    }
  }
  EngineOptions options;
  options.cuda_all_devices = true;
  const CreatedEngine created = createEngine(BackendKind::Auto, options);  // falls back
  EXPECT_EQ(created.kind, BackendKind::Cpu);
}

TEST(Backend, AutoFallsBackToCpuWithAReasonWhenNoDevice) {
  const CudaStatus status = cudaStatus();
  if (status.available) GTEST_SKIP() << "a CUDA device is present: " << status.device;
  EXPECT_FALSE(status.reason.empty());
  auto created = createEngine(BackendKind::Auto);
  EXPECT_EQ(created.kind, BackendKind::Cpu);
  EXPECT_NE(created.note.find("using the CPU"), std::string::npos);
  try {
    createEngine(BackendKind::Cuda);
    FAIL() << "expected DeviceError";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA backend unavailable"), std::string::npos);
  }
}

}  // namespace
}  // namespace kms
