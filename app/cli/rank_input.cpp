#include "cli/rank_input.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFileInfo>

#include <algorithm>
#include <thread>
#include <vector>

#include "cli/checkpoint.h"
#include "core/format.h"
#include "io/generators.h"
#include "io/load.h"
#include "kmeans/collective.h"

namespace kms::app::cli {

std::int64_t optionsHash(const CliOptions& options) {
  QByteArray text = QCoreApplication::arguments().mid(1).join(QChar(0)).toUtf8();
  if (!options.input.isEmpty()) {
    const QFileInfo info(options.input);
    text += QByteArray::number(info.size()) + ':' +
            QByteArray::number(info.lastModified().toMSecsSinceEpoch());
  }
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : text)
    h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  return std::int64_t(h >> 1);
}

bool loadShareUsesTheRanks(const CliOptions& options, int ranks) {
  return ranks > 1 && !options.generate && readsAsText(options.input);
}

DatasetPtr loadShare(const CliOptions& options, Collective& world) {
  const int rank = world.rank(), ranks = world.size();
  std::vector<std::size_t> bounds;
  auto share = [&](std::size_t rows) {
    bounds = shareBoundaries(rows, ranks, options.rankShares);
    for (int r = 0; r < ranks; ++r)
      if (bounds[std::size_t(r)] == bounds[std::size_t(r) + 1])
        throw LoadError(options.generate ? QStringLiteral("generated data")
                                         : QFileInfo(options.input).fileName(),
                        QStringLiteral("%1 rows make %2 block(s) of 8,192: at most that many "
                                       "processes can share them, not %3")
                            .arg(groupedCount(rows))
                            .arg((rows + kShareRowMultiple - 1) / kShareRowMultiple)
                            .arg(ranks));
    return std::pair{bounds[std::size_t(rank)], bounds[std::size_t(rank) + 1]};
  };
  DatasetPtr data;
  if (options.generate) {
    data = generateDataset(*options.generate);
  } else {
    LoadOptions load;
    load.maxValues = kCliMaxValues;
    load.rowShare = share;
    if (loadShareUsesTheRanks(options, ranks))
      load.textShare = LoadOptions::TextShare{
          rank, ranks, options.rankShares,
          [&world](const std::vector<std::int64_t>& mine) { return world.allGather(mine); }};
    data = loadDataset(options.input, load);
  }
  if (data->isImage())
    throw LoadError(data->displayName, QStringLiteral("a picture is clustered by one process; "
                                                      "run kmeans-cli on it without mpirun"));
  if (!data->weights.empty() || !data->counts.empty())
    throw LoadError(data->displayName,
                    QStringLiteral("weighted points are clustered by one process"));
  if (data->fileRows != 0 || ranks == 1) return data;
  // The reader read every row: keep this rank's.
  const auto [first, last] = share(data->n);
  auto mine = std::make_shared<Dataset>(*data);
  mine->values.assign(data->values.begin() + std::ptrdiff_t(first * std::size_t(data->d)),
                      data->values.begin() + std::ptrdiff_t(last * std::size_t(data->d)));
  mine->groundTruth.clear();
  mine->pointColours.clear();
  mine->n = last - first;
  mine->firstRow = first;
  mine->fileRows = data->n;
  return mine;
}

std::uint64_t dataHash(const Dataset& data, int threads) {
  const std::size_t parts = std::size_t(std::max(1, threads));
  std::vector<std::uint64_t> sums(parts, 0);
  std::vector<std::thread> workers;
  for (std::size_t t = 0; t < parts; ++t)
    workers.emplace_back([&, t] {
      const std::size_t begin = data.n * t / parts, end = data.n * (t + 1) / parts;
      std::uint64_t sum = 0;
      for (std::size_t i = begin; i < end; ++i)
        sum += rowHash(data.firstRow + i, &data.values[i * std::size_t(data.d)], data.d);
      sums[t] = sum;
    });
  for (auto& w : workers)
    w.join();
  std::uint64_t total = 0;
  for (std::uint64_t v : sums)
    total += v;
  return total;
}

}  // namespace kms::app::cli
