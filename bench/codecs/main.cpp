// bench_codecs: every registered codec on the benchmark data sets, at 1 and 2 threads.
// The driver bench/codecs/run generates the data, runs this and the Python peers, and
// renders the tables; see usage() for running it by hand.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <tuple>

#include "codecs/datasets.hpp"
#include "codecs/homomorphic.hpp"
#include "codecs/measure.hpp"
#include "codecs/options.hpp"
#include "codecs/timing.hpp"

namespace commpress::bench {
namespace {

int fail(const Status& st) {
  std::fprintf(stderr, "bench_codecs: %s\n", st.to_string().c_str());
  return 2;
}

int cmd_gen(const Options& o) {
  if (datasets_up_to_date(o.data_dir, o.n)) {
    std::fprintf(stderr, "bench_codecs: %s already holds the data sets at %zu values\n",
                 o.data_dir.c_str(), o.n);
    return 0;
  }
  std::vector<Dataset> sets;
  for (const std::string& name : dataset_names()) {
    auto d = generate_dataset(name, o.n);
    if (!d.ok()) return fail(d.status());
    sets.push_back(std::move(*d));
  }
  Status st = write_datasets(sets, o.data_dir);
  if (!st.ok()) return fail(st);
  std::fprintf(stderr, "bench_codecs: wrote %zu data sets of %zu values to %s\n", sets.size(),
               o.n, o.data_dir.c_str());
  return 0;
}

int cmd_list() {
  std::printf("name,id,lossy,f32,f64,description\n");
  for (const codec::Codec* c : codec::list_codecs())
    std::printf("%s,%d,%d,%d,%d,%s\n", std::string(c->name()).c_str(), int(c->id()), c->lossy(),
                c->supports(codec::Dtype::f32), c->supports(codec::Dtype::f64),
                std::string(c->description()).c_str());
  return 0;
}

int cmd_info() {
  std::printf("compiler: %s\nflags: %s\nopenmp_max_threads: %d\n", COMMPRESS_BENCH_COMPILER,
              COMMPRESS_BENCH_FLAGS, omp_get_max_threads());
  return 0;
}

struct Selected {
  const codec::Codec* c;
  bool shaped;  // given the data set's shape ("name:nd")
};

Result<std::vector<Selected>> selected_codecs(const Options& o) {
  std::vector<Selected> out;
  if (o.codecs.empty()) {
    for (const codec::Codec* c : codec::list_codecs()) out.push_back({c, false});
    return out;
  }
  const std::string suffix = kShapedSuffix;
  for (const std::string& name : o.codecs) {
    const bool shaped = name.size() > suffix.size() &&
                        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    auto c = codec::get_codec(shaped ? name.substr(0, name.size() - suffix.size()) : name);
    if (!c.ok()) return c.status();
    out.push_back({*c, shaped});
  }
  return out;
}

struct Job {
  const Dataset* d;
  const codec::Codec* c;  // nullptr: the memcpy reference
  double rel;
  int threads;
  bool shaped = false;
};

std::vector<Job> plan(const std::vector<Dataset>& sets, const std::vector<Selected>& codecs,
                      const Options& o) {
  std::vector<Job> jobs;
  for (const Dataset& d : sets) {
    for (int t : o.threads) jobs.push_back({&d, nullptr, 0, t});
    for (const Selected& s : codecs) {
      const codec::Codec* c = s.c;
      if (!c->supports(d.dtype)) continue;
      std::vector<double> rels = c->lossy() ? o.rels : std::vector<double>{0.0};
      for (double rel : rels)
        for (int t : o.threads) jobs.push_back({&d, c, rel, t, s.shaped});
    }
  }
  return jobs;
}

void print_progress(size_t i, size_t total, const Row& r) {
  double ratio = r.bytes_out ? double(r.bytes_in) / double(r.bytes_out) : 0;
  auto gbps = [&](double s) { return s > 0 ? double(r.bytes_in) / s / 1e9 : 0.0; };
  char bound[32] = "lossless";
  if (r.mode == "rel") std::snprintf(bound, sizeof bound, "rel %g", r.rel);
  std::fprintf(stderr, "[%zu/%zu] %-24s %-15s %-8s %dT ratio %8.3f  c %7.3f GB/s  d %7.3f GB/s  "
                       "err %.3g <= %.3g  %s (%.1f s)%s%s\n",
               i, total, r.codec.c_str(), r.dataset.c_str(), bound, r.threads, ratio,
               gbps(r.compress_s), gbps(r.decompress_s), r.max_abs_err, r.abs_bound,
               r.check.c_str(), r.elapsed_s, r.note.empty() ? "" : "  ", r.note.c_str());
}

int run_codecs(const std::vector<Dataset>& sets, const Options& o, std::ostream& csv) {
  auto codecs = selected_codecs(o);
  if (!codecs.ok()) return fail(codecs.status());
  MeasureConfig cfg{o.repeats, o.budget_seconds, o.subset_seconds};
  Buffers buffers;
  std::vector<Job> jobs = plan(sets, *codecs, o);
  write_csv_header(csv);
  std::vector<std::string> problems;
  std::map<std::tuple<const codec::Codec*, bool, const Dataset*, double>, size_t> subset;
  auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& j = jobs[i];
    auto job_start = std::chrono::steady_clock::now();
    Row r;
    if (j.c) {
      size_t& n_used = subset[{j.c, j.shaped, j.d, j.rel}];
      r = measure_codec(*j.c, *j.d, j.rel, j.threads, n_used, cfg, buffers, j.shaped);
      if (r.check != "error") n_used = r.n_used;
    } else {
      r = measure_memcpy(*j.d, j.threads, cfg, buffers);
    }
    r.elapsed_s = seconds_since(job_start);
    write_csv_row(csv, r);
    print_progress(i + 1, jobs.size(), r);
    if (r.check != "ok")
      problems.push_back(r.check + ": " + r.codec + " on " + r.dataset + " (" + r.mode + " " +
                         std::to_string(r.rel) + ", " + std::to_string(r.threads) + "T): " + r.note);
  }
  std::fprintf(stderr, "bench_codecs: %zu measurements in %.0f s\n", jobs.size(),
               seconds_since(start));
  if (problems.empty()) return 0;
  std::fprintf(stderr, "\n!!!!!!!! bench_codecs: %zu PROBLEM(S) !!!!!!!!\n", problems.size());
  for (const std::string& p : problems) std::fprintf(stderr, "!!! %s\n", p.c_str());
  return 1;
}

int cmd_run(const Options& o) {
  if (o.section == "homomorphic" && !homomorphic_unavailable_reason().empty()) {
    std::fprintf(stderr, "bench_codecs: homomorphic section skipped: %s\n",
                 homomorphic_unavailable_reason().c_str());
    return 0;
  }
  auto sets = read_datasets(o.data_dir, o.datasets);
  if (!sets.ok()) return fail(sets.status());
  std::ofstream file;
  if (o.out != "-") {
    file.open(o.out, std::ios::trunc);
    if (!file) return fail({ErrorCode::io, "cannot write " + o.out.string()});
  }
  std::ostream& csv = o.out == "-" ? std::cout : file;
  if (o.section == "homomorphic") {
    int r = run_homomorphic(*sets, o, csv);
    if (r == 1) std::fprintf(stderr, "\n!!!!!!!! bench_codecs: homomorphic BOUND VIOLATION(S) !!!!!!!!\n");
    return r;
  }
  return run_codecs(*sets, o, csv);
}

}  // namespace
}  // namespace commpress::bench

int main(int argc, char** argv) {
  using namespace commpress::bench;
  auto o = parse_options(argc, argv);
  if (!o.ok()) {
    std::fprintf(stderr, "bench_codecs: %s\n", o.status().message().c_str());
    return 2;
  }
  if (o->command == "gen") return cmd_gen(*o);
  if (o->command == "list") return cmd_list();
  if (o->command == "info") return cmd_info();
  return cmd_run(*o);
}
