// The output files of one run, all or nothing as far as the file system
// allows. Each is written to a temporary beside its target as soon as it is
// added, so its bytes (hundreds of MB for a 10^6-node partition) can be
// freed before the next output is built, or streamed without ever being
// one string (the JSON report); commit() then renames them all into place.
// A batch destroyed before commit(), or whose add() threw, removes every
// temporary it made. Only a failing rename, after the first, can leave
// earlier files written.
#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace pt {

class OutputBatch {
 public:
  // `threads` is the --threads setting: where it allows a second thread,
  // a streamed output's writes run beside its rendering (graph/fd_buffer.h).
  explicit OutputBatch(unsigned threads = 0);
  OutputBatch(const OutputBatch&) = delete;
  OutputBatch& operator=(const OutputBatch&) = delete;
  ~OutputBatch();

  // Throws InputError naming `path` when the temporary cannot be written.
  void add(const std::string& path, std::string_view contents);
  void add(const std::string& path, const std::function<void(std::ostream&)>& write);
  // Renames every temporary onto its target; throws InputError on failure.
  void commit();

 private:
  struct Pending {
    std::string temporary, target;
  };
  std::vector<Pending> pending_;
  bool background_writes_;
};

}  // namespace pt
