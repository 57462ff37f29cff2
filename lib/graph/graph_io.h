// Reading and writing protobuf messages (graphs, partitions) as binary
// (.pb), text (.pbtxt) or JSON (.json). Writes go to a temporary file that is
// renamed into place, so a failed run never leaves a partial output.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <google/protobuf/message.h>

#include "graph/record_store.h"
#include "graph/schema.h"

namespace pt {

enum class Format { Binary, Text, Json };

// "pb"/"binary", "pbtxt"/"text"/"textproto", "json"; throws InputError otherwise.
Format parse_format(std::string_view name);
// By extension: .pb .bin -> Binary, .pbtxt .txtpb .textproto -> Text, .json -> Json.
// Throws InputError naming the path when the extension is unknown.
Format format_from_path(const std::string& path);
std::string_view format_name(Format f);

// Parses `path` into `msg`. Unknown JSON fields are ignored. Throws InputError
// with a one-line message starting with the path.
void read_message(const std::string& path, Format format, google::protobuf::Message* msg);
// The same from bytes already in memory; `path` only labels the messages.
void parse_message(std::string_view data, Format format, const std::string& path, google::protobuf::Message* msg);
// The one line for binary input `msg`'s parser refuses, starting with the path.
[[noreturn]] void throw_invalid_binary(const std::string& path, const google::protobuf::Message& msg);
// Largest input protobuf can parse (its sizes are int): files above it are
// rejected before they are read.
inline constexpr size_t kMaxInputBytes = static_cast<size_t>(INT32_MAX);
// A graph message on its own arena (arena_graph.h). Same errors as
// read_message.
std::shared_ptr<proto::Graph> read_graph(const std::string& path, Format format);
// A graph file split for Graph (record_store.h): its fields other than
// nodes, and each node's serialized record. A binary file is read node by
// node and never held as one message tree, each node's bytes stored as read
// (validation parses each record, and refuses a corrupt one as
// throw_invalid_binary); text and JSON are parsed whole, then split. Same
// errors as read_graph otherwise.
SplitGraph read_graph_records(const std::string& path, Format format);
// The same from bytes already in memory; `path` only labels the messages.
std::shared_ptr<proto::Graph> parse_graph(std::string_view data, Format format, const std::string& path);

// Serializes deterministically (maps sorted) to `path` ("-" = stdout is not
// accepted here; the app handles it). Throws InputError on I/O failure, and
// when a binary or JSON message would exceed protobuf's 2 GiB limit
// (check_message_size).
std::string serialize_message(const google::protobuf::Message& msg, Format format);
// Throws InputError when `bytes` of binary encoding exceed what protobuf can
// write and read back (kMaxInputBytes): protobuf itself would log an error
// and return nothing, and an empty file would be written. Text format has no
// such limit, which the message says.
void check_message_size(uint64_t bytes, std::string_view what);
// Appends `msg`'s deterministic binary encoding to `out`; throws as
// check_message_size, `what` naming the message, when `out` would grow
// past protobuf's limit.
void append_binary(const google::protobuf::Message& msg, std::string& out, std::string_view what);
void write_file_atomically(const std::string& path, std::string_view contents);
// Several outputs of one run, all or nothing as far as the file system
// allows: every file is first written to a temporary beside its target (any
// failure removes them all and throws), then each is renamed into place.
// Only a failing rename, after the first, can leave earlier files written.
struct OutputFile {
  std::string path;
  std::string_view contents;
};
void write_files_atomically(const std::vector<OutputFile>& files);
void write_message(const std::string& path, Format format, const google::protobuf::Message& msg);

}  // namespace pt
