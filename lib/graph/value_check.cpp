#include "graph/value_check.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "graph/dtype.h"
#include "graph/errors.h"
#include "graph/printable.h"
#include "graph/sym_expr.h"

namespace pt {

namespace {

class ValueChecker {
 public:
  ValueChecker(const std::string& source, int max_nesting) : source_(source), max_nesting_(max_nesting) {}

  void read(const proto::Node& pn, const proto::Value& v, Node& n) {
    switch (v.kind_case()) {
      case proto::Value::kTensor: {
        n.value_kind = ValueKind::Tensor;
        const proto::TensorMeta& t = v.tensor();
        n.size_bytes = tensor_bytes(pn, t, [] { return std::string("val.tensor"); }, n.numel, &n.dtype);
        n.has_storage = t.has_storage();
        n.storage = t.storage();
        break;
      }
      case proto::Value::kTuple: {
        n.value_kind = ValueKind::Tuple;
        // Nested items are checked iteratively; only direct tensor items count
        // towards the size (as PyTorch's _size_of). An item's field name is
        // spelled out only for an error (paths_ keeps how to).
        paths_.clear();
        stack_.clear();
        push_items(v.tuple(), -1, 1);
        while (!stack_.empty()) {
          const Item item = stack_.back();
          stack_.pop_back();
          const auto field = [&] { return field_name(item.path); };
          switch (item.v->kind_case()) {
            case proto::Value::kTensor: {
              uint64_t numel = 0;
              const uint64_t b =
                  tensor_bytes(pn, item.v->tensor(), [&] { return field() + ".tensor"; }, numel);
              if (item.depth == 1) n.size_bytes += b, n.numel += numel;
              if (n.size_bytes > (uint64_t{1} << 62)) fail(pn, "val.tuple", "holds more than 2^62 bytes");
              break;
            }
            case proto::Value::kTuple:
              if (item.depth >= max_nesting_) {
                // The root field: the path to the depth would be a long line.
                fail(pn, "val.tuple", "nests tuples deeper than " + std::to_string(max_nesting_) +
                                          " levels (the limit for args and values)");
              }
              push_items(item.v->tuple(), item.path, item.depth + 1);
              break;
            case proto::Value::kSym: check_sym(pn, item.v->sym(), [&] { return field() + ".sym"; }); break;
            case proto::Value::kOpaque: check_opaque(pn, item.v->opaque(), [&] { return field() + ".opaque"; }); break;
            case proto::Value::KIND_NOT_SET: fail(pn, field(), "has no field set");
            default: break;
          }
        }
        break;
      }
      case proto::Value::kSym:
        n.value_kind = ValueKind::Sym;
        n.sym_kind = check_sym(pn, v.sym(), [] { return std::string("val.sym"); });
        n.size_bytes = 1;
        break;
      case proto::Value::kNone: n.value_kind = ValueKind::None; break;
      case proto::Value::kOpaque:
        n.value_kind = ValueKind::Opaque;
        check_opaque(pn, v.opaque(), [] { return std::string("val.opaque"); });
        break;
      case proto::Value::KIND_NOT_SET:
        fail(pn, "val", "has no field set (expected one of tensor, tuple, sym, none, opaque)");
    }
  }

 private:
  // A tuple item: its value, its place (paths_), its tuple depth.
  struct Item {
    const proto::Value* v;
    int path;
    int depth;
  };
  // Item k of the tuple at `parent` (-1: val.tuple itself, else an item's path).
  struct Path {
    int parent;
    int k;
  };

  // A tuple's items onto the stack in order (so the last is checked first,
  // as before: the error named is the same).
  void push_items(const proto::ValueTuple& tuple, int parent, int depth) {
    int k = 0;
    for (const proto::Value& item : tuple.items()) {
      paths_.push_back({parent, k++});
      stack_.push_back({&item, static_cast<int>(paths_.size()) - 1, depth});
    }
  }

  // "val.tuple.items[2].tuple.items[0]" for an item's path.
  std::string field_name(int path) const {
    const Path& p = paths_[static_cast<size_t>(path)];
    const std::string tuple = p.parent < 0 ? "val.tuple" : field_name(p.parent) + ".tuple";
    return tuple + ".items[" + std::to_string(p.k) + "]";
  }

  // The tensor's bytes, its elements into `numel` and, when asked, its
  // dtype's code into `dtype`. `field()` names it, called only on the way
  // to an error.
  template <typename Field>
  uint64_t tensor_bytes(const proto::Node& pn, const proto::TensorMeta& t, const Field& field, uint64_t& numel,
                        uint8_t* dtype = nullptr) {
    const auto info = dtype_info(t.dtype());
    if (!info) fail(pn, field() + ".dtype", "= '" + printable(t.dtype()) + "' is not a torch dtype");
    if (dtype != nullptr) *dtype = info->code;
    if (has_control_character(t.device())) {
      fail(pn, field() + ".device", "= '" + printable(t.device()) + "' holds a control character (a one-line identifier)");
    }
    const uint64_t itemsize = info->itemsize;
    if (t.stride_size() != 0 && t.stride_size() != t.shape_size()) {
      fail(pn, field() + ".stride", "has " + std::to_string(t.stride_size()) + " entries but shape has " +
                                      std::to_string(t.shape_size()));
    }
    if (t.shape_expr_size() != 0 && t.shape_expr_size() != t.shape_size()) {
      fail(pn, field() + ".shape_expr", "has " + std::to_string(t.shape_expr_size()) + " entries but shape has " +
                                          std::to_string(t.shape_size()));
    }
    if (t.stride_expr_size() != 0 && t.stride_expr_size() != t.stride_size()) {
      fail(pn, field() + ".stride_expr", "has " + std::to_string(t.stride_expr_size()) +
                                           " entries but stride has " + std::to_string(t.stride_size()));
    }
    for (int k = 0; k < t.shape_expr_size(); ++k) {
      check_expr(pn, t.shape_expr(k), t.shape(k), [&] { return field() + ".shape_expr[" + std::to_string(k) + "]"; },
                 [&] { return "shape[" + std::to_string(k) + "]"; });
    }
    for (int k = 0; k < t.stride_expr_size(); ++k) {
      check_expr(pn, t.stride_expr(k), t.stride(k), [&] { return field() + ".stride_expr[" + std::to_string(k) + "]"; },
                 [&] { return "stride[" + std::to_string(k) + "]"; });
    }
    if (!t.storage_offset_expr().empty()) {
      check_expr(pn, t.storage_offset_expr(), t.storage_offset(), [&] { return field() + ".storage_offset_expr"; },
                 [] { return std::string("storage_offset"); });
    }
    // Byte sizes stay below 2^62 so that sums of a few of them cannot overflow.
    constexpr uint64_t kLimit = uint64_t{1} << 62;
    uint64_t bytes = itemsize;
    bool zero = false;
    int d = -1;
    for (const int64_t dim : t.shape()) {
      ++d;
      if (dim < 0) fail(pn, field() + ".shape[" + std::to_string(d) + "]", "= " + std::to_string(dim) + " is negative");
      if (dim == 0) zero = true;
      else if (!zero && bytes > kLimit / static_cast<uint64_t>(dim)) {
        fail(pn, field() + ".shape", "describes a tensor of more than 2^62 bytes (size overflows)");
      } else if (!zero) {
        bytes *= static_cast<uint64_t>(dim);
      }
    }
    // The product of the shape: exact (bounded above), 0 with a 0 in it.
    numel = zero ? 0 : bytes / itemsize;
    return zero ? 0 : bytes;
  }

  // A symbolic entry of a tensor: an expression (sym_expr.h), and when it
  // is a plain integer, the same number as its hint `hint_field()` = `hint`.
  template <typename Field, typename HintField>
  void check_expr(const proto::Node& pn, const std::string& expr, int64_t hint, const Field& field,
                  const HintField& hint_field) {
    check_expr_syntax(pn, expr, field);
    const std::optional<int64_t> literal = sym_expr_integer(expr);
    if (literal && *literal != hint) {
      fail(pn, field(), "= '" + printable(expr) + "' but " + hint_field() + " = " + std::to_string(hint) +
                            " (a constant entry is its own hint)");
    }
  }

  template <typename Field>
  void check_expr_syntax(const proto::Node& pn, const std::string& expr, const Field& field) {
    const std::string problem = sym_expr_problem(expr);
    if (!problem.empty()) {
      fail(pn, field(), "= '" + printable(expr) + "' is not a symbolic expression: " + problem);
    }
  }

  // An opaque value's type name, shown in reports.
  template <typename Field>
  void check_opaque(const proto::Node& pn, const std::string& type_name, const Field& field) {
    if (has_control_character(type_name)) {
      fail(pn, field(), "= '" + printable(type_name) + "' holds a control character (a one-line identifier)");
    }
  }

  template <typename Field>
  SymKind check_sym(const proto::Node& pn, const proto::SymValue& s, const Field& field) {
    SymKind kind = SymKind::Int;
    if (s.kind() == "float") kind = SymKind::Float;
    else if (s.kind() == "bool") kind = SymKind::Bool;
    else if (s.kind() != "int") fail(pn, field() + ".kind", "= '" + printable(s.kind()) + "' is not one of int, float, bool");
    check_expr_syntax(pn, s.expr(), [&] { return field() + ".expr"; });
    return kind;
  }

  [[noreturn]] void fail(const proto::Node& n, const std::string& field, const std::string& what) const {
    throw InputError(source_ + ": node '" + printable(n.name()) + "': " + field + " " + what);
  }

  const std::string& source_;
  int max_nesting_;
  std::vector<Path> paths_;
  std::vector<Item> stack_;
};

}  // namespace

void read_node_value(const proto::Node& pn, const proto::Value& v, const std::string& source, int max_nesting,
                     Node& n) {
  ValueChecker(source, max_nesting).read(pn, v, n);
}

}  // namespace pt
