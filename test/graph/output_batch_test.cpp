// graph/output_batch.h: outputs land in place only on commit, with exactly
// the bytes written; a batch dropped or failing leaves neither targets nor
// temporaries behind, and a failing write is an InputError naming the file.
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
#include "graph/fd_buffer.h"
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

// This process's threads now (/proc/self/status).
int threads_now() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  }
  return -1;
}

}  // namespace

TEST_CASE("streamed and whole outputs land in place on commit, byte for byte") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(200'000);  // more than the stream's 64 KiB buffer
  {
    pt::OutputBatch batch;
    batch.add(dir.file("whole.bin"), std::string_view(big));
    batch.add(dir.file("streamed.txt"), [&](std::ostream& out) {
      // Small pieces through the buffer, a large one past it, then small again.
      for (int i = 0; i < 5000; ++i) out << i << ',';
      out.write(big.data(), static_cast<std::streamsize>(big.size()));
      out << "end" << '\n';
    });
    CHECK_FALSE(std::filesystem::exists(dir.file("whole.bin")));  // not before commit
    batch.commit();
  }
  CHECK(pt::test::read_all(dir.file("whole.bin")) == big);
  std::string expected;
  for (int i = 0; i < 5000; ++i) expected += std::to_string(i) + ',';
  expected += big + "end\n";
  CHECK(pt::test::read_all(dir.file("streamed.txt")) == expected);
  CHECK(files_in(dir.path()) == 2);  // no temporaries left
}

TEST_CASE("a batch dropped before commit leaves nothing") {
  pt::test::TempDir dir;
  {
    pt::OutputBatch batch;
    batch.add(dir.file("a.json"), std::string_view("{}"));
    batch.add(dir.file("b.json"), [](std::ostream& out) { out << "{}"; });
  }
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("a write that fails is an InputError naming the file; nothing is left behind") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(300'000);
  {
    const FileSizeLimit limit(100'000);
    pt::OutputBatch batch;
    CHECK_THROWS_WITH_AS(batch.add(dir.file("whole.bin"), std::string_view(big)),
                         doctest::Contains((dir.file("whole.bin") + ": write failed").c_str()), pt::InputError);
    // Streamed: in small pieces, and in one large piece.
    CHECK_THROWS_WITH_AS(batch.add(dir.file("small.txt"),
                                   [&](std::ostream& out) {
                                     for (char c : big) out << c;
                                   }),
                         doctest::Contains((dir.file("small.txt") + ": write failed").c_str()), pt::InputError);
    CHECK_THROWS_WITH_AS(
        batch.add(dir.file("large.txt"),
                  [&](std::ostream& out) { out.write(big.data(), static_cast<std::streamsize>(big.size())); }),
        doctest::Contains((dir.file("large.txt") + ": write failed").c_str()), pt::InputError);
  }
  CHECK(files_in(dir.path()) == 0);
}

TEST_CASE("committing onto existing paths: a file is replaced as rename replaces it, a directory is refused") {
  namespace fs = std::filesystem;
  pt::test::TempDir dir;
  const std::string file = dir.file("report.json");
  {
    pt::OutputBatch first;
    first.add(file, std::string_view("old"));
    first.commit();
  }
  // A second name for the old file keeps the old contents (rename's
  // semantics: the name is replaced, not the file).
  fs::create_hard_link(file, dir.file("old_link"));
  fs::create_directory(dir.file("a_directory"));
  fs::create_symlink(dir.file("old_link"), dir.file("symlink"));
  {
    pt::OutputBatch second;
    second.add(file, [](std::ostream& out) { out << "new"; });
    second.add(dir.file("symlink"), std::string_view("through the link"));
    second.commit();
  }
  CHECK(pt::test::read_all(file) == "new");
  CHECK(pt::test::read_all(dir.file("old_link")) == "old");
  // The link itself is replaced by the output; its old target is untouched.
  CHECK(fs::is_regular_file(fs::symlink_status(dir.file("symlink"))));
  CHECK(pt::test::read_all(dir.file("symlink")) == "through the link");
  CHECK(files_in(dir.path()) == 4);  // report.json, old_link, a_directory, symlink: no temporaries

  {
    pt::OutputBatch third;
    third.add(dir.file("a_directory"), std::string_view("x"));
    CHECK_THROWS_WITH_AS(third.commit(),
                         doctest::Contains((dir.file("a_directory") + ": cannot move the output into place").c_str()),
                         pt::InputError);
  }
  CHECK(fs::is_directory(dir.file("a_directory")));
  CHECK(files_in(dir.path()) == 4);
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
    batch.add(file, std::string_view("{}"));
    batch.add(file + ".streamed", [](std::ostream& out) { out << "{}"; });
    batch.commit();
    CHECK(mode_of(file) == (0666 & ~mask));
    CHECK(mode_of(file + ".streamed") == (0666 & ~mask));
  }
}

TEST_CASE("a streamed output of several pieces is written beside its rendering, byte for byte") {
  pt::test::TempDir dir;
  const size_t piece = pt::FdBuffer::kPieceBytes;
  const std::string big = sample_bytes(3 * piece + 12'345);  // one write larger than a piece
  for (const unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    const std::string file = dir.file("streamed_" + std::to_string(threads) + ".bin");
    const int before = threads_now();
    int during_small = -1, during_large = -1;
    std::string expected;
    {
      pt::OutputBatch batch(threads);
      batch.add(file, [&](std::ostream& out) {
        out.write(big.data(), 1000);  // less than a piece: no writer yet
        during_small = threads_now();
        for (int i = 0; i < 200'000; ++i) out << i << ',';
        out.flush();  // every byte so far in the file; the writer stays
        out.write(big.data(), static_cast<std::streamsize>(big.size()));
        during_large = threads_now();
        out << "end\n";
      });
      batch.commit();
    }
    expected = big.substr(0, 1000);
    for (int i = 0; i < 200'000; ++i) expected += std::to_string(i) + ',';
    expected += big + "end\n";
    CHECK(pt::test::read_all(file) == expected);
    CHECK(during_small == before);
    CHECK(during_large == before + (threads > 1 ? 1 : 0));  // the writer, from the first full piece on
    CHECK(threads_now() == before);                          // joined
  }
}

TEST_CASE("a failing write on the writer thread, or a renderer that throws, leaves nothing behind") {
  pt::test::TempDir dir;
  const std::string big = sample_bytes(5 * pt::FdBuffer::kPieceBytes);
  {
    const FileSizeLimit limit(2 * pt::FdBuffer::kPieceBytes + 100);  // the third piece fails
    pt::OutputBatch batch(2);
    CHECK_THROWS_WITH_AS(batch.add(dir.file("large.json"),
                                   [&](std::ostream& out) {
                                     for (size_t at = 0; at < big.size(); at += 65'536) {
                                       out.write(big.data() + at, 65'536);
                                     }
                                   }),
                         doctest::Contains((dir.file("large.json") + ": write failed").c_str()), pt::InputError);
  }
  {
    pt::OutputBatch batch(2);
    CHECK_THROWS_WITH_AS(batch.add(dir.file("thrown.json"),
                                   [&](std::ostream& out) {
                                     out.write(big.data(), static_cast<std::streamsize>(big.size()));
                                     throw std::runtime_error("renderer failed");
                                   }),
                         "renderer failed", std::runtime_error);
  }
  CHECK(files_in(dir.path()) == 0);
}
