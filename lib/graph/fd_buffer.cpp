#include "graph/fd_buffer.h"

#include <cerrno>
#include <system_error>

#include <unistd.h>

#include "graph/thread_placement.h"

namespace pt {

bool write_all(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<size_t>(n);
  }
  return true;
}

namespace {

int errno_or_eio() { return errno != 0 ? errno : EIO; }

}  // namespace

FdBuffer::FdBuffer(int fd, bool background)
    : fd_(fd), background_(background), fill_(std::make_unique_for_overwrite<char[]>(kPieceBytes)) {
  reset_put_area();
}

FdBuffer::~FdBuffer() {
  stop_writer();
  if (fd_ >= 0) ::close(fd_);
}

bool FdBuffer::close() {
  const bool flushed = sync() == 0;
  stop_writer();
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && flushed) error_ = errno_or_eio();
  return flushed && error_ == 0;
}

int FdBuffer::sync() { return pass_on() && wait_idle() ? 0 : -1; }

FdBuffer::int_type FdBuffer::overflow(int_type c) {
  if (!pass_on()) return traits_type::eof();
  if (!traits_type::eq_int_type(c, traits_type::eof())) {
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
  }
  return traits_type::not_eof(c);
}

bool FdBuffer::pass_on() {
  const auto n = static_cast<size_t>(pptr() - pbase());
  // The first full piece starts the writer: an output that ends within
  // one piece is written here, in one call, as before.
  if (n == kPieceBytes && background_ && !writer_.joinable()) background_ = start_writer();
  if (!writer_.joinable()) {
    reset_put_area();
    if (error_ != 0) return false;
    if (n > 0 && !write_all(fd_, fill_.get(), n)) {
      error_ = errno_or_eio();
      return false;
    }
    return true;
  }
  {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return handed_ == 0; });
    if (error_ != 0) {
      reset_put_area();
      return false;
    }
    if (n > 0) {
      fill_.swap(spare_);
      handed_ = n;
    }
  }
  changed_.notify_all();
  reset_put_area();
  return true;
}

bool FdBuffer::start_writer() {
  spare_ = std::make_unique_for_overwrite<char[]>(kPieceBytes);
  try {
    writer_ = std::thread([this] { write_loop(); });
    place_beside_caller(writer_.native_handle());
    return true;
  } catch (const std::system_error&) {
    return false;  // no thread to be had (a container's pids limit): write here
  }
}

void FdBuffer::write_loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    changed_.wait(lock, [&] { return handed_ != 0 || stopping_; });
    if (handed_ == 0) return;  // stopping, and everything handed over is written
    const char* data = spare_.get();
    const size_t size = handed_;
    lock.unlock();
    const bool wrote = write_all(fd_, data, size);
    const int why = wrote ? 0 : errno_or_eio();  // errno is this thread's
    lock.lock();
    if (!wrote && error_ == 0) error_ = why;
    handed_ = 0;
    changed_.notify_all();
  }
}

bool FdBuffer::wait_idle() {
  if (!writer_.joinable()) return error_ == 0;
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return handed_ == 0; });
  return error_ == 0;
}

void FdBuffer::stop_writer() {
  if (!writer_.joinable()) return;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

}  // namespace pt
