// Delimited text point files: CSV, TSV and whitespace-separated columns (.csv .tsv .txt .xyz,
// text .dat). Internal to app/io; use loadDataset().
//
// The rules, in order:
//  - A UTF-8 byte order mark is ignored. '#' starts a comment that runs to the end of its line;
//    lines that are blank once comments are removed are skipped. Line numbers in messages count
//    every line of the file, from 1.
//  - The delimiter comes from the first remaining line: ',' when it has one, else ';', else runs
//    of spaces and tabs — except that a tab alone delimits when a tab-separated field of that
//    line is text with a space inside (a TSV header like "first name<TAB>last name"). Fields are
//    trimmed. With ',', ';' or a tab, a field may be quoted as in RFC 4180 ("a, b" holds the
//    comma, "" is a quote); a quoted field spans one line only and '#' inside it still starts a
//    comment. With whitespace, surrounding double quotes are removed.
//  - That first line is a header when none of its fields is a number; the header's fields name
//    the dimensions.
//  - Every data line has as many values as the header has names (or as the first data line).
//    Values are decimal numbers ("1", "-2.5e3", "+4"), finite and within float32 range.
//  - Leading id column: with at least 2 columns, the first one is taken as point ids and dropped
//      with a header, when its name is id, index, idx, point_id (any case) or empty (pandas'
//        index column) and its values are integers that strictly increase;
//      without a header, when its values are exactly 0, 1, …, N−1 or 1, 2, …, N (the classic
//        "id x y …" text format of the CUDA k-means exercises).
#pragma once

#include <QString>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Reads a delimited text point file. Throws LoadError.
DatasetPtr loadTextPoints(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
