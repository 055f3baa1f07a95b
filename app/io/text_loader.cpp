#include "io/text_loader.h"

#include "io/load_support.h"
#include "io/text_fields.h"
#include "io/text_share.h"

namespace kms::app::io {

DatasetPtr loadTextPoints(const QString& path, const LoadOptions& options) {
  if (options.textShare && options.textShare->ranks > 1) return loadTextShare(path, options);
  const InputFile file(path);
  const Progress progress(file, options);
  const text::Layout layout = text::detectLayout(file);
  text::LineReader lines(file.bytes());
  std::string_view line;
  std::size_t lineNumber = 0, start = 0;
  std::vector<std::string_view> fields;
  text::Columns columns;
  while (lines.next(line, lineNumber, start)) {
    if (start == layout.headerStart) continue;
    requireValueCount(file, columns.rows() + 1, layout.columns, options.maxValues);
    text::parseRow(file, layout, line, lineNumber, fields, columns);
    if (columns.rows() % 16384 == 0) progress.update(lines.fractionRead());
  }

  QStringList header = layout.header;
  bool dropIds = false;
  if (layout.columns >= 2) {
    const text::IdColumnFacts facts = text::idColumnFacts(columns.first, 0);
    dropIds = header.isEmpty() ? facts.fromZero || facts.fromOne
                               : text::isIdName(header.front()) && facts.increasingIntegers;
  }
  if (dropIds && !header.isEmpty()) header.removeFirst();
  const std::size_t rows = columns.rows();
  std::vector<float> values = text::rowValues(std::move(columns), layout.columns, dropIds);
  progress.update(1.0);
  return makePointDataset(file, rows, int(dropIds ? layout.columns - 1 : layout.columns),
                          std::move(values), header);
}

}  // namespace kms::app::io
