#include "core/principal_components.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/parallel.h"

namespace kms::app {
namespace {

constexpr std::size_t kBlockRows = 4096;

double rowWeight(const Dataset& data, std::size_t i) {
  if (!data.counts.empty()) return double(data.counts[i]);
  if (!data.weights.empty()) return double(data.weights[i]);
  return 1.0;
}

/// Runs f(block) for every block of rows on the machine's threads (core/parallel.h); each
/// block's result goes to its own slot, so the caller adds them in block order.
template <typename F>
void forEachBlock(std::size_t blocks, F&& f) {
  parallelRanges(blocks, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t b = begin; b < end; ++b)
      f(b);
  });
}

}  // namespace

void PrincipalComponents::project(const float* v, float* out) const {
  for (int a = 0; a < m; ++a) {
    double s = 0.0;
    for (int c = 0; c < d; ++c)
      s += (double(v[c]) - mean[std::size_t(c)]) * axes[std::size_t(a) * d + c];
    out[a] = float(s);
  }
}

std::vector<float> PrincipalComponents::project(const std::vector<float>& rows) const {
  const std::size_t count = rows.size() / std::size_t(d);
  std::vector<float> out(count * std::size_t(m));
  for (std::size_t r = 0; r < count; ++r)
    project(&rows[r * std::size_t(d)], &out[r * std::size_t(m)]);
  return out;
}

QString PrincipalComponents::axisName(int a) const {
  return QStringLiteral("PC%1 (%2 %)").arg(a + 1).arg(100.0 * explained[std::size_t(a)], 0, 'f', 1);
}

PrincipalComponents principalComponents(const Dataset& data, int m) {
  if (data.isImage()) throw std::invalid_argument("principal components of a picture");
  if (data.n == 0 || data.d < 1) throw std::invalid_argument("principal components of no data");
  if (data.d > kMaxPrincipalDims)
    throw std::invalid_argument("principal components of more than 1,024 dimensions");
  const int d = data.d;
  const std::size_t n = data.n;
  const std::size_t blocks = (n + kBlockRows - 1) / kBlockRows;
  // The weighted mean: per-block sums, added in block order.
  std::vector<Eigen::VectorXd> blockSum(blocks, Eigen::VectorXd::Zero(d));
  std::vector<double> blockWeight(blocks, 0.0);
  forEachBlock(blocks, [&](std::size_t b) {
    for (std::size_t i = b * kBlockRows; i < std::min(n, (b + 1) * kBlockRows); ++i) {
      const double w = rowWeight(data, i);
      for (int c = 0; c < d; ++c)
        blockSum[b][c] += w * double(data.values[i * std::size_t(d) + c]);
      blockWeight[b] += w;
    }
  });
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
  double total = 0.0;
  for (std::size_t b = 0; b < blocks; ++b) {
    mean += blockSum[b];
    total += blockWeight[b];
  }
  if (!(total > 0.0)) throw std::invalid_argument("principal components of zero weight");
  mean /= total;
  // The covariance: each block's centred rows (scaled by √w) multiplied by Eigen, the blocks'
  // products added in block order.
  std::vector<Eigen::MatrixXd> blockCov(blocks);
  forEachBlock(blocks, [&](std::size_t b) {
    const std::size_t first = b * kBlockRows, last = std::min(n, first + kBlockRows);
    Eigen::MatrixXd x(Eigen::Index(last - first), d);
    for (std::size_t i = first; i < last; ++i) {
      const double s = std::sqrt(rowWeight(data, i));
      for (int c = 0; c < d; ++c)
        x(Eigen::Index(i - first), c) = s * (double(data.values[i * std::size_t(d) + c]) - mean[c]);
    }
    blockCov[b] = x.transpose() * x;
  });
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(d, d);
  for (const auto& c : blockCov)
    cov += c;
  cov /= total;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(cov);
  if (solver.info() != Eigen::Success)
    throw std::invalid_argument("the covariance's eigenvectors were not found");
  PrincipalComponents pcs;
  pcs.d = d;
  pcs.m = std::min(m, d);
  pcs.mean.assign(mean.data(), mean.data() + d);
  const Eigen::VectorXd values = solver.eigenvalues();  // ascending
  const double sum = std::max(values.sum(), 0.0);
  for (int a = 0; a < pcs.m; ++a) {
    const int col = d - 1 - a;
    Eigen::VectorXd axis = solver.eigenvectors().col(col);
    Eigen::Index largest = 0;
    axis.cwiseAbs().maxCoeff(&largest);
    if (axis[largest] < 0) axis = -axis;  // a fixed sign, whatever the solver returned
    for (int c = 0; c < d; ++c)
      pcs.axes.push_back(axis[c]);
    pcs.explained.push_back(sum > 0.0 ? std::max(values[col], 0.0) / sum : 0.0);
  }
  return pcs;
}

DatasetPtr projectedDataset(const Dataset& data, const PrincipalComponents& pcs) {
  auto out = std::make_shared<Dataset>();
  out->source = data.source;
  out->displayName = data.displayName;
  out->kind = data.kind;
  out->n = data.n;
  out->d = pcs.m;
  out->values = pcs.project(data.values);
  out->weights = data.weights;
  out->counts = data.counts;
  out->index = data.index;
  for (int a = 0; a < pcs.m; ++a)
    out->dimensionNames << pcs.axisName(a);
  out->pointColours = data.pointColours;
  out->groundTruth = data.groundTruth;
  out->displayOnly = true;
  return out;
}

}  // namespace kms::app
