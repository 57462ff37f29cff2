// The outputs of one run, all or nothing as far as the file system allows.
// Each output is rendered in memory by the caller and handed over whole, or
// streamed by a render function into a temporary beside its regular file
// (the only output that touches the file system before commit()). commit()
// writes every other regular file to a temporary beside it (created only
// now, so that it exists for as short a time as it can), writes character
// devices, FIFOs and stdout in place, and last renames the temporaries
// onto their files.
// Where a path is a symbolic link, the file it names is replaced and the
// link stays (graph/output_target.h). A failure removes every temporary and
// throws InputError with one line naming the path and the system's reason
// (a full disk, a closed stdout); only a failing rename after the first, or
// a device or FIFO already written, can leave part of the outputs written.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/output_target.h"

namespace pt {

// Told of each temporary file's name before the file is made, and as it
// goes (renamed, removed, or never made because the name was taken), so
// that the app can remove it when a signal ends the run: a signal finds
// every temporary file already known, at worst with a name not yet made.
class TemporaryFileWatcher {
 public:
  virtual ~TemporaryFileWatcher() = default;
  virtual void created(const std::string& path) = 0;
  virtual void gone(const std::string& path) = 0;
};

class OutputBatch {
 public:
  explicit OutputBatch(TemporaryFileWatcher* watcher = nullptr) : watcher_(watcher) {}
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();

  // `path` "-" is stdout. Resolves the target now: throws InputError for a
  // path that cannot be written (a directory, a missing directory).
  void add(const std::string& path, std::string contents);
  // Where the output's bytes go, piece after piece.
  using Sink = std::function<void(std::string_view)>;
  // `render` passes the output's bytes to its sink, now: into a temporary
  // beside a regular file (never whole in memory: a large partition's
  // string cost a fresh page per 4 KiB), else into memory for commit().
  // Throws InputError as commit() does when the temporary cannot be
  // written; whatever `render` throws leaves no temporary behind.
  void add(const std::string& path, const std::function<void(const Sink&)>& render);
  // Writes and renames everything added; throws InputError on failure.
  void commit();

 private:
  struct Pending {
    OutputTarget target;
    std::string contents;
    std::string temporary;  // set while a temporary exists
    bool written = false;   // the temporary holds the output (streamed by add)
  };
  void remove_temporaries();

  TemporaryFileWatcher* watcher_;
  std::vector<Pending> pending_;
};

// Writes all of `data` to `fd`; false (errno set) when the system refuses.
bool write_all(int fd, const char* data, size_t size);

}  // namespace pt
