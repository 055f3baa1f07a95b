#include "io/text_loader.h"

#include <algorithm>
#include <cmath>
#include <string_view>
#include <vector>

#include "io/load_support.h"

namespace kms::app::io {
namespace {

enum class Delimiter { Comma, Semicolon, Tab, Whitespace };

bool isBlank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && isBlank(text.front()))
    text.remove_prefix(1);
  while (!text.empty() && isBlank(text.back()))
    text.remove_suffix(1);
  return text;
}

std::string_view unquoted(std::string_view field) {
  if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
    return trimmed(field.substr(1, field.size() - 2));
  return field;
}

/// How a field is shown in a message: at most 24 characters, invalid UTF-8 replaced.
QString shown(std::string_view field) {
  constexpr std::size_t kLongest = 24;
  const QString text = QString::fromUtf8(field.data(), qsizetype(std::min(field.size(), kLongest)));
  return field.size() > kLongest ? text + QStringLiteral("…") : text;
}

/// The lines that carry data: comments removed, blank lines skipped, numbered from 1.
class LineReader {
 public:
  explicit LineReader(std::string_view bytes) : rest_(bytes) {
    if (rest_.starts_with("\xEF\xBB\xBF")) rest_.remove_prefix(3);
    total_ = bytes.size();
  }

  /// The next non-blank line and its number; false at the end of the file.
  bool next(std::string_view& line, std::size_t& number) {
    while (!rest_.empty()) {
      const std::size_t end = rest_.find('\n');
      std::string_view raw = rest_.substr(0, end);
      rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end + 1);
      ++lineNumber_;
      if (const std::size_t hash = raw.find('#'); hash != std::string_view::npos)
        raw = raw.substr(0, hash);
      raw = trimmed(raw);
      if (raw.empty()) continue;
      line = raw;
      number = lineNumber_;
      return true;
    }
    return false;
  }

  double fractionRead() const { return 1.0 - double(rest_.size()) / double(total_); }

 private:
  std::string_view rest_;
  std::size_t total_ = 0;
  std::size_t lineNumber_ = 0;
};

/// A field with a space inside that is not just numbers ("first name", not "3 4").
bool isSpacedText(std::string_view field) {
  field = trimmed(field);
  if (field.find(' ') == std::string_view::npos) return false;
  for (std::size_t start = 0; start < field.size();) {
    const std::size_t end = std::min(field.find_first_of(" \t", start), field.size());
    if (end > start && !parseNumber(field.substr(start, end - start))) return true;
    start = end + 1;
  }
  return false;
}

Delimiter detectDelimiter(std::string_view line) {
  if (line.find(',') != std::string_view::npos) return Delimiter::Comma;
  if (line.find(';') != std::string_view::npos) return Delimiter::Semicolon;
  // Tabs delimit on their own only when a tab-separated field is text with a space inside (a TSV
  // header such as "first name<TAB>last name"); otherwise tabs and spaces are both whitespace.
  if (line.find('\t') != std::string_view::npos) {
    for (std::size_t start = 0; start <= line.size();) {
      const std::size_t end = std::min(line.find('\t', start), line.size());
      if (isSpacedText(line.substr(start, end - start))) return Delimiter::Tab;
      start = end + 1;
    }
  }
  return Delimiter::Whitespace;
}

void splitFields(std::string_view line, Delimiter delimiter,
                 std::vector<std::string_view>& fields) {
  fields.clear();
  if (delimiter == Delimiter::Whitespace) {
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && isBlank(line[i]))
        ++i;
      const std::size_t start = i;
      while (i < line.size() && !isBlank(line[i]))
        ++i;
      if (i > start) fields.push_back(unquoted(line.substr(start, i - start)));
    }
    return;
  }
  const char separator = delimiter == Delimiter::Comma ? ','
                         : delimiter == Delimiter::Tab ? '\t'
                                                       : ';';
  std::size_t i = 0;
  while (true) {
    while (i < line.size() && line[i] != separator && isBlank(line[i]))
      ++i;
    std::size_t end = 0;
    if (i < line.size() && line[i] == '"') {
      // A quoted field may hold the separator; "" inside it is a quote (kept doubled here,
      // undoubled by headerName()).
      const std::size_t start = ++i;
      while (i < line.size() && !(line[i] == '"' && (i + 1 == line.size() || line[i + 1] != '"')))
        i += line[i] == '"' ? 2 : 1;
      fields.push_back(line.substr(start, std::min(i, line.size()) - start));
      end = line.find(separator, i);
    } else {
      end = line.find(separator, i);
      fields.push_back(trimmed(line.substr(i, end - i)));
    }
    if (end == std::string_view::npos) return;
    i = end + 1;
  }
}

QString headerName(std::string_view field) {
  return QString::fromUtf8(field.data(), qsizetype(field.size()))
      .replace(QStringLiteral("\"\""), QStringLiteral("\""));
}

bool isIdName(const QString& name) {
  // The empty name is the index column pandas' to_csv() writes.
  static const QStringList kNames = {QString(), QStringLiteral("id"), QStringLiteral("index"),
                                     QStringLiteral("idx"), QStringLiteral("point_id")};
  return kNames.contains(name, Qt::CaseInsensitive);
}

bool isSequence(const std::vector<double>& values, double first) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] != first + double(i)) return false;
  return true;
}

bool isIncreasingIntegers(const std::vector<double>& values) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] != std::trunc(values[i])) return false;
    if (i > 0 && values[i] <= values[i - 1]) return false;
  }
  return true;
}

/// The id-column rule documented in text_loader.h.
bool isIdColumn(const std::vector<double>& firstColumn, const QStringList& header) {
  if (!header.isEmpty()) return isIdName(header.front()) && isIncreasingIntegers(firstColumn);
  return isSequence(firstColumn, 0.0) || isSequence(firstColumn, 1.0);
}

/// Reassembles rows from the first column and the other columns (rows × (columns − 1)).
std::vector<float> withFirstColumn(const std::vector<double>& first, const std::vector<float>& rest,
                                   std::size_t columns) {
  std::vector<float> values;
  values.reserve(first.size() * columns);
  for (std::size_t row = 0; row < first.size(); ++row) {
    values.push_back(float(first[row]));
    const auto from = rest.begin() + std::ptrdiff_t(row * (columns - 1));
    values.insert(values.end(), from, from + std::ptrdiff_t(columns - 1));
  }
  return values;
}

}  // namespace

DatasetPtr loadTextPoints(const QString& path, const LoadOptions& options) {
  const InputFile file(path);
  const Progress progress(file, options);
  LineReader lines(file.bytes());
  std::string_view line;
  std::size_t lineNumber = 0;
  if (!lines.next(line, lineNumber))
    file.fail(QStringLiteral("no data rows (only comments and blank lines)"));

  const Delimiter delimiter = detectDelimiter(line);
  std::vector<std::string_view> fields;
  splitFields(line, delimiter, fields);
  QStringList header;
  if (std::none_of(fields.begin(), fields.end(),
                   [](auto f) { return parseNumber(f).has_value(); })) {
    for (std::string_view name : fields)
      header << headerName(name);
    if (!lines.next(line, lineNumber)) file.fail(QStringLiteral("no data rows, only a header"));
    splitFields(line, delimiter, fields);
  }
  const std::size_t columns = header.isEmpty() ? fields.size() : std::size_t(header.size());

  // The first column stays in double until we know whether it holds ids (which may exceed
  // float's 24-bit integer precision) or coordinates.
  std::vector<double> firstColumn;
  std::vector<float> otherColumns;
  std::size_t rows = 0;
  while (true) {
    if (fields.size() != columns)
      file.fail(QStringLiteral("line %1 has %2 values, expected %3")
                    .arg(lineNumber)
                    .arg(fields.size())
                    .arg(columns));
    requireValueCount(file, rows + 1, columns, options.maxValues);
    for (std::size_t c = 0; c < columns; ++c) {
      // Messages are built only on failure: this loop runs once per value of the file.
      const auto fail = [&](const QString& problem) {
        file.fail(QStringLiteral("line %1, column %2: %3").arg(lineNumber).arg(c + 1).arg(problem));
      };
      if (fields[c].empty()) fail(QStringLiteral("empty value"));
      const std::optional<double> value = parseNumber(fields[c]);
      if (!value) fail(QLatin1Char('\'') + shown(fields[c]) + QStringLiteral("' is not a number"));
      if (!fitsFloat(*value)) fail(coordinateProblem(*value, shown(fields[c])));
      if (c == 0)
        firstColumn.push_back(*value);
      else
        otherColumns.push_back(float(*value));
    }
    if (++rows % 16384 == 0) progress.update(lines.fractionRead());
    if (!lines.next(line, lineNumber)) break;
    splitFields(line, delimiter, fields);
  }

  const bool dropIds = columns >= 2 && isIdColumn(firstColumn, header);
  if (dropIds && !header.isEmpty()) header.removeFirst();
  std::vector<float> values =
      dropIds ? std::move(otherColumns) : withFirstColumn(firstColumn, otherColumns, columns);
  progress.update(1.0);
  return makePointDataset(file, rows, int(dropIds ? columns - 1 : columns), std::move(values),
                          header);
}

}  // namespace kms::app::io
