#include "io/npy_loader.h"

#include <cmath>

#include <QStringList>
#include <QtEndian>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "io/load_support.h"

namespace kms::app::io {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

/// The three keys of a .npy header dictionary.
struct NpyHeader {
  std::string descr;
  bool descrIsString = false;  ///< false for a structured dtype (a list of fields)
  bool fortranOrder = false;
  std::vector<std::uint64_t> shape;
  bool hasDescr = false, hasFortranOrder = false, hasShape = false;
};

/// Parses the Python dict literal of the header, e.g.
/// {'descr': '<f4', 'fortran_order': False, 'shape': (1000, 3), }
class HeaderParser {
 public:
  HeaderParser(const InputFile& file, std::string_view text) : file_(file), text_(text) {}

  NpyHeader parse() {
    NpyHeader header;
    expect('{');
    while (!consume('}')) {
      const std::string key = parseString();
      expect(':');
      if (key == "descr") {
        header.hasDescr = true;
        header.descrIsString = peek() == '\'' || peek() == '"';
        if (header.descrIsString)
          header.descr = parseString();
        else
          skipBracketed();
      } else if (key == "fortran_order") {
        header.hasFortranOrder = true;
        header.fortranOrder = parseBool();
      } else if (key == "shape") {
        header.hasShape = true;
        header.shape = parseTuple();
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    return header;
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const {
    file_.fail(QStringLiteral("malformed .npy header: ") + QString::fromStdString(problem));
  }
  char peek() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  bool consume(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c) {
    if (!consume(c)) fail(std::string("expected '") + c + "'");
  }
  std::string parseString() {
    const char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a quoted string");
    const std::size_t end = text_.find(quote, ++pos_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  bool parseBool() {
    peek();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}})
      if (text_.substr(pos_).starts_with(word)) {
        pos_ += std::string_view(word).size();
        return value;
      }
    fail("expected True or False");
  }
  std::vector<std::uint64_t> parseTuple() {
    std::vector<std::uint64_t> values;
    expect('(');
    while (!consume(')')) {
      peek();
      const std::size_t start = pos_;
      std::uint64_t value = 0;
      while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
        const unsigned digit = unsigned(text_[pos_++] - '0');
        if (value > (UINT64_MAX - digit) / 10) fail("shape value too large");
        value = value * 10 + digit;
      }
      if (pos_ == start) fail("expected a non-negative integer in the shape");
      consume('L');  // Python 2 wrote long integers as 3L
      values.push_back(value);
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return values;
  }
  /// Skips a structured dtype's list, which is reported as unsupported afterwards.
  void skipBracketed() {
    if (peek() != '[') fail("expected a dtype string");
    int depth = 0;
    for (; pos_ < text_.size(); ++pos_) {
      if (text_[pos_] == '[' || text_[pos_] == '(') ++depth;
      if ((text_[pos_] == ']' || text_[pos_] == ')') && --depth == 0) {
        ++pos_;
        return;
      }
    }
    fail("unterminated dtype list");
  }

  const InputFile& file_;
  std::string_view text_;
  std::size_t pos_ = 0;
};

struct DType {
  std::size_t bytes = 0;  ///< 2 (float16), 4 (float32) or 8 (float64)
  bool bigEndian = false;
};

DType parseDType(const InputFile& file, const NpyHeader& header) {
  if (!header.descrIsString)
    file.fail(QStringLiteral(
        "structured dtypes are not supported; expected float16, float32 or float64"));
  const std::string& d = header.descr;
  const bool known = d.size() == 3 && std::string_view("<>|=").find(d[0]) != std::string::npos &&
                     (d.substr(1) == "f2" || d.substr(1) == "f4" || d.substr(1) == "f8");
  if (!known)
    file.fail(QStringLiteral("dtype '%1' is not supported; expected float16, float32 or float64")
                  .arg(QString::fromStdString(d)));
  // '|' (not applicable) and '=' (native) mean the writer's byte order: take ours.
  const bool big = d[0] == '>' || (d[0] != '<' && QSysInfo::ByteOrder == QSysInfo::BigEndian);
  return {static_cast<std::size_t>(d[2] - '0'), big};
}

/// IEEE 754 binary16 bits as a double: exact (every half-precision value, subnormals, ±∞ and NaN
/// included, is a float and a double).
double halfToDouble(quint16 bits) {
  const int sign = bits >> 15, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0)
    magnitude = std::ldexp(double(mantissa), -24);  // subnormal (or zero)
  else if (exponent == 31)
    magnitude = mantissa == 0 ? HUGE_VAL : std::nan("");
  else
    magnitude = std::ldexp(double(mantissa | 0x400), exponent - 25);
  return sign ? -magnitude : magnitude;
}

QString shapeText(const std::vector<std::uint64_t>& shape) {
  QStringList parts;
  for (std::uint64_t s : shape)
    parts << QString::number(s);
  return QLatin1Char('(') + parts.join(QStringLiteral(", ")) +
         (shape.size() == 1 ? QStringLiteral(",)") : QStringLiteral(")"));
}

template <typename T>
T readElement(const char* p, bool bigEndian) {
  return bigEndian ? qFromBigEndian<T>(p) : qFromLittleEndian<T>(p);
}

}  // namespace

DatasetPtr loadNpy(const QString& path, const LoadOptions& options) {
  const InputFile file(path);
  const Progress progress(file, options);
  const std::string_view bytes = file.bytes();
  if (!bytes.starts_with(kMagic)) file.fail(QStringLiteral("not a .npy file (bad magic)"));
  if (bytes.size() < 10) file.fail(QStringLiteral(".npy header is truncated"));
  const int major = static_cast<unsigned char>(bytes[6]);
  const int minor = static_cast<unsigned char>(bytes[7]);
  if (major < 1 || major > 3)
    file.fail(QStringLiteral(".npy format version %1.%2 is not supported").arg(major).arg(minor));
  // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4.
  const std::size_t lengthBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lengthBytes) file.fail(QStringLiteral(".npy header is truncated"));
  const std::uint64_t headerLength = major == 1 ? qFromLittleEndian<quint16>(bytes.data() + 8)
                                                : qFromLittleEndian<quint32>(bytes.data() + 8);
  const std::size_t dataOffset = 8 + lengthBytes + headerLength;
  if (dataOffset > bytes.size()) file.fail(QStringLiteral(".npy header is truncated"));

  const NpyHeader header = HeaderParser(file, bytes.substr(8 + lengthBytes, headerLength)).parse();
  if (!header.hasDescr || !header.hasFortranOrder || !header.hasShape)
    file.fail(
        QStringLiteral("malformed .npy header: 'descr', 'fortran_order' and 'shape' are required"));
  const DType dtype = parseDType(file, header);
  if (header.fortranOrder)
    file.fail(
        QStringLiteral("Fortran-ordered arrays are not supported; save a C-ordered array "
                       "(numpy.ascontiguousarray)"));
  if (header.shape.empty() || header.shape.size() > 2)
    file.fail(QStringLiteral("shape %1 is not supported; expected (n, d) or (n,)")
                  .arg(shapeText(header.shape)));
  const std::uint64_t n = header.shape[0];
  const std::uint64_t d = header.shape.size() == 2 ? header.shape[1] : 1;
  // A share of the file is held to the limit, not the whole file (a rank reads only its rows).
  requireValueCount(file, n, d,
                    options.rowShare ? std::numeric_limits<std::size_t>::max() : options.maxValues);
  if (d > std::uint64_t(INT32_MAX)) file.fail(QStringLiteral("too many dimensions"));
  if (n * d > UINT64_MAX / dtype.bytes)  // n × d itself was checked above
    file.fail(QStringLiteral("shape %1 is too large").arg(shapeText(header.shape)));
  requireDataSize(file, QStringLiteral("array data for shape %1").arg(shapeText(header.shape)),
                  std::uint64_t(n * d) * dtype.bytes, bytes.size() - dataOffset);
  const auto [first, last] = rowsToRead(options, std::size_t(n));  // a share, or every row
  if (options.rowShare) requireValueCount(file, last - first, d, options.maxValues);
  requireMemoryFor(file, last - first, d);

  const std::size_t count = std::size_t((last - first) * d);
  std::vector<float> values(count);
  const char* data = bytes.data() + dataOffset + first * d * dtype.bytes;
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  for (std::size_t start = 0; start < count; start += kChunk) {
    const std::size_t end = std::min(count, start + kChunk);
    for (std::size_t i = start; i < end; ++i) {
      const char* p = data + i * dtype.bytes;
      const double value = dtype.bytes == 4 ? double(readElement<float>(p, dtype.bigEndian))
                           : dtype.bytes == 8
                               ? readElement<double>(p, dtype.bigEndian)
                               : halfToDouble(readElement<quint16>(p, dtype.bigEndian));
      if (!fitsFloat(value))
        file.fail(pointLocation(first + i / d, i % d) + QStringLiteral(": ") +
                  coordinateProblem(value));
      values[i] = float(value);
    }
    progress.update(double(end) / double(count));
  }
  auto dataset = makePointDataset(file, last - first, int(d), std::move(values));
  if (options.rowShare) {
    dataset->firstRow = first;
    dataset->fileRows = std::size_t(n);
  }
  // The engine works in float32: say what the file held.
  if (dtype.bytes == 2)
    dataset->notes << QStringLiteral("float16 values, read exactly as float32");
  else if (dtype.bytes == 8)
    dataset->notes << QStringLiteral("float64 values, rounded to float32 once when read");
  return dataset;
}

}  // namespace kms::app::io
