#include "io/ply_loader.h"

#include <QtEndian>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <vector>

#include "core/format.h"
#include "io/load_support.h"

namespace kms::app::io {
namespace {

enum class PlyFormat { Ascii, BinaryLittleEndian, BinaryBigEndian };
enum class PlyType { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

struct PlyProperty {
  QString name;
  PlyType type = PlyType::Float32;  ///< the item type for a list
  bool isList = false;
  PlyType countType = PlyType::UInt8;  ///< lists only
};

struct PlyElement {
  QString name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

struct PlyHeader {
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  std::size_t dataOffset = 0;
};

std::optional<PlyType> parseType(const QString& name) {
  static const std::array<std::pair<const char*, PlyType>, 16> kTypes = {{
      {"char", PlyType::Int8},
      {"int8", PlyType::Int8},
      {"uchar", PlyType::UInt8},
      {"uint8", PlyType::UInt8},
      {"short", PlyType::Int16},
      {"int16", PlyType::Int16},
      {"ushort", PlyType::UInt16},
      {"uint16", PlyType::UInt16},
      {"int", PlyType::Int32},
      {"int32", PlyType::Int32},
      {"uint", PlyType::UInt32},
      {"uint32", PlyType::UInt32},
      {"float", PlyType::Float32},
      {"float32", PlyType::Float32},
      {"double", PlyType::Float64},
      {"float64", PlyType::Float64},
  }};
  for (const auto& [text, type] : kTypes)
    if (name == QLatin1String(text)) return type;
  return std::nullopt;
}

std::size_t sizeOf(PlyType type) {
  switch (type) {
    case PlyType::Int8:
    case PlyType::UInt8:
      return 1;
    case PlyType::Int16:
    case PlyType::UInt16:
      return 2;
    case PlyType::Int32:
    case PlyType::UInt32:
    case PlyType::Float32:
      return 4;
    case PlyType::Float64:
      return 8;
  }
  return 0;
}

bool isFloatType(PlyType type) {
  return type == PlyType::Float32 || type == PlyType::Float64;
}

[[noreturn]] void headerError(const InputFile& file, qsizetype line, const QString& problem) {
  file.fail(QStringLiteral("PLY header line %1: %2").arg(line).arg(problem));
}

PlyHeader parseHeader(const InputFile& file) {
  const std::string_view bytes = file.bytes();
  if (!bytes.starts_with("ply\n") && !bytes.starts_with("ply\r\n"))
    file.fail(QStringLiteral("not a PLY file (it does not start with 'ply')"));
  const std::size_t marker = bytes.find("end_header");
  const std::size_t lineEnd = marker == std::string_view::npos ? marker : bytes.find('\n', marker);
  if (lineEnd == std::string_view::npos)
    file.fail(QStringLiteral("PLY header has no end_header line"));

  PlyHeader header;
  header.dataOffset = lineEnd + 1;
  const QStringList lines = QString::fromLatin1(bytes.data(), qsizetype(marker)).split(u'\n');
  bool hasFormat = false;
  for (qsizetype i = 1; i < lines.size(); ++i) {
    const QStringList words = lines[i].simplified().split(u' ', Qt::SkipEmptyParts);
    if (words.isEmpty() || words[0] == u"comment" || words[0] == u"obj_info") continue;
    if (words[0] == u"format") {
      if (words.size() != 3 || words[2] != u"1.0")
        headerError(file, i + 1, QStringLiteral("expected 'format <type> 1.0'"));
      if (words[1] == u"ascii")
        header.format = PlyFormat::Ascii;
      else if (words[1] == u"binary_little_endian")
        header.format = PlyFormat::BinaryLittleEndian;
      else if (words[1] == u"binary_big_endian")
        header.format = PlyFormat::BinaryBigEndian;
      else
        headerError(file, i + 1, QStringLiteral("unknown format '%1'").arg(words[1]));
      hasFormat = true;
    } else if (words[0] == u"element") {
      bool ok = false;
      const std::uint64_t count = words.size() == 3 ? words[2].toULongLong(&ok) : 0;
      if (!ok) headerError(file, i + 1, QStringLiteral("expected 'element <name> <count>'"));
      header.elements.push_back({words[1], count, {}});
    } else if (words[0] == u"property") {
      if (header.elements.empty())
        headerError(file, i + 1, QStringLiteral("property before any element"));
      PlyProperty property;
      property.isList = words.size() == 5 && words[1] == u"list";
      if (!property.isList && words.size() != 3)
        headerError(file, i + 1, QStringLiteral("malformed property line"));
      const auto countType = property.isList ? parseType(words[2]) : PlyType::UInt8;
      const auto type = parseType(words[words.size() - 2]);
      if (!type || !countType) headerError(file, i + 1, QStringLiteral("unknown property type"));
      if (property.isList && isFloatType(*countType))
        headerError(file, i + 1, QStringLiteral("list count must be an integer type"));
      property.type = *type;
      property.countType = *countType;
      property.name = words.back();
      header.elements.back().properties.push_back(property);
    } else {
      headerError(file, i + 1, QStringLiteral("unknown keyword '%1'").arg(words[0]));
    }
  }
  if (!hasFormat) file.fail(QStringLiteral("PLY header has no format line"));
  return header;
}

/// Which value is being read ("vertex 12, property y"); turned into text only for a message.
struct Place {
  const PlyElement& element;
  std::uint64_t index;  ///< 0-based instance
  const PlyProperty& property;
  QString text() const {
    return QStringLiteral("%1 %2, property %3").arg(element.name).arg(index + 1).arg(property.name);
  }
};

/// Reads property values one after the other from the data part, in the file's format, and says
/// where in the file it is when something is wrong.
class PlyDataReader {
 public:
  PlyDataReader(const InputFile& file, PlyFormat format, std::size_t offset)
      : file_(file), format_(format), pos_(offset) {}

  /// The next value of `type`; fails naming `place` when the data ends or a token is not a number.
  double read(PlyType type, const Place& place) {
    if (format_ == PlyFormat::Ascii) return readToken(place);
    const std::size_t size = sizeOf(type);
    if (file_.size() - pos_ < size)
      file_.fail(place.text() + QStringLiteral(": the file ends early"));
    const char* p = file_.bytes().data() + pos_;
    pos_ += size;
    const bool big = format_ == PlyFormat::BinaryBigEndian;
    switch (type) {
      case PlyType::Int8:
        return double(qint8(*p));
      case PlyType::UInt8:
        return double(quint8(*p));
      case PlyType::Int16:
        return big ? qFromBigEndian<qint16>(p) : qFromLittleEndian<qint16>(p);
      case PlyType::UInt16:
        return big ? qFromBigEndian<quint16>(p) : qFromLittleEndian<quint16>(p);
      case PlyType::Int32:
        return big ? qFromBigEndian<qint32>(p) : qFromLittleEndian<qint32>(p);
      case PlyType::UInt32:
        return big ? qFromBigEndian<quint32>(p) : qFromLittleEndian<quint32>(p);
      case PlyType::Float32:
        return big ? qFromBigEndian<float>(p) : qFromLittleEndian<float>(p);
      case PlyType::Float64:
        return big ? qFromBigEndian<double>(p) : qFromLittleEndian<double>(p);
    }
    return 0.0;
  }

  /// Reads a list's length and skips its items.
  void skipList(const Place& place) {
    const double length = read(place.property.countType, place);
    if (length < 0) file_.fail(place.text() + QStringLiteral(": negative list length"));
    // A length beyond 2^64 (found by fuzzing) must not reach the integer conversion; one beyond
    // the file's size cannot be there either (shorter ones read on and say where the file ends).
    if (!(length <= double(file_.size())) || length != std::floor(length))
      file_.fail(place.text() +
                 QStringLiteral(": list length %1 does not fit the file").arg(length, 0, 'g', 17));
    for (std::uint64_t i = 0; i < std::uint64_t(length); ++i)
      read(place.property.type, place);
  }

  std::size_t remaining() const { return file_.size() - pos_; }
  double fractionRead() const { return double(pos_) / double(file_.size()); }

 private:
  double readToken(const Place& place) {
    const std::string_view bytes = file_.bytes();
    while (pos_ < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[pos_])))
      ++pos_;
    const std::size_t start = pos_;
    while (pos_ < bytes.size() && !std::isspace(static_cast<unsigned char>(bytes[pos_])))
      ++pos_;
    if (pos_ == start) file_.fail(place.text() + QStringLiteral(": the file ends early"));
    const std::string_view token = bytes.substr(start, pos_ - start);
    const std::optional<double> value = parseNumber(token);
    if (!value)
      file_.fail(place.text() +
                 QStringLiteral(": '%1' is not a number")
                     .arg(QString::fromUtf8(token.data(),
                                            qsizetype(std::min<std::size_t>(token.size(), 24)))));
    return *value;
  }

  const InputFile& file_;
  PlyFormat format_;
  std::size_t pos_;
};

/// Fewest bytes one instance of `element` can take: every scalar and list length present (in
/// ascii, at least one character each). Bounds the element count by the file size before any
/// allocation.
std::size_t minimumInstanceBytes(const PlyElement& element, PlyFormat format) {
  std::size_t bytes = 0;
  for (const PlyProperty& p : element.properties)
    bytes += format == PlyFormat::Ascii ? 1 : sizeOf(p.isList ? p.countType : p.type);
  return std::max<std::size_t>(bytes, 1);
}

void skipElement(PlyDataReader& reader, const PlyElement& element) {
  if (element.properties.empty()) return;  // nothing to read, whatever the count says
  for (std::uint64_t i = 0; i < element.count; ++i)
    for (const PlyProperty& p : element.properties) {
      if (p.isList)
        reader.skipList({element, i, p});
      else
        reader.read(p.type, {element, i, p});
    }
}

/// Index of the property called one of `names` (non-list), or -1.
int findProperty(const PlyElement& element, std::initializer_list<const char*> names) {
  for (std::size_t i = 0; i < element.properties.size(); ++i)
    for (const char* name : names)
      if (!element.properties[i].isList && element.properties[i].name == QLatin1String(name))
        return int(i);
  return -1;
}

std::uint32_t colourChannel(double value, PlyType type) {
  // Integer colours are 0..255; floating-point colours are 0..1 by convention.
  const double scaled = isFloatType(type) ? value * 255.0 : value;
  if (!std::isfinite(scaled)) return 0;  // a broken colour is not worth rejecting the cloud
  return std::uint32_t(std::clamp(std::lround(scaled), 0L, 255L));
}

}  // namespace

DatasetPtr loadPly(const QString& path, const LoadOptions& options) {
  const InputFile file(path);
  const Progress progress(file, options);
  const PlyHeader header = parseHeader(file);
  const auto vertexIt = std::find_if(header.elements.begin(), header.elements.end(),
                                     [](const PlyElement& e) { return e.name == u"vertex"; });
  if (vertexIt == header.elements.end())
    file.fail(QStringLiteral("PLY file has no vertex element"));
  const PlyElement& vertex = *vertexIt;

  std::vector<int> axes;
  for (const char* axis : {"x", "y", "z"})
    if (const int index = findProperty(vertex, {axis}); index >= 0) axes.push_back(index);
  if (findProperty(vertex, {"x"}) < 0 || findProperty(vertex, {"y"}) < 0)
    file.fail(QStringLiteral("PLY vertex element has no x and y properties"));
  const std::array<int, 3> colour = {findProperty(vertex, {"red", "diffuse_red"}),
                                     findProperty(vertex, {"green", "diffuse_green"}),
                                     findProperty(vertex, {"blue", "diffuse_blue"})};
  const bool hasColour = std::all_of(colour.begin(), colour.end(), [](int i) { return i >= 0; });

  PlyDataReader reader(file, header.format, header.dataOffset);
  for (auto it = header.elements.begin(); it != vertexIt; ++it)
    skipElement(reader, *it);

  const std::size_t d = axes.size();
  requireValueCount(file, vertex.count, d, options.maxValues);
  const std::size_t minimumBytes = minimumInstanceBytes(vertex, header.format);
  if (vertex.count > reader.remaining() / minimumBytes) {
    if (header.format == PlyFormat::Ascii)
      file.fail(QStringLiteral("header announces %1 vertices but the file is too short for them")
                    .arg(groupedCount(vertex.count)));
    file.fail(
        QStringLiteral("expected at least %1 bytes of vertex data, file has %2")
            .arg(groupedCount(vertex.count * minimumBytes), groupedCount(reader.remaining())));
  }
  requireMemoryFor(file, vertex.count, d);

  const std::size_t n = std::size_t(vertex.count);
  std::vector<float> values(n * d);
  std::vector<std::uint32_t> colours(hasColour ? n : 0);
  std::vector<double> row(vertex.properties.size());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t p = 0; p < vertex.properties.size(); ++p) {
      const PlyProperty& property = vertex.properties[p];
      if (property.isList)
        reader.skipList({vertex, i, property});
      else
        row[p] = reader.read(property.type, {vertex, i, property});
    }
    for (std::size_t j = 0; j < d; ++j) {
      const PlyProperty& property = vertex.properties[std::size_t(axes[j])];
      const double value = row[std::size_t(axes[j])];
      if (!fitsFloat(value))
        file.fail(Place{vertex, i, property}.text() + QStringLiteral(": ") +
                  coordinateProblem(value));
      values[i * d + j] = float(value);
    }
    if (hasColour) {
      std::uint32_t rgb = 0;
      for (int c : colour)
        rgb =
            (rgb << 8) | colourChannel(row[std::size_t(c)], vertex.properties[std::size_t(c)].type);
      colours[i] = rgb;
    }
    if ((i + 1) % 16384 == 0) progress.update(reader.fractionRead());
  }
  progress.update(1.0);

  QStringList names;
  for (int axis : axes)
    names << vertex.properties[std::size_t(axis)].name;
  auto dataset = makePointDataset(file, n, int(d), std::move(values), names);
  dataset->pointColours = std::move(colours);
  return dataset;
}

}  // namespace kms::app::io
