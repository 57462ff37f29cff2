#include "graph/record_store.h"

#include <cstdint>
#include <cstring>
#include <stdexcept>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

namespace pt {

void RecordStore::reserve(size_t count, size_t bytes) {
  data_.reserve(bytes);
  start_.reserve(count + 1);
  name_start_.reserve(count + 1);
}

char* RecordStore::append(size_t size) {
  const size_t at = data_.size();
  if (size > UINT32_MAX - at) throw std::length_error("record store: records of more than 4 GiB");
  data_.resize(at + size);
  start_.push_back(static_cast<uint32_t>(data_.size()));
  return data_.data() + at;
}

void RecordStore::append(const google::protobuf::Message& node) {
  std::string bytes;
  encode_record(node, bytes);
  std::memcpy(append(bytes.size()), bytes.data(), bytes.size());
}

void encode_record(const google::protobuf::Message& node, std::string& out) {
  out.clear();
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  node.SerializeToCodedStream(&coded);
}

void RecordStore::add_name(std::string_view name) {
  // Reserved untouched: only the pages the names fill are ever faulted in.
  if (names_.capacity() < data_.size()) names_.reserve(data_.size());
  if (named() >= size() || names_.size() + name.size() > names_.capacity()) {
    throw std::logic_error("record store: a name added beyond the records or their bytes");
  }
  names_.append(name);
  name_start_.push_back(static_cast<uint32_t>(names_.size()));
}

bool RecordStore::parse(int k, proto::Node& out) const {
  const std::string_view b = bytes(k);
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(b.data()), static_cast<int>(b.size()));
  in.SetRecursionLimit(kRecordRecursionLimit);
  return out.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

void RecordStore::decode(int k, proto::Node& out) const {
  const std::string_view b = bytes(k);
  // Validation parsed every record (parse), so a failure here is a defect,
  // not bad input.
  if (!out.ParseFromArray(b.data(), static_cast<int>(b.size()))) {
    throw std::logic_error("record store: record " + std::to_string(k) + " does not parse");
  }
}

proto::Node RecordStore::decode(int k) const {
  proto::Node out;
  decode(k, out);
  return out;
}

SplitGraph split_graph(const proto::Graph& whole) {
  SplitGraph out;
  out.header = std::make_shared<proto::Graph>();
  out.header->set_name(whole.name());
  out.header->set_num_fwd_outputs(whole.num_fwd_outputs());
  *out.header->mutable_static_lifetime_input_indices() = whole.static_lifetime_input_indices();
  *out.header->mutable_metadata() = whole.metadata();
  out.records = std::make_shared<RecordStore>();
  out.records->reserve(static_cast<size_t>(whole.nodes_size()), 0);
  for (const proto::Node& node : whole.nodes()) out.records->append(node);
  return out;
}

}  // namespace pt
