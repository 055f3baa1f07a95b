#include "io/generators.h"

#include <QStringBuilder>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "core/format.h"
#include "core/random.h"
#include "synthetic_photo.h"

namespace kms::app {
namespace {

constexpr double kTwoPi = 2.0 * std::numbers::pi;

void validate(const GeneratorParams& p) {
  if (p.n == 0) throw std::invalid_argument("the number of points must be at least 1");
  if (p.groups < 1) throw std::invalid_argument("the number of groups must be at least 1");
  if (p.d < 1) throw std::invalid_argument("the number of dimensions must be at least 1");
  if (!std::isfinite(p.noise) || p.noise < 0.0)
    throw std::invalid_argument("the noise must be a finite number ≥ 0");
  const bool usesGroups = p.kind == GeneratorKind::Blobs || p.kind == GeneratorKind::Rings ||
                          p.kind == GeneratorKind::Anisotropic ||
                          p.kind == GeneratorKind::UnequalVariances ||
                          p.kind == GeneratorKind::UnequalSizes;
  if (usesGroups && std::size_t(p.groups) > p.n)
    throw std::invalid_argument("there are more groups than points");
  const bool usesD = p.kind == GeneratorKind::Blobs || p.kind == GeneratorKind::Uniform;
  const std::size_t d = usesD ? std::size_t(p.d) : (p.kind == GeneratorKind::Photo ? 3 : 2);
  if (p.n > kMaxGeneratedValues / d)
    throw std::invalid_argument("too many values (points × dimensions) to generate");
}

/// Blob centres spread over [-1, 1]^d by best-candidate sampling: each new centre is the one of
/// several uniform candidates farthest from the centres already placed, so centres rarely crowd.
std::vector<double> spreadCentres(int groups, int d, Random& rng) {
  constexpr int kCandidates = 16;
  std::vector<double> centres;
  std::vector<double> candidate(std::size_t(d), 0.0);
  for (int g = 0; g < groups; ++g) {
    std::vector<double> best;
    double bestDistance = -1.0;
    for (int c = 0; c < kCandidates; ++c) {
      for (double& x : candidate)
        x = rng.uniform(-1.0, 1.0);
      double nearest = std::numeric_limits<double>::infinity();
      for (int other = 0; other < g; ++other) {
        double sq = 0.0;
        for (int j = 0; j < d; ++j) {
          const double diff = candidate[std::size_t(j)] - centres[std::size_t(other * d + j)];
          sq += diff * diff;
        }
        nearest = std::min(nearest, sq);
      }
      if (nearest > bestDistance) {
        bestDistance = nearest;
        best = candidate;
      }
    }
    centres.insert(centres.end(), best.begin(), best.end());
  }
  return centres;
}

void fillBlobs(Dataset& out, const GeneratorParams& p, Random& rng) {
  const std::vector<double> centres = spreadCentres(p.groups, p.d, rng);
  for (std::size_t i = 0; i < out.n; ++i) {
    const int g = out.groundTruth[i];
    for (int j = 0; j < p.d; ++j)
      out.values[i * std::size_t(p.d) + std::size_t(j)] =
          float(centres[std::size_t(g * p.d + j)] + p.noise * rng.normal());
  }
}

/// The textbook failures: blobs with stretched, unequal or unequally populated groups (2-D).
void fillTeachingBlobs(Dataset& out, const GeneratorParams& p, Random& rng) {
  const std::vector<double> centres = spreadCentres(p.groups, 2, rng);
  constexpr double kSpreads[] = {0.4, 1.0, 2.5};
  for (std::size_t i = 0; i < out.n; ++i) {
    const int g = out.groundTruth[i];
    double zx = p.noise * rng.normal(), zy = p.noise * rng.normal();
    if (p.kind == GeneratorKind::Anisotropic) {
      // Long ellipses, all tilted the same way: x' = 4x, then sheared.
      const double lx = 4.0 * zx;
      zx = 0.8 * lx;
      zy = 0.6 * lx + 0.5 * zy;
    } else if (p.kind == GeneratorKind::UnequalVariances) {
      zx *= kSpreads[g % 3];
      zy *= kSpreads[g % 3];
    }
    out.values[2 * i] = float(centres[std::size_t(2 * g)] + zx);
    out.values[2 * i + 1] = float(centres[std::size_t(2 * g + 1)] + zy);
  }
}

/// UnequalSizes: group g takes a share 1 / (g + 1)² of the points (at least one), in order.
void assignUnequalSizes(Dataset& out, int groups) {
  std::vector<double> share(static_cast<std::size_t>(groups));
  double total = 0.0;
  for (int g = 0; g < groups; ++g)
    total += share[std::size_t(g)] = 1.0 / double((g + 1) * (g + 1));
  std::size_t at = 0;
  for (int g = 0; g < groups; ++g) {
    const std::size_t left = out.n - at, groupsLeft = std::size_t(groups - g);
    std::size_t size =
        g + 1 == groups ? left
                        : std::size_t(std::llround(double(out.n) * share[std::size_t(g)] / total));
    size = std::clamp<std::size_t>(size, 1, left - (groupsLeft - 1));
    for (std::size_t i = 0; i < size; ++i)
      out.groundTruth[at + i] = g;
    at += size;
  }
}

void fillRings(Dataset& out, const GeneratorParams& p, Random& rng) {
  for (std::size_t i = 0; i < out.n; ++i) {
    const double radius = double(out.groundTruth[i] + 1) / p.groups;
    const double angle = rng.uniform(0.0, kTwoPi);
    out.values[2 * i] = float(radius * std::cos(angle) + p.noise * rng.normal());
    out.values[2 * i + 1] = float(radius * std::sin(angle) + p.noise * rng.normal());
  }
}

void fillMoons(Dataset& out, const GeneratorParams& p, Random& rng) {
  // The classic layout: the upper moon is the top half of the unit circle, the lower one the
  // bottom half shifted by (1, 0.5); shifted again by (-0.5, -0.25) to centre the pair on 0.
  for (std::size_t i = 0; i < out.n; ++i) {
    const double t = rng.uniform(0.0, std::numbers::pi);
    const bool upper = out.groundTruth[i] == 0;
    const double x = upper ? std::cos(t) : 1.0 - std::cos(t);
    const double y = upper ? std::sin(t) : 0.5 - std::sin(t);
    out.values[2 * i] = float(x - 0.5 + p.noise * rng.normal());
    out.values[2 * i + 1] = float(y - 0.25 + p.noise * rng.normal());
  }
}

void fillUniform(Dataset& out, Random& rng) {
  for (float& v : out.values)
    v = float(rng.uniform(-1.0, 1.0));
}

/// A square procedural photo of about n pixels, as an image data set.
DatasetPtr generatePhoto(const GeneratorParams& p) {
  const int side = std::max(1, int(std::lround(std::sqrt(double(p.n)))));
  auto out = std::make_shared<Dataset>();
  out->kind = DatasetKind::Image;
  out->source = QStringLiteral("generator:photo");
  out->displayName = QStringLiteral("Synthetic photo — %1 × %1 pixels").arg(side);
  out->width = side;
  out->height = side;
  out->n = std::size_t(side) * std::size_t(side);
  out->d = 3;
  out->dimensionNames = {QStringLiteral("R"), QStringLiteral("G"), QStringLiteral("B")};
  out->values = synthetic::syntheticPhoto(side, side, std::uint32_t(p.seed));
  return out;
}

QString describe(const GeneratorParams& p, int groups, int d) {
  static const char* const kTitles[] = {"Blobs",           "Rings",        "Moons",
                                        "Uniform",         "Photo",        "Anisotropic blobs",
                                        "Unequal spreads", "Unequal sizes"};
  QString text = QString::fromLatin1(kTitles[int(p.kind)]) % QStringLiteral(" — ") %
                 groupedCount(p.n) % QStringLiteral(" points");
  if (p.kind == GeneratorKind::Blobs || p.kind == GeneratorKind::Anisotropic ||
      p.kind == GeneratorKind::UnequalVariances || p.kind == GeneratorKind::UnequalSizes)
    text += QStringLiteral(", %1 groups").arg(groups);
  if (p.kind == GeneratorKind::Rings) text += QStringLiteral(", %1 rings").arg(groups);
  if (d != 2) text += QStringLiteral(", %1-D").arg(d);
  return text;
}

}  // namespace

DatasetPtr generateDataset(const GeneratorParams& params) {
  validate(params);
  if (params.kind == GeneratorKind::Photo) return generatePhoto(params);
  const bool planar = params.kind != GeneratorKind::Blobs && params.kind != GeneratorKind::Uniform;
  const int d = planar ? 2 : params.d;
  const int groups = params.kind == GeneratorKind::Moons     ? 2
                     : params.kind == GeneratorKind::Uniform ? 1
                                                             : params.groups;

  auto out = std::make_shared<Dataset>();
  out->kind = DatasetKind::Points;
  out->source = QStringLiteral("generator:") + toString(params.kind);
  out->displayName = describe(params, groups, d);
  out->n = params.n;
  out->d = d;
  out->dimensionNames = defaultDimensionNames(d);
  out->values.resize(params.n * std::size_t(d));
  out->groundTruth.resize(params.n);
  for (std::size_t i = 0; i < params.n; ++i)
    out->groundTruth[i] = std::int32_t(i % groups);
  if (params.kind == GeneratorKind::UnequalSizes) assignUnequalSizes(*out, groups);

  Random rng(params.seed);
  switch (params.kind) {
    case GeneratorKind::Blobs:
      fillBlobs(*out, params, rng);
      break;
    case GeneratorKind::Rings:
      fillRings(*out, params, rng);
      break;
    case GeneratorKind::Moons:
      fillMoons(*out, params, rng);
      break;
    case GeneratorKind::Uniform:
      fillUniform(*out, rng);
      break;
    case GeneratorKind::Photo:
      break;  // handled above
    case GeneratorKind::Anisotropic:
    case GeneratorKind::UnequalVariances:
    case GeneratorKind::UnequalSizes:
      fillTeachingBlobs(*out, params, rng);
      break;
  }
  return out;
}

QString toString(GeneratorKind kind) {
  switch (kind) {
    case GeneratorKind::Blobs:
      return QStringLiteral("blobs");
    case GeneratorKind::Rings:
      return QStringLiteral("rings");
    case GeneratorKind::Moons:
      return QStringLiteral("moons");
    case GeneratorKind::Uniform:
      return QStringLiteral("uniform");
    case GeneratorKind::Photo:
      return QStringLiteral("photo");
    case GeneratorKind::Anisotropic:
      return QStringLiteral("anisotropic");
    case GeneratorKind::UnequalVariances:
      return QStringLiteral("unequal-variances");
    case GeneratorKind::UnequalSizes:
      return QStringLiteral("unequal-sizes");
  }
  return QStringLiteral("?");
}

QString explanation(GeneratorKind kind) {
  switch (kind) {
    case GeneratorKind::Rings:
      return QStringLiteral(
          "Rings: k-means cuts them into pie slices — it only knows round "
          "clusters around a centre, and a ring has none.");
    case GeneratorKind::Moons:
      return QStringLiteral(
          "Moons: each centroid takes the nearest half of both moons — "
          "k-means draws straight boundaries between centres.");
    case GeneratorKind::Uniform:
      return QStringLiteral(
          "Uniform: there are no clusters, yet k-means always returns k — "
          "check with the silhouette before trusting them.");
    case GeneratorKind::Anisotropic:
      return QStringLiteral(
          "Stretched blobs: k-means assumes round clusters, so long "
          "ellipses are split across their width instead of along them.");
    case GeneratorKind::UnequalVariances:
      return QStringLiteral(
          "Unequal spreads: the boundary sits halfway between centroids, so "
          "a wide cluster loses its outer points to a tight neighbour.");
    case GeneratorKind::UnequalSizes:
      return QStringLiteral(
          "Unequal sizes: k-means puts each boundary halfway between "
          "centroids whatever the sizes, so a big cluster's edge goes to a "
          "small neighbour.");
    case GeneratorKind::Blobs:
    case GeneratorKind::Photo:
      break;
  }
  return {};
}

std::optional<GeneratorKind> parseGeneratorKind(const QString& text) {
  for (GeneratorKind kind :
       {GeneratorKind::Blobs, GeneratorKind::Rings, GeneratorKind::Moons, GeneratorKind::Uniform,
        GeneratorKind::Photo, GeneratorKind::Anisotropic, GeneratorKind::UnequalVariances,
        GeneratorKind::UnequalSizes})
    if (text.compare(toString(kind), Qt::CaseInsensitive) == 0) return kind;
  return std::nullopt;
}

}  // namespace kms::app
