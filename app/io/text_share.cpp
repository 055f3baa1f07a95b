#include "io/text_share.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <numeric>
#include <optional>

#include "io/load_support.h"
#include "io/text_fields.h"

namespace kms::app::io {
namespace {

/// Where each rank's slice of `bytes` starts (ranks + 1 values, the size last): cuts in proportion
/// to `weights` (even without), each moved to the first line start at or after it. A line then
/// belongs to the slice its first byte is in.
std::vector<std::size_t> sliceStarts(std::string_view bytes, int ranks,
                                     const std::vector<double>& weights) {
  const std::vector<double> w =
      weights.size() == std::size_t(ranks) ? weights : std::vector<double>(std::size_t(ranks), 1.0);
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  std::vector<std::size_t> starts(std::size_t(ranks) + 1, bytes.size());
  double before = 0.0;
  for (int q = 0; q < ranks; ++q) {
    std::size_t cut = std::min(bytes.size(), std::size_t(double(bytes.size()) * (before / total)));
    if (cut > 0) {
      const std::size_t newline = bytes.find('\n', cut - 1);
      cut = newline == std::string_view::npos ? bytes.size() : newline + 1;
    }
    starts[std::size_t(q)] = cut;
    before += w[std::size_t(q)];
  }
  return starts;
}

/// Ranks agree on failures: each exchange carries whether the rank is still well, and when one is
/// not, every rank throws the message of the lowest rank that failed.
class Agreement {
 public:
  Agreement(const QString& path, const LoadOptions::TextShare& share)
      : path_(path), share_(share) {}

  /// Runs `step` unless this rank has failed already; a LoadError (or any exception) is kept.
  template <typename F>
  void attempt(F&& step) {
    if (failure_) return;
    try {
      step();
    } catch (const LoadError& e) {
      failure_ = e.problem();
    } catch (const std::exception& e) {
      failure_ = QString::fromUtf8(e.what());
    }
  }

  /// Every rank's `mine` (the same length on every rank) in rank order; throws on every rank when
  /// any has failed.
  std::vector<std::int64_t> exchange(std::vector<std::int64_t> mine) {
    const std::size_t width = mine.size() + 1;
    mine.insert(mine.begin(), failure_ ? 0 : 1);
    if (failure_) std::fill(mine.begin() + 1, mine.end(), 0);
    const std::vector<std::int64_t> all = share_.allGather(mine);
    bool failed = false;
    for (std::size_t r = 0; r < std::size_t(share_.ranks); ++r)
      failed = failed || all[r * width] == 0;
    if (failed) throwTheFirstFailure();
    std::vector<std::int64_t> values;
    values.reserve(all.size() - std::size_t(share_.ranks));
    for (std::size_t r = 0; r < std::size_t(share_.ranks); ++r)
      values.insert(values.end(), all.begin() + std::ptrdiff_t(r * width + 1),
                    all.begin() + std::ptrdiff_t((r + 1) * width));
    return values;
  }

 private:
  /// The failed ranks' messages, packed 8 bytes to an int64 after their length, are gathered; the
  /// first in rank order is thrown.
  [[noreturn]] void throwTheFirstFailure() {
    std::vector<std::int64_t> mine;
    if (failure_) {
      const QByteArray text = failure_->toUtf8();
      mine.assign(1 + (std::size_t(text.size()) + 7) / 8, 0);
      mine[0] = text.size();
      std::memcpy(mine.data() + 1, text.constData(), std::size_t(text.size()));
    }
    const std::vector<std::int64_t> all = share_.allGather(mine);
    const std::size_t length = all.empty() ? 0 : std::size_t(all[0]);
    const QString problem =
        all.empty() ? QStringLiteral("a process failed to read its share")
                    : QString::fromUtf8(reinterpret_cast<const char*>(all.data() + 1),
                                        qsizetype(std::min(length, (all.size() - 1) * 8)));
    throw LoadError(path_, problem);
  }

  QString path_;
  const LoadOptions::TextShare& share_;
  std::optional<QString> failure_;
};

}  // namespace

DatasetPtr loadTextShare(const QString& path, const LoadOptions& options) {
  const LoadOptions::TextShare& share = *options.textShare;
  const std::size_t ranks = std::size_t(share.ranks), rank = std::size_t(share.rank);
  Agreement ranksAgree(path, share);
  std::optional<InputFile> file;
  text::Layout layout;
  std::vector<std::size_t> starts;
  std::int64_t slice[2] = {0, 0};  // this slice's data rows and newlines
  ranksAgree.attempt([&] {
    file.emplace(path);
    layout = text::detectLayout(*file);
    starts = sliceStarts(file->bytes(), share.ranks, share.weights);
    const std::string_view bytes = file->bytes();
    const std::size_t from = starts[rank], to = starts[rank + 1];
    // Lines that start in [from, to) end inside it: `to` is a line start.
    text::LineReader lines(bytes.substr(0, to), from);
    std::string_view line;
    std::size_t number = 0, start = 0;
    while (lines.next(line, number, start))
      slice[0] += start != layout.headerStart;
    slice[1] =
        std::count(bytes.begin() + std::ptrdiff_t(from), bytes.begin() + std::ptrdiff_t(to), '\n');
  });
  const std::vector<std::int64_t> counts = ranksAgree.exchange({slice[0], slice[1]});

  // Rows and newlines before each slice.
  std::vector<std::size_t> rowsBefore(ranks + 1, 0), newlinesBefore(ranks + 1, 0);
  for (std::size_t q = 0; q < ranks; ++q) {
    rowsBefore[q + 1] = rowsBefore[q] + std::size_t(counts[2 * q]);
    newlinesBefore[q + 1] = newlinesBefore[q] + std::size_t(counts[2 * q + 1]);
  }
  const std::size_t fileRows = rowsBefore[ranks];
  std::size_t first = 0, last = 0;
  text::Columns columns;
  ranksAgree.attempt([&] {
    const Progress progress(*file, options);
    std::tie(first, last) = rowsToRead(options, fileRows);
    requireValueCount(*file, last - first, layout.columns, options.maxValues);
    if (first == last) return;
    // The slice holding row `first`, and the rows of it to pass over.
    std::size_t q = 0;
    while (rowsBefore[q + 1] <= first)
      ++q;
    text::LineReader lines(file->bytes(), starts[q], newlinesBefore[q] + 1);
    std::string_view line;
    std::size_t number = 0, start = 0;
    const auto fileEnded = [&](std::size_t row) {
      file->fail(QStringLiteral("the file ended before its row %1 (was it changed while read?)")
                     .arg(row + 1));
    };
    for (std::size_t skip = first - rowsBefore[q]; skip > 0;) {
      if (!lines.next(line, number, start)) fileEnded(first - skip);
      if (start != layout.headerStart) --skip;
    }
    std::vector<std::string_view> fields;
    columns.first.reserve(last - first);
    columns.others.reserve((last - first) * (layout.columns - 1));
    while (columns.rows() < last - first) {
      if (!lines.next(line, number, start)) fileEnded(first + columns.rows());
      if (start == layout.headerStart) continue;
      text::parseRow(*file, layout, line, number, fields, columns);
      if (columns.rows() % 16384 == 0)
        progress.update(double(columns.rows()) / double(last - first));
    }
  });

  // The id-column rule over every rank's part of the first column.
  const text::IdColumnFacts facts = text::idColumnFacts(columns.first, first);
  const bool any = columns.rows() > 0;
  const std::vector<std::int64_t> parts =
      ranksAgree.exchange({any ? 1 : 0, facts.increasingIntegers, facts.fromZero, facts.fromOne,
                           std::bit_cast<std::int64_t>(any ? columns.first.front() : 0.0),
                           std::bit_cast<std::int64_t>(any ? columns.first.back() : 0.0)});
  bool dropIds = false;
  if (layout.columns >= 2) {
    constexpr std::size_t kWidth = 6;
    bool increasing = true, fromZero = true, fromOne = true;
    std::optional<double> previousLast;
    for (std::size_t q = 0; q < ranks; ++q) {
      const std::int64_t* part = parts.data() + q * kWidth;
      if (part[0] == 0) continue;  // no rows
      increasing = increasing && part[1] != 0;
      fromZero = fromZero && part[2] != 0;
      fromOne = fromOne && part[3] != 0;
      const double partFirst = std::bit_cast<double>(part[4]);
      increasing = increasing && (!previousLast || *previousLast < partFirst);
      previousLast = std::bit_cast<double>(part[5]);
    }
    dropIds = layout.header.isEmpty() ? fromZero || fromOne
                                      : text::isIdName(layout.header.front()) && increasing;
  }
  QStringList header = layout.header;
  if (dropIds && !header.isEmpty()) header.removeFirst();
  const std::size_t rows = columns.rows();
  std::vector<float> values = text::rowValues(std::move(columns), layout.columns, dropIds);
  auto dataset = makePointDataset(*file, rows, int(dropIds ? layout.columns - 1 : layout.columns),
                                  std::move(values), header);
  dataset->firstRow = first;
  dataset->fileRows = fileRows;
  return dataset;
}

}  // namespace kms::app::io
