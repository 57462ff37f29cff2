#include "graph/output_batch.h"

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <unistd.h>

#include "graph/errors.h"
#include "graph/fd_buffer.h"
#include "graph/side_by_side.h"

namespace pt {

namespace {

// A new temporary file beside `path` (same directory, so the rename is
// atomic), created as any new output file is: mode 0666 less the caller's
// umask. (mkstemp creates mode 0600; the fixed chmod to 0644 that followed
// it ignored the umask, widening a umask of 077, and cost a system call.)
std::pair<std::string, int> make_temporary(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string prefix = (dir / ("." + target.filename().string() + ".tmp")).string();
  constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (int attempt = 0; attempt < 100; ++attempt) {
    uint64_t bits = 0;
    if (getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
      bits = (static_cast<uint64_t>(getpid()) << 32) ^ static_cast<uint64_t>(attempt) * 0x9E3779B97F4A7C15ull ^
             static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    }
    std::string name = prefix;
    for (int k = 0; k < 6; ++k, bits /= kLetters.size()) name += kLetters[bits % kLetters.size()];
    const int fd = ::open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) return {name, fd};
    if (errno != EEXIST) break;
  }
  throw InputError(path + ": cannot create a temporary file: " + std::strerror(errno));
}

}  // namespace

OutputBatch::OutputBatch(unsigned threads) : background_writes_(thread_count(threads) > 1) {}

OutputBatch::~OutputBatch() {
  for (const Pending& p : pending_) std::remove(p.temporary.c_str());
}

void OutputBatch::add(const std::string& path, std::string_view contents) {
  auto [temporary, fd] = make_temporary(path);
  if (!write_all(fd, contents.data(), contents.size())) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    std::remove(temporary.c_str());
    throw InputError(path + ": write failed: " + why);
  }
  if (::close(fd) != 0) {
    std::remove(temporary.c_str());
    throw InputError(path + ": cannot finish writing: " + std::strerror(errno));
  }
  pending_.push_back({temporary, path});
}

void OutputBatch::add(const std::string& path, const std::function<void(std::ostream&)>& write) {
  auto [temporary, fd] = make_temporary(path);
  pending_.push_back({temporary, path});  // removed by the destructor if anything below throws
  FdBuffer buffer(fd, background_writes_);
  std::ostream out(&buffer);
  write(out);
  const bool flushed = static_cast<bool>(out.flush());
  if (!buffer.close() || !flushed) {  // closed first: the writer joined before its error is read
    throw InputError(path + ": write failed: " + std::strerror(buffer.error() != 0 ? buffer.error() : EIO));
  }
}

namespace {

// Moves `temporary` to `target` as rename does, atomically: `target` names
// the whole old file or the whole new one at every moment. Over an existing
// regular file it exchanges the two names (renameat2 RENAME_EXCHANGE) and
// unlinks the old file under its new name: a rename that replaces a file
// makes ext4 (auto_da_alloc) write the new file's data out before it
// returns, 0.9 ms for gpt2_124m's 137 KB report on this project's machine
// against 0.1 ms for the exchange, on every run that rewrites its report
// (CI scripts, sweeps by hand). What that flush bought is durability across
// a power loss, which nothing here promises (no output is fsynced). A plain
// rename anywhere else: a new name, a symbolic link or a directory there
// (rename's own answer), a filesystem without the exchange.
int replace_file(const char* temporary, const char* target) {
  struct stat st {};
  if (::lstat(target, &st) == 0 && S_ISREG(st.st_mode) &&
      ::renameat2(AT_FDCWD, temporary, AT_FDCWD, target, RENAME_EXCHANGE) == 0) {
    if (::unlink(temporary) == 0) return 0;
    // Not a file any more (replaced between the two calls): put both back
    // and let rename answer.
    if (::renameat2(AT_FDCWD, temporary, AT_FDCWD, target, RENAME_EXCHANGE) != 0) return -1;
  }
  return std::rename(temporary, target);
}

}  // namespace

void OutputBatch::commit() {
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (replace_file(pending_[i].temporary.c_str(), pending_[i].target.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      const std::string target = pending_[i].target;
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));  // those are in place
      throw InputError(target + ": cannot move the output into place: " + why);
    }
  }
  pending_.clear();
}

}  // namespace pt
