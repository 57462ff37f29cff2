// A stream buffer over an open file descriptor, for OutputBatch's streamed
// outputs (the JSON report, the binary partition; an ofstream would reopen
// the temporary by name, one more open and close per output). Bytes reach
// the file in pieces of kPieceBytes. With `background` set, the write(2)
// calls run on a thread of their own, started at the first full piece,
// while the caller renders the next piece: at 10^6 nodes the kernel's
// writes of the 50 MB JSON report took 10-140 ms (as the page cache
// allowed) on top of its rendering's 60-80, all on the one thread (issue
// 7, docs/performance.md "Session 25"). An output smaller than a piece
// (gpt2_124m's 137 KB report) never starts the thread. Where no thread can
// be had, the writes run here; the file's bytes never depend on where they
// were written.
//
// The first failing write's errno is kept; from then on the stream reports
// failure (as a full disk does), and close() returns false.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <streambuf>
#include <thread>

namespace pt {

// Writes all of `data` to `fd`; false (errno set) when the system refuses.
bool write_all(int fd, const char* data, size_t size);

class FdBuffer : public std::streambuf {
 public:
  // A file of this many bytes or more is written from two threads.
  static constexpr size_t kPieceBytes = 1 << 20;

  // Owns `fd` from here on. `background`: whether writes may run on a
  // thread of their own (the --threads setting allows a second one).
  FdBuffer(int fd, bool background);
  FdBuffer(const FdBuffer&) = delete;
  FdBuffer& operator=(const FdBuffer&) = delete;
  // Waits for the writer (a caller that threw mid-output: the temporary is
  // about to be removed anyway) and closes the descriptor if still open.
  ~FdBuffer() override;

  // Writes what is pending, joins the writer and closes the descriptor;
  // false (the errno in error()) when any write or the close failed.
  bool close();
  // The first failure's errno, 0 if none; read it after close().
  int error() const { return error_; }

 protected:
  int sync() override;  // every byte so far in the file (the writer idle)
  int_type overflow(int_type c) override;
  // (Large pieces go through the put area too, std::streambuf's xsputn:
  // one copy, and their writes overlap the caller's work like the rest.)

 private:
  // The put area to the file, or to the writer once it runs; false once a
  // write has failed.
  bool pass_on();
  bool start_writer();
  void write_loop();
  // Blocks until the writer has written what it was handed; false when a
  // write failed.
  bool wait_idle();
  void stop_writer();
  void reset_put_area() { setp(fill_.get(), fill_.get() + kPieceBytes); }

  int fd_;
  bool background_;
  // The put area: allocated, not zeroed, so that a small output touches
  // only the pages it fills.
  std::unique_ptr<char[]> fill_;
  // Guarded by mutex_ while the writer runs: the piece it was handed
  // (`handed_` bytes of `spare_`; 0 when it is idle), whether it should
  // finish, and the first error.
  std::unique_ptr<char[]> spare_;
  size_t handed_ = 0;
  bool stopping_ = false;
  int error_ = 0;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::thread writer_;
};

}  // namespace pt
