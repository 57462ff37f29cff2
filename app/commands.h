// The subcommands. main.cpp holds the table {name, description, add}; each
// `add` function declares its command's options on the CLI11 subcommand and
// returns the action main runs after parsing (its result is the exit code).
// Actions throw pt::InputError / SettingsError / InfeasibleError; main turns
// them into exit codes once.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace pt::app {

using Action = std::function<int()>;

struct Command {
  std::string_view name;
  std::string_view description;  // one line, shown in the command list and atop its --help
  Action (*add)(CLI::App& sub);
};

Action add_inspect_command(CLI::App& sub);  // cmd_inspect.cpp
Action add_convert_command(CLI::App& sub);  // cmd_convert.cpp
Action add_generate_command(CLI::App& sub); // cmd_generate.cpp
Action add_flow_command(CLI::App& sub);     // cmd_flow.cpp
Action add_explain_command(CLI::App& sub);  // cmd_explain.cpp
Action add_diff_command(CLI::App& sub);     // cmd_diff.cpp
Action add_sweep_command(CLI::App& sub);    // cmd_sweep.cpp
Action add_dot_command(CLI::App& sub);      // cmd_dot.cpp

// When the first argument looks like a mistyped command name (no option, no
// file, near a name of `commands`): "unknown command 'X' (did you mean
// 'Y'?)". Else "". (main_options.cpp)
std::string mistyped_command(int argc, char** argv, std::span<const Command> commands);

}  // namespace pt::app
