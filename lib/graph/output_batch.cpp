#include "graph/output_batch.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "graph/errors.h"

namespace pt {

namespace {

// A new temporary file beside `path` (same directory, so the rename is
// atomic), readable by all as a normal output: its name and descriptor.
std::pair<std::string, int> make_temporary(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::string tmpl = (dir / ("." + target.filename().string() + ".tmpXXXXXX")).string();
  const int fd = mkstemp(tmpl.data());
  if (fd < 0) throw InputError(path + ": cannot create a temporary file: " + std::strerror(errno));
  if (::fchmod(fd, 0644) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    std::remove(tmpl.c_str());
    throw InputError(path + ": cannot finish writing: " + why);
  }
  return {tmpl, fd};
}

}  // namespace

OutputBatch::~OutputBatch() {
  for (const Pending& p : pending_) std::remove(p.temporary.c_str());
}

void OutputBatch::add(const std::string& path, std::string_view contents) {
  auto [temporary, fd] = make_temporary(path);
  size_t done = 0;
  while (done < contents.size()) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      const std::string why = std::strerror(errno);
      ::close(fd);
      std::remove(temporary.c_str());
      throw InputError(path + ": write failed: " + why);
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    std::remove(temporary.c_str());
    throw InputError(path + ": cannot finish writing: " + std::strerror(errno));
  }
  pending_.push_back({temporary, path});
}

void OutputBatch::add(const std::string& path, const std::function<void(std::ostream&)>& write) {
  auto [temporary, fd] = make_temporary(path);
  ::close(fd);
  pending_.push_back({temporary, path});  // removed by the destructor if anything below throws
  std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
  if (out) write(out);
  out.close();
  if (!out) throw InputError(path + ": write failed: " + std::strerror(errno));
}

void OutputBatch::commit() {
  for (size_t i = 0; i < pending_.size(); ++i) {
    if (std::rename(pending_[i].temporary.c_str(), pending_[i].target.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      const std::string target = pending_[i].target;
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));  // those are in place
      throw InputError(target + ": cannot move the output into place: " + why);
    }
  }
  pending_.clear();
}

}  // namespace pt
