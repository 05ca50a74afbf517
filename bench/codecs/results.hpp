// One measured configuration, and its CSV form. bench/codecs/peers.py writes the same columns,
// so report.py can merge both files.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>

namespace commpress::bench {

struct Row {
  std::string source;      // commpress | reference (peers.py writes "peer")
  std::string codec;
  std::string dataset;
  std::string dtype;
  size_t n = 0;            // values in the data set
  size_t n_used = 0;       // values measured: a prefix when the whole would take too long
  std::string layout = "1-D";  // the shape the codec was given
  std::string mode = "lossless";  // lossless | rel
  double rel = 0;          // requested REL fraction (0 when lossless)
  double abs_bound = 0;    // absolute bound the frame guarantees (0 when lossless)
  int threads = 1;
  int repeats_c = 0;       // timed compress runs behind the median (after one warm-up)
  int repeats_d = 0;
  size_t bytes_in = 0;
  size_t bytes_out = 0;
  double compress_s = 0;   // median seconds
  double decompress_s = 0;
  double max_abs_err = 0;
  std::string check = "ok";  // ok | VIOLATION (bound or exactness broken) | error
  std::string note;
  double elapsed_s = 0;    // wall time of the whole measurement (warm-up and probes included)
};

void write_csv_header(std::ostream& out);
void write_csv_row(std::ostream& out, const Row& r);

}  // namespace commpress::bench
