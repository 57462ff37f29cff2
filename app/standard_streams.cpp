#include "standard_streams.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <fcntl.h>
#include <unistd.h>

namespace pt::app {

void reserve_standard_streams() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", O_RDONLY);
    if (opened >= 0 && opened != fd) ::close(opened);  // a lower number was free: leave it
  }
}

std::string finish_stdout() {
  // The first failing write sets errno (std::cout writes through stdout);
  // a second flush may find nothing left to write and say nothing. Where
  // the failure came before (CLI11's --help text), the errno it left is the
  // best reason there is.
  const int earlier = errno;
  errno = 0;
  std::cout.flush();
  int why = errno;
  const bool flushed = std::fflush(stdout) == 0;
  if (!flushed && errno != 0) why = errno;
  if (flushed && !std::ferror(stdout) && std::cout.good()) return "";
  if (why == 0) why = earlier;
  return std::strerror(why != 0 ? why : EIO);
}

}  // namespace pt::app
