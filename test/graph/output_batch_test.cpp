// graph/output_batch.h: outputs land in place only on commit, with exactly
// the bytes given; a batch dropped or failing leaves neither targets nor
// temporaries behind, a failing write is an InputError naming the file, and
// a symbolic link's file is replaced while the link stays. A streamed
// output exists only as its temporary until commit.
#include <doctest/doctest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <sys/resource.h>
#include <sys/stat.h>

#include "cli/tool_runner.h"
#include "graph/errors.h"
#include "graph/output_batch.h"
#include "graph/temp_dir.h"

namespace {

size_t files_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Bytes no run of which repeats at a short period (a misplaced or repeated
// piece shows).
std::string sample_bytes(size_t size) {
  std::string s(size, '\0');
  for (size_t i = 0; i < size; ++i) s[i] = static_cast<char>((i * 131 + i / 251) & 0xff);
  return s;
}

// Lowers the file size limit for this process while it lives (writes past
// it fail with EFBIG; SIGXFSZ, which would end the process, is ignored).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit lower = old_;
    lower.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &lower);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit old_{};
  void (*old_handler_)(int) = nullptr;
};

}  // namespace

TEST_CASE("outputs land in place on commit, byte for byte, and nothing exists before") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(3'000'000);
  {
    pt::OutputBatch batch;
    batch.add(dir.file("big.bin"), big);
    batch.add(dir.file("small.txt"), "end\n");
    CHECK(files_in(dir.path()) == 0);  // not even a temporary before commit
    batch.commit();
  }
  CHECK(pt::test::read_all(dir.file("big.bin")) == big);
  CHECK(pt::test::read_all(dir.file("small.txt")) == "end\n");
  CHECK(files_in(dir.path()) == 2);  // no temporaries left
}

TEST_CASE("a streamed output is only a temporary until commit, then the pieces in order") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(1'000'000);
  {
    pt::OutputBatch batch;
    batch.add(dir.file("streamed.bin"), [&](const pt::OutputBatch::Sink& write) {
      for (size_t at = 0; at < big.size(); at += 70'000) write(std::string_view(big).substr(at, 70'000));
    });
    CHECK(files_in(dir.path()) == 1);  // the temporary
    CHECK(!std::filesystem::exists(dir.file("streamed.bin")));
    // Not a regular file: rendered into memory, written on commit.
    batch.add("/dev/null", [](const pt::OutputBatch::Sink& write) { write("into memory"); });
    batch.commit();
  }
  CHECK(pt::test::read_all(dir.file("streamed.bin")) == big);
  CHECK(files_in(dir.path()) == 1);
}

TEST_CASE("a streamed output that fails leaves nothing: a refused write names the file, a throwing render") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(300'000);
  {
    const FileSizeLimit limit(100'000);
    pt::OutputBatch batch;
    CHECK_THROWS_WITH_AS(batch.add(dir.file("whole.bin"), [&](const pt::OutputBatch::Sink& write) { write(big); }),
                         doctest::Contains((dir.file("whole.bin") + ": cannot write: File too large").c_str()),
                         pt::InputError);
  }
  CHECK(files_in(dir.path()) == 0);
  {
    pt::OutputBatch batch;
    CHECK_THROWS_AS(batch.add(dir.file("half.bin"),
                              [](const pt::OutputBatch::Sink& write) {
                                write("half");
                                throw std::runtime_error("render failed");
                              }),
                    std::runtime_error);
  }
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("a batch dropped before commit leaves nothing") {
  pt::test::TempDir dir;
  {
    pt::OutputBatch batch;
    batch.add(dir.file("a.json"), "{}");
    batch.add(dir.file("b.json"), "{}");
  }
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("a write that fails is an InputError naming the file; nothing is left behind") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(300'000);
  {
    const FileSizeLimit limit(100'000);
    pt::OutputBatch batch;
    batch.add(dir.file("small.bin"), "fits");
    batch.add(dir.file("whole.bin"), big);
    CHECK_THROWS_WITH_AS(batch.commit(), doctest::Contains((dir.file("whole.bin") + ": cannot write: File too large").c_str()),
                         pt::InputError);
  }
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("the watcher hears of every temporary before its file exists, and as it goes") {
  // Before: a signal may come at any instruction, and a temporary that
  // existed before the watcher heard of it would be left behind by one.
  struct Log final : pt::TemporaryFileWatcher {
    std::vector<std::string> made, gone_;
    int existed_when_heard = 0;
    void created(const std::string& p) override {
      made.push_back(p);
      existed_when_heard += std::filesystem::exists(p);
    }
    void gone(const std::string& p) override { gone_.push_back(p); }
  } log;
  pt::test::TempDir dir;
  {
    pt::OutputBatch batch(&log);
    batch.add(dir.file("a"), "a");
    batch.add(dir.file("b"), "b");
    batch.commit();
  }
  CHECK(log.made.size() == 2);
  CHECK(log.existed_when_heard == 0);
  CHECK(log.gone_ == log.made);
}

TEST_CASE("committing onto existing paths: a file is replaced as rename replaces it, a directory is refused") {
  namespace fs = std::filesystem;
  pt::test::TempDir dir;
  const std::string file = dir.file("report.json");
  {
    pt::OutputBatch first;
    first.add(file, "old");
    first.commit();
  }
  // A second name for the old file keeps the old contents (rename's
  // semantics: the name is replaced, not the file).
  fs::create_hard_link(file, dir.file("old_link"));
  fs::create_directory(dir.file("a_directory"));
  fs::create_symlink("target", dir.file("symlink"));
  std::ofstream(dir.file("target")) << "old target";
  {
    pt::OutputBatch second;
    second.add(file, "new");
    second.add(dir.file("symlink"), "through the link");
    second.commit();
  }
  CHECK(pt::test::read_all(file) == "new");
  CHECK(pt::test::read_all(dir.file("old_link")) == "old");
  // The link stays; the file it names is replaced.
  CHECK(fs::is_symlink(dir.file("symlink")));
  CHECK(pt::test::read_all(dir.file("target")) == "through the link");
  CHECK(files_in(dir.path()) == 5);  // report.json, old_link, a_directory, symlink, target: no temporaries

  pt::OutputBatch third;
  CHECK_THROWS_WITH_AS(third.add(dir.file("a_directory"), "x"),
                       doctest::Contains((dir.file("a_directory") + ": is a directory").c_str()), pt::InputError);
  CHECK(fs::is_directory(dir.file("a_directory")));
  CHECK(files_in(dir.path()) == 5);
}

TEST_CASE("outputs are created as new files are: mode 0666 less the umask") {
  pt::test::TempDir dir;
  // Restores the process's umask when the case ends, passed or not.
  struct UmaskGuard {
    mode_t old = ::umask(0);
    ~UmaskGuard() { ::umask(old); }
  } guard;
  auto mode_of = [](const std::string& path) {
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return st.st_mode & 0777;
  };
  for (const mode_t mask : {mode_t{022}, mode_t{077}, mode_t{002}}) {
    CAPTURE(mask);
    ::umask(mask);
    const std::string file = dir.file("out_" + std::to_string(mask) + ".json");
    pt::OutputBatch batch;
    batch.add(file, "{}");
    batch.commit();
    CHECK(mode_of(file) == (0666 & ~mask));
  }
}
