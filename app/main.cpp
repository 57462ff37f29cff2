// partition_tool: the command-line front end. Builds the CLI11 app from a
// table of subcommands plus the main command, sets up logging (spdlog, to
// stderr only: stdout carries results), and turns errors into exit codes in
// one place:
//   0 ok; 2 bad input, settings or command line, or out of memory;
//   3 infeasible; 4 internal.
// Every line on stderr passes through VisibleStderrSink: no control
// character from a graph, a path or a setting value reaches the terminal.
#include <cstdio>
#include <deque>
#include <exception>
#include <new>
#include <string_view>
#include <iostream>
#include <sstream>
#include <system_error>

#include <CLI/CLI.hpp>
#include <google/protobuf/stubs/logging.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include "cmd_partition.h"
#include "commands.h"
#include "graph/errors.h"
#include "graph/output_batch.h"
#include "graph/visible_text.h"
#include "run_stage.h"
#include "standard_streams.h"
#include "temporary_cleanup.h"

#ifndef PT_VERSION
#define PT_VERSION "unknown"
#endif

namespace {

using pt::app::Action;
using pt::app::Command;

constexpr Command kCommands[] = {
    {"inspect", "Summarize a joint graph: op counts, forward/backward split, inputs, largest tensors",
     pt::app::add_inspect_command},
    {"convert", "Convert a graph between .pb, .pbtxt and .json, validating it first",
     pt::app::add_convert_command},
    {"generate", "Write a synthetic transformer joint graph (benchmarks, scale tests)",
     pt::app::add_generate_command},
    {"flow", "Write the flow network of the first min-cut solve in DIMACS max-flow format",
     pt::app::add_flow_command},
    {"explain", "Explain why one node is saved, recomputed, banned, forward-only or backward-only",
     pt::app::add_explain_command},
    {"diff", "Compare two cuts (two settings, or two saved reports); exit 1 when they differ",
     pt::app::add_diff_command},
    {"sweep", "Partition once per value of one setting; one row per value, cut changes marked",
     pt::app::add_sweep_command},
    {"dot", "Draw the partition (or one node's neighbourhood) as Graphviz DOT", pt::app::add_dot_command},
};

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;
constexpr int kExitInfeasible = 3;
constexpr int kExitInternal = 4;

// -v / -q, accepted before and after a subcommand name.
struct LogFlags {
  int verbose = 0;
  bool quiet = false;
};

void add_log_flags(CLI::App& app, LogFlags& f) {
  app.add_flag("-v,--verbose", f.verbose, "More log output on stderr: -v info, -vv debug, -vvv trace");
  app.add_flag("-q,--quiet", f.quiet, "Log errors only (wins over -v)");
}

spdlog::level::level_enum log_level(int verbose, bool quiet) {
  if (quiet) return spdlog::level::err;
  switch (verbose) {
    case 0: return spdlog::level::warn;
    case 1: return spdlog::level::info;
    case 2: return spdlog::level::debug;
    default: return spdlog::level::trace;
  }
}

// Protobuf's own log lines (a parser's note about bad UTF-8, ...) go to our
// log at debug level: the error they lead to is reported once, on one line.
void protobuf_log(google::protobuf::LogLevel, const char* file, int line, const std::string& message) {
  spdlog::debug("protobuf {}:{}: {}", file, line, message);
}

// stderr, each message's control characters escaped (visible_text.h): error
// messages quote paths, setting values and names as they were given.
class VisibleStderrSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string text = pt::visible_text(std::string_view(msg.payload.data(), msg.payload.size()));
    spdlog::details::log_msg visible = msg;
    visible.payload = text;
    spdlog::memory_buf_t line;
    formatter_->format(visible, line);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
  }
  void flush_() override { std::fflush(stderr); }
};

void set_up_logging() {
  auto logger = std::make_shared<spdlog::logger>("partition_tool", std::make_shared<VisibleStderrSink>());
  logger->set_pattern("partition_tool: %l: %v");
  logger->set_level(spdlog::level::warn);
  spdlog::set_default_logger(logger);
  google::protobuf::SetLogHandler(protobuf_log);
}

// Whether some argument is exactly `name`.
bool named_in(int argc, char** argv, std::string_view name) {
  for (int i = 1; i < argc; ++i) {
    if (argv[i] == name) return true;
  }
  return false;
}

struct Registered {
  CLI::App* app;
  Action action;
  LogFlags flags;
};

// Out of memory: one line naming the stage (run_stage.h), exit 2 as the
// other resource limits (--max-nodes, the input size limit). The unwinding
// that brought us here freed what the failed stage held.
int out_of_memory() {
  spdlog::error("out of memory while {}", pt::app::stage());
  return kExitBadInput;
}

int run(const Action& action) {
  try {
    return action();
  } catch (const pt::InputError& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  } catch (const pt::SettingsError& e) {
    spdlog::error("{}", e.what());
    return kExitBadInput;
  } catch (const pt::InfeasibleError& e) {
    spdlog::error("{}", e.what());
    return kExitInfeasible;
  } catch (const std::bad_alloc&) {
    return out_of_memory();
  } catch (const std::system_error& e) {
    // A thread the system could not start (sweep rows, the planner) under
    // an address-space limit is memory too.
    if (e.code() == std::errc::resource_unavailable_try_again || e.code() == std::errc::not_enough_memory) {
      return out_of_memory();
    }
    spdlog::error("internal error: {}", e.what());
    return kExitInternal;
  } catch (const std::exception& e) {
    spdlog::error("internal error: {}", e.what());
    return kExitInternal;
  } catch (...) {
    spdlog::error("internal error: unknown exception");
    return kExitInternal;
  }
}

// CLI11's own errors as every other error: one line with the tool's prefix.
int command_line_error(const CLI::ParseError& e) {
  std::string text = e.what();
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  spdlog::error("{} (see partition_tool --help)", text);
  return kExitBadInput;
}

// `text` on stdout, as every output is written (a full disk is an error).
int print(const std::string& text) {
  return run([&text] {
    pt::OutputBatch out;
    out.add("-", text);
    out.commit();
    return kExitOk;
  });
}

// Every result on stdout reached it, or the run fails: a closed stdout or a
// full disk is an error like any other.
int finish(int code) {
  const std::string failed = pt::app::finish_stdout();
  if (failed.empty() || (code != kExitOk && code != 1)) return code;  // an error already has its line
  spdlog::error("stdout: cannot write: {}", failed);
  return code == kExitOk || code == 1 ? kExitBadInput : code;
}

}  // namespace

int main(int argc, char** argv) {
  pt::app::reserve_standard_streams();
  pt::app::install_temporary_cleanup();
  set_up_logging();
  CLI::App app(
      "Partition a joint forward+backward training graph: choose which values the forward\n"
      "saves for the backward and which the backward recomputes (a minimum cut, as\n"
      "PyTorch's min_cut_rematerialization_partition), and report the memory traffic.",
      "partition_tool");
  app.set_version_flag("--version", std::string("partition_tool ") + PT_VERSION, "Print the version and exit");
  LogFlags root_flags;
  add_log_flags(app, root_flags);
  pt::app::MainOptions main_options;
  pt::app::add_main_options(app, main_options);
  app.require_subcommand(0, 1);

  std::deque<Registered> commands;  // stable addresses for the flags bound below
  for (const Command& c : kCommands) {
    CLI::App* sub = app.add_subcommand(std::string(c.name), std::string(c.description));
    // Declaring every command's options cost each run ~1.3M instructions
    // and as many allocations (a tenth of a millisecond or more), yet a
    // command can only be chosen by its name as one argument. Without that
    // argument it stays bare (its name and description still head the
    // command list of --help); a value that happens to spell the name only
    // declares options that go unused, as before.
    if (!named_in(argc, argv, c.name)) continue;
    Registered& r = commands.emplace_back(Registered{sub, c.add(*sub), {}});
    add_log_flags(*sub, r.flags);
  }

  const Registered* chosen = nullptr;
  try {
    app.parse(argc, argv);
    for (const auto& r : commands) {
      if (r.app->parsed()) chosen = &r;
    }
    // A first word with neither '.' nor '/' names no graph file: a command
    // mistyped, not the main command's GRAPH.
    if (const std::string typo = pt::app::mistyped_command(argc, argv, kCommands); !chosen && !typo.empty()) {
      spdlog::error("{}", typo);
      return kExitBadInput;
    }
    if (!chosen && main_options.inputs.empty() && main_options.positional.empty()) {
      if (argc == 1) return finish(print(app.help()));  // a bare partition_tool: the usage
      throw CLI::RequiredError("--input");
    }
  } catch (const CLI::ParseError& e) {
    if (const std::string typo = pt::app::mistyped_command(argc, argv, kCommands); !typo.empty()) {
      spdlog::error("{}", typo);
      return kExitBadInput;
    }
    if (e.get_exit_code() != 0) return command_line_error(e);
    std::ostringstream text;  // --help, --version
    app.exit(e, text, text);
    return finish(print(text.str()));
  }

  const int verbose = root_flags.verbose + (chosen ? chosen->flags.verbose : 0);
  const bool quiet = root_flags.quiet || (chosen && chosen->flags.quiet);
  spdlog::set_level(log_level(verbose, quiet));

  if (chosen) {
    pt::app::set_stage("running " + chosen->app->get_name());
    return finish(run(chosen->action));
  }
  return finish(run([&main_options] {
    pt::app::resolve_main_options(main_options);
    return pt::app::run_main_command(main_options);
  }));
}
