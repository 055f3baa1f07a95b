#include "io/text_fields.h"

#include <algorithm>
#include <cmath>

namespace kms::app::io::text {
namespace {

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

QString headerName(std::string_view field) {
  return QString::fromUtf8(field.data(), qsizetype(field.size()))
      .replace(QStringLiteral("\"\""), QStringLiteral("\""));
}

}  // namespace

std::string_view dataPart(std::string_view raw) {
  if (const std::size_t hash = raw.find('#'); hash != std::string_view::npos)
    raw = raw.substr(0, hash);
  return trimmed(raw);
}

LineReader::LineReader(std::string_view bytes, std::size_t from, std::size_t firstLineNumber)
    : bytes_(bytes), position_(from), lineNumber_(firstLineNumber - 1) {
  if (from == 0 && bytes_.starts_with("\xEF\xBB\xBF")) position_ = 3;
}

bool LineReader::next(std::string_view& line, std::size_t& number) {
  std::size_t start = 0;
  return next(line, number, start);
}

bool LineReader::next(std::string_view& line, std::size_t& number, std::size_t& start) {
  while (position_ < bytes_.size()) {
    const std::size_t end = std::min(bytes_.find('\n', position_), bytes_.size());
    const std::string_view raw = bytes_.substr(position_, end - position_);
    start = position_;
    position_ = std::min(end + 1, bytes_.size());
    ++lineNumber_;
    const std::string_view data = dataPart(raw);
    if (data.empty()) continue;
    line = data;
    number = lineNumber_;
    return true;
  }
  return false;
}

Layout detectLayout(const InputFile& file) {
  LineReader lines(file.bytes());
  std::string_view line;
  std::size_t lineNumber = 0, start = 0;
  if (!lines.next(line, lineNumber, start))
    file.fail(QStringLiteral("no data rows (only comments and blank lines)"));
  Layout layout;
  layout.delimiter = detectDelimiter(line);
  std::vector<std::string_view> fields;
  splitFields(line, layout.delimiter, fields);
  if (std::none_of(fields.begin(), fields.end(),
                   [](auto f) { return parseNumber(f).has_value(); })) {
    for (std::string_view name : fields)
      layout.header << headerName(name);
    layout.headerStart = start;
    if (!lines.next(line, lineNumber)) file.fail(QStringLiteral("no data rows, only a header"));
    splitFields(line, layout.delimiter, fields);
  }
  layout.columns = layout.header.isEmpty() ? fields.size() : std::size_t(layout.header.size());
  return layout;
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

void parseRow(const InputFile& file, const Layout& layout, std::string_view line,
              std::size_t lineNumber, std::vector<std::string_view>& fields, Columns& columns) {
  splitFields(line, layout.delimiter, fields);
  if (fields.size() != layout.columns)
    file.fail(QStringLiteral("line %1 has %2 values, expected %3")
                  .arg(lineNumber)
                  .arg(fields.size())
                  .arg(layout.columns));
  for (std::size_t c = 0; c < layout.columns; ++c) {
    // Messages are built only on failure: this loop runs once per value of the file.
    const auto fail = [&](const QString& problem) {
      file.fail(QStringLiteral("line %1, column %2: %3").arg(lineNumber).arg(c + 1).arg(problem));
    };
    if (fields[c].empty()) fail(QStringLiteral("empty value"));
    const std::optional<double> value = parseNumber(fields[c]);
    if (!value) fail(QLatin1Char('\'') + shown(fields[c]) + QStringLiteral("' is not a number"));
    if (!fitsFloat(*value)) fail(coordinateProblem(*value, shown(fields[c])));
    if (c == 0)
      columns.first.push_back(*value);
    else
      columns.others.push_back(float(*value));
  }
}

IdColumnFacts idColumnFacts(const std::vector<double>& values, std::size_t firstRow) {
  IdColumnFacts facts;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double row = double(firstRow + i);
    facts.fromZero = facts.fromZero && values[i] == row;
    facts.fromOne = facts.fromOne && values[i] == row + 1.0;
    facts.increasingIntegers = facts.increasingIntegers && values[i] == std::trunc(values[i]) &&
                               (i == 0 || values[i] > values[i - 1]);
  }
  return facts;
}

bool isIdName(const QString& name) {
  // The empty name is the index column pandas' to_csv() writes.
  static const QStringList kNames = {QString(), QStringLiteral("id"), QStringLiteral("index"),
                                     QStringLiteral("idx"), QStringLiteral("point_id")};
  return kNames.contains(name, Qt::CaseInsensitive);
}

std::vector<float> rowValues(Columns&& columns, std::size_t columnCount, bool dropIds) {
  if (dropIds) return std::move(columns.others);
  std::vector<float> values;
  values.reserve(columns.rows() * columnCount);
  for (std::size_t row = 0; row < columns.rows(); ++row) {
    values.push_back(float(columns.first[row]));
    const auto from = columns.others.begin() + std::ptrdiff_t(row * (columnCount - 1));
    values.insert(values.end(), from, from + std::ptrdiff_t(columnCount - 1));
  }
  return values;
}

}  // namespace kms::app::io::text
