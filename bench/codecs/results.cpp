#include "codecs/results.hpp"

#include <cstdio>

namespace commpress::bench {
namespace {

std::string num(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

// Notes are free text; keep them one CSV field.
std::string field(std::string s) {
  for (char& c : s)
    if (c == ',' || c == '\n' || c == '"') c = ';';
  return s;
}

double gbps(size_t bytes, double s) { return s > 0 ? double(bytes) / s / 1e9 : 0.0; }

}  // namespace

void write_csv_header(std::ostream& out) {
  out << "source,codec,dataset,dtype,n,n_used,layout,mode,rel,abs_bound,threads,repeats_c,"
         "repeats_d,bytes_in,bytes_out,ratio,compress_gbps,decompress_gbps,max_abs_err,check,"
         "note,elapsed_s\n";
}

void write_csv_row(std::ostream& out, const Row& r) {
  double ratio = r.bytes_out ? double(r.bytes_in) / double(r.bytes_out) : 0.0;
  out << r.source << ',' << field(r.codec) << ',' << r.dataset << ',' << r.dtype << ',' << r.n
      << ',' << r.n_used << ',' << r.layout << ',' << r.mode << ',' << num("%.6g", r.rel) << ','
      << num("%.17g", r.abs_bound) << ',' << r.threads << ',' << r.repeats_c << ','
      << r.repeats_d << ',' << r.bytes_in << ',' << r.bytes_out << ',' << num("%.6f", ratio)
      << ',' << num("%.6g", gbps(r.bytes_in, r.compress_s)) << ','
      << num("%.6g", gbps(r.bytes_in, r.decompress_s)) << ',' << num("%.9g", r.max_abs_err)
      << ',' << r.check << ',' << field(r.note) << ',' << num("%.3f", r.elapsed_s) << '\n';
  out.flush();
}

}  // namespace commpress::bench
