// Raw data files and their manifest. The files hold the values in the machine's byte order
// (little-endian on every platform this runs on), with no header, so numpy.fromfile reads them.
#include <algorithm>
#include <fstream>

#include "codecs/datasets.hpp"

namespace commpress::bench {
namespace fs = std::filesystem;
namespace {

constexpr const char* kManifest = "datasets.csv";
constexpr const char* kColumns = "name,dtype,count,shape,file,generator_version,description";

struct ManifestRow {
  std::string name, dtype, shape, file, description;
  size_t count = 0;
  int version = 0;
};

std::vector<std::string> split(const std::string& line, char sep, size_t max_fields) {
  std::vector<std::string> out;
  size_t start = 0;
  while (out.size() + 1 < max_fields) {
    size_t pos = line.find(sep, start);
    if (pos == std::string::npos) break;
    out.push_back(line.substr(start, pos - start));
    start = pos + 1;
  }
  out.push_back(line.substr(start));
  return out;
}

Result<std::vector<ManifestRow>> read_manifest(const fs::path& dir) {
  std::ifstream in(dir / kManifest);
  if (!in) return Status{ErrorCode::io, "cannot open " + (dir / kManifest).string()};
  std::string line;
  std::getline(in, line);
  if (line != kColumns)
    return Status{ErrorCode::corrupt_frame, (dir / kManifest).string() + ": unexpected header"};
  std::vector<ManifestRow> rows;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto f = split(line, ',', 7);  // the description may contain commas: it is last and quoted
    if (f.size() != 7)
      return Status{ErrorCode::corrupt_frame, (dir / kManifest).string() + ": bad line: " + line};
    ManifestRow r;
    r.name = f[0];
    r.dtype = f[1];
    r.shape = f[3];
    r.file = f[4];
    r.description = f[6].size() >= 2 ? f[6].substr(1, f[6].size() - 2) : f[6];
    try {
      r.count = std::stoull(f[2]);
      r.version = std::stoi(f[5]);
    } catch (...) {
      return Status{ErrorCode::corrupt_frame, (dir / kManifest).string() + ": bad number: " + line};
    }
    rows.push_back(r);
  }
  return rows;
}

Status read_values(const fs::path& path, void* out, size_t bytes) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec || size != bytes)
    return {ErrorCode::io, path.string() + " should hold " + std::to_string(bytes) + " bytes"};
  std::ifstream in(path, std::ios::binary);
  if (!in.read(static_cast<char*>(out), std::streamsize(bytes)))
    return {ErrorCode::io, "cannot read " + path.string()};
  return {};
}

}  // namespace

Status write_datasets(const std::vector<Dataset>& sets, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return {ErrorCode::io, "cannot create " + dir.string() + ": " + ec.message()};
  for (const Dataset& d : sets) {
    std::ofstream out(dir / d.file_name(), std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char*>(d.data()), std::streamsize(d.bytes()));
    if (!out) return {ErrorCode::io, "cannot write " + (dir / d.file_name()).string()};
  }
  // The manifest goes last: its presence means the files beside it are complete.
  std::ofstream m(dir / kManifest, std::ios::trunc);
  m << kColumns << "\n";
  for (const Dataset& d : sets)
    m << d.name << ',' << codec::dtype_name(d.dtype) << ',' << d.count() << ','
      << d.shape_string() << ',' << d.file_name() << ',' << kGeneratorVersion << ",\""
      << d.description << "\"\n";
  if (!m) return {ErrorCode::io, "cannot write " + (dir / kManifest).string()};
  return {};
}

bool datasets_up_to_date(const fs::path& dir, size_t n) {
  auto rows = read_manifest(dir);
  if (!rows.ok() || rows->size() != dataset_names().size()) return false;
  for (size_t i = 0; i < rows->size(); ++i) {
    const ManifestRow& r = (*rows)[i];
    std::error_code ec;
    size_t elem = r.dtype == "f64" ? 8 : 4;
    if (r.name != dataset_names()[i] || r.count != n || r.version != kGeneratorVersion ||
        fs::file_size(dir / r.file, ec) != n * elem || ec)
      return false;
  }
  return true;
}

Result<std::vector<Dataset>> read_datasets(const fs::path& dir,
                                           const std::vector<std::string>& only) {
  auto rows = read_manifest(dir);
  if (!rows.ok()) return rows.status();
  std::vector<Dataset> sets;
  for (const ManifestRow& r : *rows) {
    if (!only.empty() && std::find(only.begin(), only.end(), r.name) == only.end()) continue;
    auto dtype = codec::parse_dtype(r.dtype);
    if (!dtype.ok()) return dtype.status();
    if (!codec::is_float(*dtype))
      return Status{ErrorCode::unsupported, r.name + ": the benchmark takes f32 or f64 data"};
    Dataset d;
    d.name = r.name;
    d.dtype = *dtype;
    d.description = r.description;
    size_t product = 1;
    for (const std::string& s : split(r.shape, 'x', 8)) {
      size_t dim = 0;
      try {
        dim = std::stoull(s);
      } catch (...) {
      }
      d.shape.push_back(dim);
      product *= dim;
    }
    if (product != r.count)
      return Status{ErrorCode::corrupt_frame, r.name + ": shape " + r.shape + " does not hold " +
                                                  std::to_string(r.count) + " values"};
    if (d.dtype == codec::Dtype::f32) d.f32.resize(r.count);
    else d.f64.resize(r.count);
    COMMPRESS_RETURN_IF_ERROR(read_values(dir / r.file, d.mutable_data(), d.bytes()));
    sets.push_back(std::move(d));
  }
  for (const std::string& name : only) {
    bool found = false;
    for (const Dataset& d : sets) found = found || d.name == name;
    if (!found) return Status{ErrorCode::invalid_argument, "no data set '" + name + "' in " + dir.string()};
  }
  return sets;
}

}  // namespace commpress::bench
