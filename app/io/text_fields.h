// The pieces of the delimited-text rules (io/text_loader.h) that the whole-file reader and the
// reader of one rank's share (io/text_share.h) both follow: data lines, the delimiter, fields,
// the header, the values of a row and the leading id column. Internal to app/io.
#pragma once

#include <QString>
#include <QStringList>

#include <cstddef>
#include <string_view>
#include <vector>

#include "io/load_support.h"

namespace kms::app::io::text {

enum class Delimiter { Comma, Semicolon, Tab, Whitespace };

/// What a raw line (no '\n') carries: its comment removed and the rest trimmed; empty when the
/// line is blank.
std::string_view dataPart(std::string_view raw);

/// The data lines of bytes [from, …): comments removed, blank lines skipped, numbered as lines of
/// the file (`firstLineNumber` is the number of the line starting at `from`). A byte order mark
/// at the start of the file is skipped.
class LineReader {
 public:
  LineReader(std::string_view bytes, std::size_t from = 0, std::size_t firstLineNumber = 1);

  /// The next data line, its number and where it starts; false at the end of the bytes.
  bool next(std::string_view& line, std::size_t& number);
  bool next(std::string_view& line, std::size_t& number, std::size_t& start);

  /// Bytes before the next unread line.
  std::size_t position() const { return position_; }
  double fractionRead() const { return double(position_) / double(bytes_.size()); }

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
  std::size_t lineNumber_ = 0;  ///< of the last line read
};

/// How a file's lines are laid out, decided by its first data line.
struct Layout {
  Delimiter delimiter = Delimiter::Whitespace;
  QStringList header;  ///< the dimensions' names; empty without a header line
  std::size_t columns = 0;
  /// Where the header line starts in the file (npos without one): it is not a row.
  std::size_t headerStart = std::string_view::npos;
};

/// The layout from the file's first data lines. Fails (naming the file) when it has no data row.
Layout detectLayout(const InputFile& file);

/// Splits a data line into its fields (trimmed, quotes removed) by `delimiter`.
void splitFields(std::string_view line, Delimiter delimiter, std::vector<std::string_view>& fields);

/// The rows' values as they are read: the first column in double until the id-column rule has
/// been decided (ids may exceed float's 24-bit integers), the others in float.
struct Columns {
  std::vector<double> first;
  std::vector<float> others;
  std::size_t rows() const { return first.size(); }
};

/// Parses one data line (line `lineNumber` of the file) into `columns`. Fails, naming the file,
/// the line and the column, when its field count differs from `layout.columns` or a value is not
/// a finite float32 number. `fields` is scratch space.
void parseRow(const InputFile& file, const Layout& layout, std::string_view line,
              std::size_t lineNumber, std::vector<std::string_view>& fields, Columns& columns);

/// The id-column rule (io/text_loader.h) on a part of the first column: what the whole column's
/// decision needs from it. `firstRow` is the file's row index of values[0].
struct IdColumnFacts {
  bool increasingIntegers = true;  ///< integers, strictly increasing within the part
  bool fromZero = true;            ///< values[i] == firstRow + i
  bool fromOne = true;             ///< values[i] == firstRow + i + 1
};
IdColumnFacts idColumnFacts(const std::vector<double>& values, std::size_t firstRow);

/// Whether a header's first name marks an id column (id, index, idx, point_id or empty).
bool isIdName(const QString& name);

/// The rows' values, the first column dropped (`dropIds`) or put back in front of the others.
std::vector<float> rowValues(Columns&& columns, std::size_t columnCount, bool dropIds);

}  // namespace kms::app::io::text
