// Read-only views of a serialized Node and its parts (wire.h says why and
// what bytes they accept). Accessors are named as graph.pb.h's, and the
// oneof cases carry the same numbers, so code reads a view as it read the
// message: view.val().tensor().shape(), arg.kind_case() == ArgView::kNode.
// Strings are views into the record, which lives as long as the graph.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

#include "graph/wire.h"

namespace pt {

class ArgView;
using ArgItems = wire::Repeated<ArgView>;

// A message holding one repeated message field, number 1: ArgList, ValueTuple.
template <typename Item>
class ItemsView {
 public:
  ItemsView() = default;
  explicit ItemsView(std::string_view bytes) : items_(wire::find_run(bytes, 1)) {}
  wire::Repeated<Item> items() const { return wire::Repeated<Item>(items_); }
  int items_size() const { return items_.count; }
  Item items(int k) const { return items()[k]; }

 private:
  wire::Run items_;
};

using ArgListView = ItemsView<ArgView>;

class ArgView {
 public:
  enum KindCase { KIND_NOT_SET = 0, kNode = 1, kInt = 2, kFloat = 3, kBool = 4, kStr = 5, kNone = 6, kList = 7,
                  kDtype = 8, kDevice = 9, kRepr = 10 };

  ArgView() = default;
  explicit ArgView(std::string_view bytes) : bytes_(bytes) {
    wire::FieldCursor c(bytes);
    wire::Field f;
    while (c.next(f)) {
      if (f.number < 1 || f.number > 10 || f.type != expected_type(f.number)) continue;  // unknown to the schema
      kind_ = static_cast<KindCase>(f.number);
      field_ = f;
    }
  }

  KindCase kind_case() const { return kind_; }
  std::string_view node() const { return text(kNode); }
  int64_t int_() const { return kind_ == kInt ? static_cast<int64_t>(field_.varint) : 0; }
  double float_() const {
    if (kind_ != kFloat) return 0;
    double d;
    std::memcpy(&d, &field_.varint, sizeof d);
    return d;
  }
  bool bool_() const { return kind_ == kBool && field_.varint != 0; }
  std::string_view str() const { return text(kStr); }
  bool none() const { return kind_ == kNone && field_.varint != 0; }
  bool has_list() const { return kind_ == kList; }
  ArgListView list() const { return kind_ == kList ? ArgListView(field_.bytes) : ArgListView(); }
  std::string_view dtype() const { return text(kDtype); }
  std::string_view device() const { return text(kDevice); }
  std::string_view repr() const { return text(kRepr); }
  std::string_view bytes() const { return bytes_; }

 private:
  static wire::WireType expected_type(uint32_t number) {
    switch (number) {
      case kInt: case kBool: case kNone: return wire::kVarint;
      case kFloat: return wire::kFixed64;
      default: return wire::kLen;
    }
  }
  std::string_view text(KindCase k) const { return kind_ == k ? field_.bytes : std::string_view(); }

  std::string_view bytes_;
  KindCase kind_ = KIND_NOT_SET;
  wire::Field field_;
};


class TensorView {
 public:
  TensorView() = default;
  explicit TensorView(std::string_view bytes) {
    wire::for_each_field(bytes, [this](const wire::Field& f, const char* at, const char* end) {
      if (f.type == wire::kLen) {
        switch (f.number) {
          case 1: shape_ = wire::PackedInt64(f.bytes); break;
          case 2: stride_ = wire::PackedInt64(f.bytes); break;
          case 3: dtype_ = f.bytes; break;
          case 4: device_ = f.bytes; break;
          case 5: shape_expr_.add(at, end); break;
          case 8: stride_expr_.add(at, end); break;
          case 9: storage_offset_expr_ = f.bytes; break;
          default: break;
        }
      } else if (f.type == wire::kVarint) {
        if (f.number == 6) storage_ = static_cast<int64_t>(f.varint);
        else if (f.number == 7) storage_offset_ = static_cast<int64_t>(f.varint);
      }
    });
  }

  wire::PackedInt64 shape() const { return shape_; }
  int shape_size() const { return shape_.size(); }
  int64_t shape(int k) const { return shape_[k]; }
  wire::PackedInt64 stride() const { return stride_; }
  int stride_size() const { return stride_.size(); }
  int64_t stride(int k) const { return stride_[k]; }
  std::string_view dtype() const { return dtype_; }
  std::string_view device() const { return device_; }
  wire::Repeated<std::string_view> shape_expr() const { return wire::Repeated<std::string_view>(shape_expr_); }
  int shape_expr_size() const { return shape_expr_.count; }
  bool has_storage() const { return storage_.has_value(); }
  int64_t storage() const { return storage_.value_or(0); }
  int64_t storage_offset() const { return storage_offset_; }
  wire::Repeated<std::string_view> stride_expr() const { return wire::Repeated<std::string_view>(stride_expr_); }
  int stride_expr_size() const { return stride_expr_.count; }
  std::string_view storage_offset_expr() const { return storage_offset_expr_; }

 private:
  wire::PackedInt64 shape_, stride_;
  wire::Run shape_expr_, stride_expr_;
  std::string_view dtype_, device_, storage_offset_expr_;
  std::optional<int64_t> storage_;
  int64_t storage_offset_ = 0;
};

class SymView {
 public:
  SymView() = default;
  explicit SymView(std::string_view bytes)
      : kind_(wire::string_field(bytes, 1)), expr_(wire::string_field(bytes, 2)),
        hint_(static_cast<int64_t>(wire::varint_field(bytes, 3))) {}
  std::string_view kind() const { return kind_; }
  std::string_view expr() const { return expr_; }
  int64_t hint() const { return hint_; }

 private:
  std::string_view kind_, expr_;
  int64_t hint_ = 0;
};

class ValueView;
using ValueTupleView = ItemsView<ValueView>;

class ValueView {
 public:
  enum KindCase { KIND_NOT_SET = 0, kTensor = 1, kTuple = 2, kSym = 3, kNone = 4, kOpaque = 5 };

  ValueView() = default;
  explicit ValueView(std::string_view bytes) {
    wire::FieldCursor c(bytes);
    wire::Field f;
    while (c.next(f)) {
      if (f.number < 1 || f.number > 5 || f.type != (f.number == kNone ? wire::kVarint : wire::kLen)) continue;
      kind_ = static_cast<KindCase>(f.number);
      field_ = f;
    }
  }

  KindCase kind_case() const { return kind_; }
  bool has_tensor() const { return kind_ == kTensor; }
  TensorView tensor() const { return kind_ == kTensor ? TensorView(field_.bytes) : TensorView(); }
  bool has_tuple() const { return kind_ == kTuple; }
  ValueTupleView tuple() const { return kind_ == kTuple ? ValueTupleView(field_.bytes) : ValueTupleView(); }
  bool has_sym() const { return kind_ == kSym; }
  SymView sym() const { return kind_ == kSym ? SymView(field_.bytes) : SymView(); }
  std::string_view opaque() const { return kind_ == kOpaque ? field_.bytes : std::string_view(); }

 private:
  KindCase kind_ = KIND_NOT_SET;
  wire::Field field_;
};


// One kwargs entry (map<string, Arg>): first = key, second = value.
struct KwargView {
  std::string_view first;
  ArgView second;
  explicit KwargView(std::string_view entry)
      : first(wire::string_field(entry, 1)), second(arg_of(entry)) {}

 private:
  static ArgView arg_of(std::string_view entry) {
    wire::Field f;
    return wire::find_field(entry, 2, wire::kLen, f) ? ArgView(f.bytes) : ArgView();
  }
};

// Every field of a node, read in one pass: for validation, which reads
// them all.
class NodeFields {
 public:
  NodeFields() = default;
  explicit NodeFields(std::string_view bytes) : bytes_(bytes) {
    wire::for_each_field(bytes, [this](const wire::Field& f, const char* at, const char* end) {
      if (f.type == wire::kLen) {
        switch (f.number) {
          case 1: name_ = f.bytes; break;
          case 2: op_ = f.bytes; break;
          case 3: target_ = f.bytes; break;
          case 4: args_.add(at, end); break;
          case 5: kwargs_.add(at, end); break;
          case 6: val_ = f.bytes, has_val_ = true; break;
          case 7: op_tags_.add(at, end); break;
          case 9: recompute_ = f.bytes; break;
          case 11: partitioner_tag_ = f.bytes; break;
          case 12: module_path_ = f.bytes; break;
          default: break;
        }
      } else if (f.type == wire::kVarint) {
        switch (f.number) {
          case 8: mutable__ = f.varint != 0; break;
          case 10: ac_graph_id_ = static_cast<int64_t>(f.varint); break;
          case 13: impure_ = f.varint != 0; break;
          case 14: has_backward_hook_ = f.varint != 0; break;
          default: break;
        }
      } else if (f.type == wire::kFixed64 && f.number == 15) {
        double d;
        std::memcpy(&d, &f.varint, sizeof d);
        memory_budget_ = d;
      }
    });
  }

  std::string_view bytes() const { return bytes_; }
  std::string_view name() const { return name_; }
  std::string_view op() const { return op_; }
  std::string_view target() const { return target_; }
  ArgItems args() const { return ArgItems(args_); }
  int args_size() const { return args_.count; }
  ArgView args(int k) const { return args()[k]; }
  wire::Repeated<KwargView> kwargs() const { return wire::Repeated<KwargView>(kwargs_); }
  int kwargs_size() const { return kwargs_.count; }
  // The value of kwarg `key`, if the node has it.
  std::optional<ArgView> kwarg(std::string_view key) const {
    for (const KwargView& kv : kwargs()) {
      if (kv.first == key) return kv.second;
    }
    return std::nullopt;
  }
  bool has_val() const { return has_val_; }
  ValueView val() const { return has_val_ ? ValueView(val_) : ValueView(); }
  std::string_view val_bytes() const { return val_; }  // the serialized Value
  wire::Repeated<std::string_view> op_tags() const { return wire::Repeated<std::string_view>(op_tags_); }
  bool mutable_() const { return mutable__; }
  std::string_view recompute() const { return recompute_; }
  bool has_ac_graph_id() const { return ac_graph_id_.has_value(); }
  int64_t ac_graph_id() const { return ac_graph_id_.value_or(0); }
  std::string_view partitioner_tag() const { return partitioner_tag_; }
  std::string_view module_path() const { return module_path_; }
  bool impure() const { return impure_; }
  bool has_backward_hook() const { return has_backward_hook_; }
  bool has_memory_budget() const { return memory_budget_.has_value(); }
  double memory_budget() const { return memory_budget_.value_or(0); }

 private:
  std::string_view bytes_;
  std::string_view name_, op_, target_, val_, recompute_, partitioner_tag_, module_path_;
  wire::Run args_, kwargs_, op_tags_;
  std::optional<int64_t> ac_graph_id_;
  std::optional<double> memory_budget_;
  bool has_val_ = false, mutable__ = false, impure_ = false, has_backward_hook_ = false;
};

// A node's fields, each read when asked: stored records hold their fields in
// number order (canonical records, and protobuf's serialization, whose
// unknown fields come last and never match a known number and wire type),
// so an accessor scans from the start and stops at the first field past
// its own. Most readers want one or two fields of a node; the eager scan of
// all of them (NodeFields) cost ~550 instructions a node each time.
class NodeView {
 public:
  NodeView() = default;
  explicit NodeView(std::string_view bytes) : bytes_(bytes) {}

  std::string_view bytes() const { return bytes_; }
  std::string_view name() const { return text(1); }
  std::string_view op() const { return text(2); }
  std::string_view target() const { return text(3); }
  ArgItems args() const { return ArgItems(run(4)); }
  int args_size() const { return run(4).count; }
  ArgView args(int k) const { return args()[k]; }
  wire::Repeated<KwargView> kwargs() const { return wire::Repeated<KwargView>(run(5)); }
  int kwargs_size() const { return run(5).count; }
  // The value of kwarg `key`, if the node has it.
  std::optional<ArgView> kwarg(std::string_view key) const {
    for (const KwargView& kv : kwargs()) {
      if (kv.first == key) return kv.second;
    }
    return std::nullopt;
  }
  bool has_val() const {
    wire::Field f;
    return find(6, wire::kLen, f);
  }
  ValueView val() const { return ValueView(val_bytes()); }
  std::string_view val_bytes() const { return text(6); }  // the serialized Value
  wire::Repeated<std::string_view> op_tags() const { return wire::Repeated<std::string_view>(run(7)); }
  bool mutable_() const { return number(8) != 0; }
  std::string_view recompute() const { return text(9); }
  bool has_ac_graph_id() const {
    wire::Field f;
    return find(10, wire::kVarint, f);
  }
  int64_t ac_graph_id() const { return static_cast<int64_t>(number(10)); }
  std::string_view partitioner_tag() const { return text(11); }
  std::string_view module_path() const { return text(12); }
  bool impure() const { return number(13) != 0; }
  bool has_backward_hook() const { return number(14) != 0; }
  bool has_memory_budget() const {
    wire::Field f;
    return find(15, wire::kFixed64, f);
  }
  double memory_budget() const {
    wire::Field f;
    double d = 0;
    if (find(15, wire::kFixed64, f)) std::memcpy(&d, &f.varint, sizeof d);
    return d;
  }

 private:
  bool find(uint32_t number, wire::WireType type, wire::Field& out) const {
    wire::FieldCursor c(bytes_);
    while (c.next(out)) {
      if (out.number == number && out.type == type) return true;
      if (out.number > number) return false;
    }
    return false;
  }
  std::string_view text(uint32_t n) const {
    wire::Field f;
    return find(n, wire::kLen, f) ? f.bytes : std::string_view();
  }
  uint64_t number(uint32_t n) const {
    wire::Field f;
    return find(n, wire::kVarint, f) ? f.varint : 0;
  }
  wire::Run run(uint32_t number) const {
    wire::Run r;
    wire::FieldCursor c(bytes_);
    wire::Field f;
    const char* at = c.pos();
    while (c.next(f)) {
      if (f.number == number && f.type == wire::kLen) r.add(at, c.pos());
      else if (f.number > number) break;
      at = c.pos();
    }
    return r;
  }

  std::string_view bytes_;
};

}  // namespace pt
