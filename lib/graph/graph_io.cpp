#include "graph/graph_io.h"
#include "graph/output_batch.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/type_resolver.h>
#include <google/protobuf/util/type_resolver_util.h>
#include <google/protobuf/wire_format_lite.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "graph/arena_graph.h"
#include "graph/errors.h"
#include "graph/json_signed_zero.h"
#include "graph/utf8_check.h"

namespace pt {

namespace {

constexpr const char* kTypeUrlPrefix = "type.googleapis.com";

// A parser's message as part of a one-line error: control characters become
// spaces and the text is cut (parsers may quote a huge token of the input).
std::string one_line(std::string text) {
  constexpr size_t kMaxBytes = 300;
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  if (text.size() > kMaxBytes) {
    size_t cut = kMaxBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;  // not inside a UTF-8 character
    text = text.substr(0, cut) + "...";
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

// A file's bytes: a regular file's in a buffer that was never zero-filled
// (std::string(size, '\0') wrote every byte once before the read wrote it
// again), anything else's (a pipe) in a string.
struct FileBytes {
  std::unique_ptr<char[]> buffer;
  size_t size = 0;
  std::string piped;
  std::string_view view() const { return buffer ? std::string_view(buffer.get(), size) : std::string_view(piped); }
};

// Reads [0, size) of a regular file into `buffer`; returns the bytes read
// (fewer when the file shrank meanwhile).
size_t read_regular(int fd, const std::string& path, char* buffer, size_t size) {
  size_t at = 0;
  while (at < size) {
    const ssize_t n = read(fd, buffer + at, size - at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": read error: " + std::strerror(errno));
    if (n == 0) break;  // the file shrank
    at += static_cast<size_t>(n);
  }
  return at;
}

// An input file, open for reading; closed when it goes.
struct InputFile {
  int fd = -1;
  bool regular = false;
  size_t size = 0;  // a regular file's
  InputFile() = default;
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;
  ~InputFile() {
    if (fd >= 0) close(fd);
  }
};

// Opens `path`; refuses a directory, and a regular file too large for
// protobuf's parsers (their sizes are int) before reading it.
void open_input(const std::string& path, InputFile& file) {
  file.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (file.fd < 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  struct stat st {};
  if (fstat(file.fd, &st) != 0) throw InputError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": cannot open: " + std::strerror(EISDIR));
  file.regular = S_ISREG(st.st_mode);
  if (!file.regular) return;
  file.size = static_cast<size_t>(st.st_size);
  if (file.size > kMaxInputBytes) {
    throw InputError(path + ": file is " + std::to_string(file.size) + " bytes, above the " +
                     std::to_string(kMaxInputBytes) + "-byte limit of protobuf parsing (2 GiB)");
  }
}

// The bytes of a text or JSON input.
FileBytes read_all(const InputFile& file, const std::string& path) {
  FileBytes out;
  if (file.regular) {
    out.buffer = std::make_unique_for_overwrite<char[]>(file.size);
    out.size = read_regular(file.fd, path, out.buffer.get(), file.size);
    return out;
  }
  // Anything else (a pipe): read to its end.
  char chunk[1 << 16];
  while (true) {
    const ssize_t n = read(file.fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": read error: " + std::strerror(errno));
    if (n == 0) break;
    // Text and JSON hold no NUL byte: /dev/zero stops at its first chunk.
    if (const void* nul = std::memchr(chunk, 0, static_cast<size_t>(n))) {
      const size_t at = out.piped.size() + static_cast<size_t>(static_cast<const char*>(nul) - chunk);
      throw InputError(path + ": byte " + std::to_string(at) + " is NUL, which text and JSON graphs never hold");
    }
    // A stream without end (/dev/zero, a generator on a pipe) stops at the
    // limit instead of being read forever.
    if (out.piped.size() + static_cast<size_t>(n) > kMaxInputBytes) {
      throw InputError(path + ": input is above the " + std::to_string(kMaxInputBytes) +
                       "-byte limit of protobuf parsing (2 GiB)");
    }
    out.piped.append(chunk, static_cast<size_t>(n));
  }
  return out;
}

// Collects the first text-format parse error with its position.
class FirstError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (text.empty()) text = "line " + std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
  }
  std::string text;
};

}  // namespace

Format parse_format(std::string_view name) {
  if (name == "pb" || name == "binary") return Format::Binary;
  if (name == "pbtxt" || name == "text" || name == "textproto" || name == "txtpb") return Format::Text;
  if (name == "json") return Format::Json;
  throw InputError("unknown format '" + std::string(name) + "' (expected pb, pbtxt or json)");
}

Format format_from_path(const std::string& path) {
  const std::string ext = std::filesystem::path(path).extension().string();
  if (ext == ".pb" || ext == ".bin") return Format::Binary;
  if (ext == ".pbtxt" || ext == ".txtpb" || ext == ".textproto") return Format::Text;
  if (ext == ".json") return Format::Json;
  throw InputError(path + ": cannot tell the format from the extension '" + ext +
                   "' (use .pb, .pbtxt or .json, or pass --input-format/--output-format)");
}

std::string_view format_name(Format f) {
  switch (f) {
    case Format::Binary: return "pb";
    case Format::Text: return "pbtxt";
    case Format::Json: return "json";
  }
  return "?";
}

namespace {

void check_parse_size(std::string_view data, const std::string& path) {
  if (data.size() > kMaxInputBytes) {
    throw InputError(path + ": input is above the " + std::to_string(kMaxInputBytes) +
                     "-byte limit of protobuf parsing (2 GiB)");
  }
}


// Parses a binary file or stream through a 64 KiB buffer that protobuf's
// FileInputStream refills: the file's bytes are never all in memory at
// once, so the parse touches no fresh pages for them (a whole-file buffer
// was a page fault per 4 KiB, 41,000 at 10^6 nodes).
void parse_binary_file(const InputFile& file, const std::string& path, google::protobuf::Message* msg) {
  google::protobuf::io::FileInputStream stream(file.fd, 1 << 16);
  google::protobuf::io::CodedInputStream in(&stream);
  in.SetRecursionLimit(kParseRecursionLimit);
  const bool parsed = msg->ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
  if (stream.GetErrno() != 0) throw InputError(path + ": read error: " + std::strerror(stream.GetErrno()));
  if (!parsed) throw_invalid_binary(path, *msg);
}

// One `nodes` entry of a binary graph: its bytes appended to `records` as
// they are. Validation parses each record once, which checks it as a parse
// of the whole graph would (RecordStore::parse).
bool read_node_record(google::protobuf::io::CodedInputStream& in, const InputFile& file, RecordStore& records) {
  uint32_t size = 0;
  if (!in.ReadVarint32(&size)) return false;
  // A corrupt length is refused before it is allocated.
  if (file.regular && size > file.size) return false;
  if (size > kMaxInputBytes) return false;
  char* bytes = records.append(size);
  return in.ReadRaw(bytes, static_cast<int>(size));
}

// A binary graph read field by field through a 64 KiB buffer (as
// parse_binary_file): each node's record into the store, every other field
// copied as read and parsed into the header at the end, so the header
// takes them as a parse of the whole message would (the last name wins,
// metadata entries merge).
SplitGraph read_binary_records(const InputFile& file, const std::string& path) {
  using google::protobuf::internal::WireFormatLite;
  constexpr uint32_t kNodesTag =
      WireFormatLite::MakeTag(proto::Graph::kNodesFieldNumber, WireFormatLite::WIRETYPE_LENGTH_DELIMITED);
  SplitGraph out;
  out.header = std::make_shared<proto::Graph>();
  out.records = std::make_shared<RecordStore>();
  if (file.regular) out.records->reserve(0, file.size);
  std::string other_fields;
  google::protobuf::io::FileInputStream stream(file.fd, 1 << 16);
  bool parsed = true;
  {
    google::protobuf::io::CodedInputStream in(&stream);
    google::protobuf::io::StringOutputStream copy_stream(&other_fields);
    google::protobuf::io::CodedOutputStream copy(&copy_stream);
    while (parsed) {
      const uint32_t tag = in.ReadTag();
      if (tag == 0) break;  // the end, or a zero tag that ConsumedEntireMessage refuses
      parsed = tag == kNodesTag ? read_node_record(in, file, *out.records)
                                : WireFormatLite::SkipField(&in, tag, &copy);
    }
    parsed = parsed && in.ConsumedEntireMessage();
  }
  if (stream.GetErrno() != 0) throw InputError(path + ": read error: " + std::strerror(stream.GetErrno()));
  if (!parsed || !out.header->ParseFromString(other_fields)) throw_invalid_binary(path, *out.header);
  return out;
}

}  // namespace

[[noreturn]] void throw_invalid_binary(const std::string& path, const google::protobuf::Message& msg) {
  throw InputError(path + ": not a valid binary protobuf " + msg.GetTypeName() +
                   " (truncated, corrupt, or nested too deeply)");
}

void read_message(const std::string& path, Format format, google::protobuf::Message* msg) {
  InputFile file;
  open_input(path, file);
  if (format == Format::Binary) return parse_binary_file(file, path, msg);
  parse_message(read_all(file, path).view(), format, path, msg);
}

void parse_message(std::string_view data, Format format, const std::string& path, google::protobuf::Message* msg) {
  check_parse_size(data, path);
  switch (format) {
    case Format::Binary: {
      google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()),
                                                static_cast<int>(data.size()));
      in.SetRecursionLimit(kParseRecursionLimit);
      if (!msg->ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) throw_invalid_binary(path, *msg);
      return;
    }
    case Format::Text: {
      google::protobuf::TextFormat::Parser parser;
      FirstError errors;
      parser.RecordErrorsTo(&errors);
      parser.SetRecursionLimit(kParseRecursionLimit);
      google::protobuf::io::ArrayInputStream stream(data.data(), static_cast<int>(data.size()));
      if (!parser.Parse(&stream, msg)) {
        throw InputError(path + ": not a valid text protobuf " + msg->GetTypeName() + ": " +
                         one_line(errors.text));
      }
      return;
    }
    case Format::Json: {
      google::protobuf::util::JsonParseOptions options;
      options.ignore_unknown_fields = true;
      // A copy only where the text holds a -0 (json_signed_zero.h).
      const std::optional<std::string> signed_zeros = negative_zeros_as_decimals(data);
      const std::string_view text = signed_zeros ? std::string_view(*signed_zeros) : data;
      const auto status = google::protobuf::util::JsonStringToMessage(
          google::protobuf::StringPiece(text.data(), text.size()), msg, options);
      if (!status.ok()) {
        throw InputError(path + ": not a valid JSON " + msg->GetTypeName() + ": " +
                         one_line(std::string(status.message())));
      }
      return;
    }
  }
}

std::shared_ptr<proto::Graph> read_graph(const std::string& path, Format format) {
  auto graph = new_arena_graph();
  read_message(path, format, graph.get());
  // The binary parser refuses strings that are not UTF-8; the text and
  // JSON parsers let some through.
  if (format != Format::Binary) check_utf8_strings(*graph, path);
  return graph;
}

SplitGraph read_graph_records(const std::string& path, Format format) {
  if (format != Format::Binary) return split_graph(*read_graph(path, format));
  InputFile file;
  open_input(path, file);
  return read_binary_records(file, path);
}

std::shared_ptr<proto::Graph> parse_graph(std::string_view data, Format format, const std::string& path) {
  auto graph = new_arena_graph();
  parse_message(data, format, path, graph.get());
  // The binary parser refuses strings that are not UTF-8; the text and
  // JSON parsers let some through.
  if (format != Format::Binary) check_utf8_strings(*graph, path);
  return graph;
}

namespace {

// Binary serialization with map entries sorted by key.
std::string serialize_deterministically(const google::protobuf::Message& msg) {
  std::string out;
  append_binary(msg, out, msg.GetDescriptor()->name());
  return out;
}

}  // namespace

void append_binary(const google::protobuf::Message& msg, std::string& out, std::string_view what) {
  // Into the string grown by the exact size: a growing string touched every
  // byte about twice (each doubling copies), a page fault per fresh 4 KiB.
  const size_t size = msg.ByteSizeLong();
  check_message_size(out.size() + size, what);
  const size_t at = out.size();
  out.resize(at + size);
  google::protobuf::io::ArrayOutputStream stream(out.data() + at, static_cast<int>(size));
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  msg.SerializeWithCachedSizes(&coded);
}

void check_message_size(uint64_t bytes, std::string_view what) {
  if (bytes > kMaxInputBytes) {
    throw InputError("cannot write the " + std::string(what) + ": its binary encoding would be " +
                     std::to_string(bytes) + " bytes, above protobuf's limit of " + std::to_string(kMaxInputBytes) +
                     " (2 GiB) for binary and JSON; write text format instead (.pbtxt)");
  }
}

std::string serialize_message(const google::protobuf::Message& msg, Format format) {
  std::string out;
  switch (format) {
    case Format::Binary: {
      out = serialize_deterministically(msg);
      break;
    }
    case Format::Text: {
      google::protobuf::TextFormat::Printer printer;
      printer.PrintToString(msg, &out);
      break;
    }
    case Format::Json: {
      google::protobuf::util::JsonPrintOptions options;
      options.preserve_proto_field_names = true;
      options.add_whitespace = true;
      // MessageToJsonString streams from a non-deterministic binary encoding,
      // so maps (kwargs, metadata, settings) would come out in hash order,
      // which differs between runs; stream from the sorted encoding instead.
      const std::unique_ptr<google::protobuf::util::TypeResolver> resolver(
          google::protobuf::util::NewTypeResolverForDescriptorPool(kTypeUrlPrefix,
                                                                    msg.GetDescriptor()->file()->pool()));
      const auto status = google::protobuf::util::BinaryToJsonString(
          resolver.get(), std::string(kTypeUrlPrefix) + "/" + msg.GetDescriptor()->full_name(),
          serialize_deterministically(msg), &out, options);
      if (!status.ok()) throw InputError("cannot write JSON: " + one_line(std::string(status.message())));
      if (auto signed_zeros = negative_zeros_as_decimals(out)) out = std::move(*signed_zeros);
      break;
    }
  }
  return out;
}

void write_file_atomically(const std::string& path, std::string_view contents) {
  write_files_atomically({{path, contents}});
}

void write_files_atomically(const std::vector<OutputFile>& files) {
  OutputBatch batch;
  for (const auto& f : files) batch.add(f.path, std::string(f.contents));
  batch.commit();
}

void write_message(const std::string& path, Format format, const google::protobuf::Message& msg) {
  write_file_atomically(path, serialize_message(msg, format));
}

}  // namespace pt
