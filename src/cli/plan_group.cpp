#include "cli/commands.hpp"

namespace commpress::cli {

CLI::App* plan_group(CLI::App& app) {
  auto found = app.get_subcommands([](CLI::App* s) { return s->get_name() == "plan"; });
  if (!found.empty()) return found.front();
  CLI::App* group = app.add_subcommand(
      "plan", "print what commpress would run for a call (its plan), without running it");
  group->require_subcommand(1);
  return group;
}

}  // namespace commpress::cli
