// Runs the built partition_tool (PT_TOOL_PATH) with arguments, without a
// shell, and captures its exit code, stdout and stderr.
#pragma once

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "graph/temp_dir.h"

namespace pt::test {

struct ToolResult {
  int exit_code = -1;  // 128 + signal when killed by a signal
  std::string out;
  std::string err;

  // Lines of stderr (a last line without '\n' counts).
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    return lines;
  }
};

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The one error line of a failed run (requires there to be exactly one).
inline std::string error_line(const ToolResult& r) {
  const auto lines = r.err_lines();
  REQUIRE(lines.size() == 1);
  return lines[0];
}

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where the tool runs and what its stdout is.
struct RunOptions {
  std::string cwd;          // "" = this process's directory
  std::string stdout_path;  // "" = captured; else opened for writing ("/dev/full")
  bool close_stdout = false;  // started with fd 1 closed (`>&-`)
  int stdout_fd = -1;       // else this descriptor as stdout (a pipe)
};

// A started tool; wait_tool() collects it.
struct StartedTool {
  pid_t pid = -1;
  std::string out_path, err_path;
  std::shared_ptr<TempDir> capture;
};

inline StartedTool start_tool(const std::vector<std::string>& args, const RunOptions& options = {}) {
  StartedTool t;
  t.capture = std::make_shared<TempDir>();
  t.out_path = t.capture->file("stdout");
  t.err_path = t.capture->file("stderr");
  std::vector<std::string> argv_store{PT_TOOL_PATH};
  argv_store.insert(argv_store.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_store) argv.push_back(a.data());
  argv.push_back(nullptr);

  t.pid = fork();
  if (t.pid == 0) {
    const std::string& out_path = options.stdout_path.empty() ? t.out_path : options.stdout_path;
    const int out = options.stdout_fd >= 0 ? options.stdout_fd : open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(t.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(126);
    if (options.close_stdout) close(1);
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) _exit(126);
    signal(SIGPIPE, SIG_DFL);  // as a shell starts it, whatever the test runner ignores
    execv(argv[0], argv.data());
    _exit(127);
  }
  return t;
}

inline ToolResult wait_tool(const StartedTool& t) {
  ToolResult r;
  int status = 0;
  if (t.pid > 0 && waitpid(t.pid, &status, 0) == t.pid) {
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  r.out = read_all(t.out_path);
  r.err = read_all(t.err_path);
  return r;
}

inline ToolResult run_tool(const std::vector<std::string>& args, const RunOptions& options) {
  return wait_tool(start_tool(args, options));
}

// `cwd`: the directory the tool runs in ("" = this process's).
inline ToolResult run_tool(const std::vector<std::string>& args, const std::string& cwd = "") {
  return run_tool(args, RunOptions{cwd});
}

}  // namespace pt::test
