// stdout as an output like any other: a closed stdout (`>&-`), a full disk
// or /dev/full fails the run with one line on stderr instead of losing the
// results silently.
#pragma once

#include <string>

namespace pt::app {

// Where fd 0, 1 or 2 is closed, opens /dev/null read-only in its place:
// files the run opens later cannot take the number (its results written into
// an output's temporary file), and writes to it still fail (EBADF).
void reserve_standard_streams();

// Flushes std::cout and stdout; "" when every byte was written, else the
// reason ("No space left on device").
std::string finish_stdout();

}  // namespace pt::app
