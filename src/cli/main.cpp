// `commpress`: the command-line face of the library. Every failure ends as one line on
// stderr and a non-zero exit status; nothing is thrown past main.
#include <csignal>
#include <cstdio>
#include <exception>
#include <string>

#include "cli/commands.hpp"
#include "commpress/config.h"

namespace {

using GroupRegistrar = void (*)(CLI::App&, commpress::cli::Outcome&);

constexpr GroupRegistrar kCommandGroups[] = {
    commpress::cli::add_codec_commands,
    commpress::cli::add_profile_command,
#if COMMPRESS_HAVE_GEMM
    commpress::cli::add_blas_command,
#endif
    commpress::cli::add_bench_commands,
    commpress::cli::add_plan_collective_commands,
#if COMMPRESS_HAVE_GEMM
    commpress::cli::add_bench_gemm_command,  // after the bench group it joins
    commpress::cli::add_plan_gemm_command,
#endif
};

void print_error(const std::string& message) {
  std::fprintf(stderr, "commpress: error: %s\n", message.c_str());
}

int run(int argc, char** argv) {
  CLI::App app{"commpress: error-bounded compression of numeric arrays", "commpress"};
  app.require_subcommand(1);
  app.failure_message([](const CLI::App*, const CLI::Error& e) {
    return "commpress: error: " + std::string(e.what()) + "\n";
  });
  commpress::cli::Outcome outcome;
  for (GroupRegistrar add_group : kCommandGroups) add_group(app, outcome);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // Help and version requests exit 0; every usage error exits 2, like most Unix tools.
    return app.exit(e) == 0 ? 0 : 2;
  }
  if (!outcome.status.ok()) {
    print_error(outcome.status.to_string());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Past a file-size limit a write then fails with EFBIG, which the writers report and clean
  // up after, instead of the signal killing the process with a partial file left behind.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    return run(argc, argv);
  } catch (const std::bad_alloc&) {
    print_error("out of memory");
  } catch (const std::exception& e) {
    print_error(e.what());
  }
  return 1;
}
