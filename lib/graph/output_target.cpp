#include "graph/output_target.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <sys/stat.h>
#include <unistd.h>

#include "graph/errors.h"

namespace pt {

namespace {

namespace fs = std::filesystem;

// Links followed before giving up, as the kernel's own limit (ELOOP).
constexpr int kMaxLinks = 40;

// `path` with its symbolic links followed to the last name in the chain,
// which may not exist (a dangling link names the file it would create).
std::string follow_links(const std::string& path) {
  fs::path p(path);
  for (int hop = 0; hop < kMaxLinks; ++hop) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return p.string();
    std::error_code ec;
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) throw InputError(path + ": cannot read the symbolic link: " + ec.message());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  throw InputError(path + ": too many levels of symbolic links");
}

std::string absolute_resolved(const std::string& path) {
  std::error_code ec;
  fs::path abs = fs::absolute(path, ec);
  if (ec) return path;
  const fs::path resolved = fs::weakly_canonical(abs, ec);
  return ec ? abs.lexically_normal().string() : resolved.string();
}

FileIdentity identity_of(const std::string& path, const struct stat* st) {
  FileIdentity id;
  id.absolute = absolute_resolved(path);
  if (st) {
    id.exists = true;
    id.device = st->st_dev;
    id.inode = st->st_ino;
    id.character_device = S_ISCHR(st->st_mode);
  }
  return id;
}

}  // namespace

OutputTarget resolve_output(const std::string& path) {
  OutputTarget t;
  t.path = path;
  if (path == "-") {
    t.kind = OutputTarget::Kind::Stdout;
    return t;
  }
  if (path.empty()) throw InputError("an output path is empty");
  t.write = follow_links(path);
  const std::string shown = t.write == path ? path : path + " (-> " + t.write + ")";
  struct stat st {};
  if (::stat(t.write.c_str(), &st) == 0) {
    if (S_ISREG(st.st_mode)) return t;
    if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
      t.kind = OutputTarget::Kind::InPlace;
      return t;
    }
    if (S_ISDIR(st.st_mode)) throw InputError(shown + ": is a directory (name a file to write)");
    throw InputError(shown + ": not a regular file, character device or FIFO; refusing to write to it");
  }
  if (errno != ENOENT) throw InputError(shown + ": cannot write: " + std::strerror(errno));
  const fs::path dir = fs::path(t.write).has_parent_path() ? fs::path(t.write).parent_path() : fs::path(".");
  if (::stat(dir.c_str(), &st) != 0) {
    throw InputError(shown + ": the directory " + dir.string() + " does not exist");
  }
  if (!S_ISDIR(st.st_mode)) throw InputError(shown + ": " + dir.string() + " is not a directory");
  return t;
}

FileIdentity identify_input(const std::string& path) {
  struct stat st {};
  return identity_of(path, ::stat(path.c_str(), &st) == 0 ? &st : nullptr);
}

FileIdentity identify_output(const OutputTarget& target) {
  if (target.kind == OutputTarget::Kind::Stdout) return identify_stdout();
  return identify_input(target.write);
}

FileIdentity identify_stdout() {
  struct stat st {};
  FileIdentity id = identity_of("/dev/stdout", ::fstat(STDOUT_FILENO, &st) == 0 ? &st : nullptr);
  id.absolute = "-";
  return id;
}

bool same_file(const FileIdentity& a, const FileIdentity& b) {
  if (a.exists && b.exists) return a.device == b.device && a.inode == b.inode;
  return !a.absolute.empty() && a.absolute == b.absolute;
}

}  // namespace pt
