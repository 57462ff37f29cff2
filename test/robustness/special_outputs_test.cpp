// Outputs that are not plain new files: a FIFO and a character device are
// written in place, a symbolic link's file is replaced and the link stays,
// a directory is refused; write errors (a full device, a closed stdout) fail
// the run with one line; inputs of every kind are never written over;
// "-" is stdout, once; a signal removes the temporary files.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include "cli/tool_runner.h"

namespace {

namespace fs = std::filesystem;
using pt::test::read_all;
using pt::test::contains;
using pt::test::run_tool;
using pt::test::error_line;
using pt::test::RunOptions;
using pt::test::TempDir;
using pt::test::ToolResult;

const std::string kSample = std::string(PT_SAMPLE_DIR) + "/linear_ce.pb";
const std::string kTiny = std::string(PT_SAMPLE_DIR) + "/tiny_mlp.pbtxt";

// Names in `dir` that look like an output's temporary file.
size_t temporaries(const fs::path& dir) {
  size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().find(".tmp") != std::string::npos;
  return n;
}

bool is_fifo(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 && S_ISFIFO(st.st_mode);
}

// Reads a FIFO to its end on a thread of its own.
struct FifoReader {
  explicit FifoReader(std::string path)
      : thread([this, path] { text = read_all(path); }) {}
  ~FifoReader() {
    if (thread.joinable()) thread.join();
  }
  std::string text;
  std::thread thread;
};

}  // namespace

TEST_CASE("a FIFO output is written in place and stays a FIFO") {
  TempDir work;
  const std::string fifo = work.file("report.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  FifoReader reader(fifo);
  const ToolResult r = run_tool({"--input", kTiny, "--report-json", fifo});
  reader.thread.join();
  CHECK(r.exit_code == 0);
  CHECK(is_fifo(fifo));
  CHECK(contains(reader.text, "\"saved_values\""));
  CHECK(temporaries(work.path()) == 0);
}

TEST_CASE("/dev/null as an output stays a character device") {
  // Only read-checked here: whatever the tool did to it, it must still be
  // the device (as root a rename would have made it a regular file).
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--input", kTiny, "--report-json", "/dev/null", "--output", "/dev/null", "--output-format", "pb"},
        std::vector<std::string>{"convert", kTiny, "/dev/null", "--output-format", "json"}}) {
    const ToolResult r = run_tool(args);
    CHECK(r.exit_code == 0);
    CHECK(fs::is_character_file("/dev/null"));
  }
}

TEST_CASE("a symbolic link's file is replaced; the link stays, dangling or not") {
  TempDir work;
  fs::create_directories(work.file("real"));
  std::ofstream(work.file("real/r.json")) << "old";
  fs::create_symlink("real/r.json", work.file("link.json"));
  fs::create_symlink("real/new.json", work.file("dangling.json"));
  const ToolResult r = run_tool({"--input", kTiny, "--report-json", "link.json", "--report-md", "dangling.json"},
                                work.path().string());
  CHECK(r.exit_code == 0);
  CHECK(fs::is_symlink(work.file("link.json")));
  CHECK(fs::is_symlink(work.file("dangling.json")));
  CHECK(contains(read_all(work.file("real/r.json")), "\"saved_values\""));
  CHECK(contains(read_all(work.file("real/new.json")), "## partition_tool report"));
  CHECK(temporaries(work.path()) == 0);
  CHECK(temporaries(work.file("real")) == 0);
}

TEST_CASE("a directory or a missing directory as an output: one line, exit 2, nothing written") {
  TempDir work;
  fs::create_directories(work.file("dir"));
  const ToolResult dir = run_tool({"--input", kTiny, "--output", "p.pb", "--report-json", "dir"}, work.path().string());
  CHECK(dir.exit_code == 2);
  CHECK(contains(error_line(dir), "dir: is a directory"));
  const ToolResult missing = run_tool({"convert", kTiny, "nowhere/g.pb"}, work.path().string());
  CHECK(missing.exit_code == 2);
  CHECK(contains(error_line(missing), "nowhere/g.pb: the directory nowhere does not exist"));
  CHECK_FALSE(fs::exists(work.file("p.pb")));
}

TEST_CASE("write errors: a full device or a closed stdout fail every command with one line") {
  TempDir work;
  const std::string report = work.file("r.json");
  REQUIRE(run_tool({"--input", kTiny, "--report-json", report}).exit_code == 0);
  const std::vector<std::vector<std::string>> to_stdout = {
      {"--input", kTiny, "--report"},
      {"--input", kTiny},  // the summary line
      {"--input", kTiny, "--report-json", "-"},
      {"--input", kTiny, "-o", "-"},
      {"convert", kTiny, "-"},
      {"dot", "--input", kTiny},
      {"sweep", "--input", kTiny, "--key", "dist_from_bw_base", "--values", "1.1,1.2"},
      {"diff", "--input", kTiny},
      {"diff", "--report-a", report, "--report-b", report, "--json"},
      {"inspect", kTiny},
      {"explain", "--input", kTiny, "--node", "mm"},
      {"flow", "--input", kTiny, "--dimacs", "-"},
      {"--help"},
  };
  for (const auto& args : to_stdout) {
    CAPTURE(args.front());
    CAPTURE(args.back());
    const ToolResult full = run_tool(args, RunOptions{.stdout_path = "/dev/full"});
    CHECK(full.exit_code == 2);
    CHECK(contains(error_line(full), "stdout: cannot write: No space left on device"));
    const ToolResult closed = run_tool(args, RunOptions{.close_stdout = true});
    CHECK(closed.exit_code == 2);
    CHECK(contains(error_line(closed), "stdout: cannot write: Bad file descriptor"));
  }
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--input", kTiny, "--report-json", "/dev/full"},
           {"--input", kTiny, "--output-format", "pbtxt", "--output", "/dev/full"},
           {"convert", kTiny, "/dev/full", "--output-format", "pb"},
           {"generate", "--layers", "1", "-o", "/dev/full", "--output-format", "pb"},
           {"sweep", "--input", kTiny, "--key", "cse", "--values", "true,false", "--plot", "/dev/full"},
           {"diff", "--input", kTiny, "--report-md", "/dev/full"}}) {
    CAPTURE(args.back());
    const ToolResult r = run_tool(args);
    CHECK(r.exit_code == 2);
    CHECK(contains(error_line(r), "/dev/full: cannot write: No space left on device"));
  }
}

TEST_CASE("no output may write over an input: settings files, saved reports, hard links") {
  TempDir work;
  const std::string in = work.file("g.pbtxt");
  fs::copy_file(kTiny, in);
  std::ofstream(work.file("s.toml")) << "dist_from_bw_base = 1.2\n";
  fs::create_hard_link(in, work.file("hard.pbtxt"));
  REQUIRE(run_tool({"--input", in, "--report-json", work.file("a.json")}).exit_code == 0);
  const std::string report = read_all(work.file("a.json"));
  const std::string settings = read_all(work.file("s.toml"));
  const std::string graph = read_all(in);
  const std::vector<std::vector<std::string>> runs = {
      {"--input", in, "--config", "s.toml", "--report-json", "./s.toml"},
      {"--input", in, "--report-md", "hard.pbtxt"},
      {"convert", in, "hard.pbtxt"},
      {"diff", "--report-a", "a.json", "--report-b", "a.json", "--report-md", "a.json"},
      {"diff", "--input", in, "--config-b", "s.toml", "--report-md", "s.toml"},
      {"sweep", "--input", in, "--key", "cse", "--values", "true", "--config", "s.toml", "--plot", "s.toml"},
      {"flow", "--input", in, "--config", "s.toml", "--dimacs", "s.toml"},
  };
  for (const auto& args : runs) {
    CAPTURE(args.back());
    const ToolResult r = run_tool(args, work.path().string());
    CHECK(r.exit_code == 2);
    CHECK(contains(error_line(r), "refusing to write over the input file"));
  }
  CHECK(read_all(work.file("a.json")) == report);
  CHECK(read_all(work.file("s.toml")) == settings);
  CHECK(read_all(in) == graph);
}

TEST_CASE("two outputs may not alias, even through a dangling symbolic link; stdout once") {
  TempDir work;
  fs::create_symlink("r.json", work.file("link.md"));
  const ToolResult alias = run_tool({"--input", kTiny, "--report-json", "r.json", "--report-md", "link.md"},
                                    work.path().string());
  CHECK(alias.exit_code == 2);
  CHECK(contains(error_line(alias), "named by both --report-json and --report-md"));
  const ToolResult two_stdout = run_tool({"--input", kTiny, "--report", "--report-json", "-"});
  CHECK(two_stdout.exit_code == 2);
  CHECK(contains(error_line(two_stdout), "--report and --report-json both write to stdout"));
  const ToolResult md_json = run_tool({"diff", "--input", kTiny, "--json", "--report-md", "-"});
  CHECK(md_json.exit_code == 2);
  CHECK(contains(error_line(md_json), "both write to stdout"));
  CHECK(fs::is_empty(work.path()) == false);  // only the link
  CHECK_FALSE(fs::exists(work.file("r.json")));
}

TEST_CASE("-o - writes the partition to stdout") {
  const ToolResult r = run_tool({"--input", kTiny, "-o", "-", "--output-format", "pbtxt"});
  CHECK(r.exit_code == 0);
  CHECK(contains(r.out, "source: \"tiny_mlp\""));
  CHECK_FALSE(contains(r.out, "saved "));  // no summary line mixed in
  const ToolResult binary = run_tool({"--input", kTiny, "-o", "-"});
  CHECK(binary.exit_code == 0);
  TempDir work;
  std::ofstream(work.file("p.pb"), std::ios::binary) << binary.out;
  pt::proto::Partition partition;
  pt::read_message(work.file("p.pb"), pt::Format::Binary, &partition);
  CHECK(partition.source() == "tiny_mlp");
}

TEST_CASE("a signal removes the temporary files") {
  // The report goes to a FIFO nobody reads: the run waits there with the
  // partition's temporary written, until the signal comes.
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) {
    CAPTURE(signal);
    TempDir work;
    REQUIRE(::mkfifo(work.file("wait.fifo").c_str(), 0600) == 0);
    const auto tool = pt::test::start_tool({"--input", kSample, "--output", "p.pb", "--report-json", "wait.fifo"},
                                           RunOptions{.cwd = work.path().string()});
    bool waiting = false;
    for (int i = 0; i < 3000 && !waiting; ++i) {  // up to 30 s
      waiting = temporaries(work.path()) == 1;
      if (!waiting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    CHECK(waiting);
    ::kill(tool.pid, signal);
    const ToolResult r = pt::test::wait_tool(tool);
    CHECK(r.exit_code == 128 + signal);
    CHECK(temporaries(work.path()) == 0);
    CHECK_FALSE(fs::exists(work.file("p.pb")));
    CHECK(is_fifo(work.file("wait.fifo")));
  }
}

TEST_CASE("SIGPIPE (stdout's reader gone) removes the temporary files") {
  TempDir work;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  ::close(fds[0]);  // no reader
  const auto tool = pt::test::start_tool({"--input", kSample, "--output", "p.pb", "--report-json", "-"},
                                         RunOptions{.cwd = work.path().string(), .stdout_fd = fds[1]});
  ::close(fds[1]);
  const ToolResult r = pt::test::wait_tool(tool);
  CHECK(r.exit_code == 128 + SIGPIPE);
  CHECK(temporaries(work.path()) == 0);
  CHECK_FALSE(fs::exists(work.file("p.pb")));
}
