// Where an output path writes, decided before anything is written: stdout
// ("-"), a regular file that is replaced atomically (a new name, or an
// existing file, symbolic links followed to the file they name so that the
// link itself stays), or a character device or FIFO that is written in
// place (/dev/null stays a device, a FIFO's reader gets the bytes).
// Anything else (a directory, a block device, a socket, a missing directory)
// is refused with one line naming the path.
//
// FileIdentity compares files however they are spelled: by device and inode
// where the file exists (symbolic links, hard links, "./x" and "x"), else by
// the absolute path with every link resolved (a dangling link and the name
// it points to are the same output).
#pragma once

#include <string>

#include <sys/types.h>

namespace pt {

struct OutputTarget {
  enum class Kind { Stdout, File, InPlace };
  Kind kind = Kind::File;
  std::string path;   // as given
  std::string write;  // File: the file to replace (links followed); InPlace: the path to open
};

// Throws InputError naming `path` for what cannot be written safely.
OutputTarget resolve_output(const std::string& path);

struct FileIdentity {
  bool exists = false;
  dev_t device = 0;
  ino_t inode = 0;
  bool character_device = false;
  std::string absolute;  // every link resolved, as far as the path exists
};

// `path` as a file to read (stat follows links) or, through resolve_output's
// rules, as an output: the file it would write.
FileIdentity identify_input(const std::string& path);
FileIdentity identify_output(const OutputTarget& target);
// What fd 1 is (for comparing "-" with other outputs).
FileIdentity identify_stdout();
bool same_file(const FileIdentity& a, const FileIdentity& b);

}  // namespace pt
