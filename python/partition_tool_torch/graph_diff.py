"""Comparing two graph JSON files field by field, up to field order and to
the proto3 JSON mapping's spelling of 64-bit integers as strings (no torch
needed). Used to check captured graphs against the corpus."""

import json

# Fields the corpus files carry; compared by default. The exporter's extra
# fields (storage ids, offsets, impure, has_backward_hook) are not in them.
CORPUS_NODE_FIELDS = ("op", "target", "args", "kwargs", "val", "op_tags", "mutable",
                      "recompute", "ac_graph_id", "partitioner_tag", "module_path")
CORPUS_TENSOR_FIELDS = ("shape", "stride", "dtype", "device", "shape_expr")
_INT64_KEYS = {"int", "shape", "stride", "hint", "storage", "storage_offset",
               "num_fwd_outputs", "static_lifetime_input_indices", "ac_graph_id"}


def normalize(x, key=None):
    """Ints written as strings become ints; everything else is kept."""
    if isinstance(x, dict):
        x = {k: normalize(v, k) for k, v in x.items()}
        for key_ in ("list", "tuple"):  # an empty repeated field may be left out
            if isinstance(x.get(key_), dict) and "items" not in x[key_]:
                x[key_] = {"items": []}
        return x
    if isinstance(x, list):
        return [normalize(v, key) for v in x]
    if key in _INT64_KEYS and isinstance(x, str):
        return int(x)
    return x


def load(path):
    with open(path, encoding="utf-8") as f:
        return normalize(json.load(f))


def _restrict_val(val, tensor_fields):
    if not isinstance(val, dict):
        return val
    if "tensor" in val:
        return {"tensor": {k: v for k, v in val["tensor"].items() if k in tensor_fields}}
    if "tuple" in val:
        return {"tuple": {"items": [_restrict_val(v, tensor_fields)
                                    for v in val["tuple"].get("items", [])]}}
    return val


def _field(node, name, tensor_fields):
    value = node.get(name)
    if name == "val":
        return _restrict_val(value, tensor_fields)
    if name == "op_tags" and value is not None:
        return sorted(value)
    return value


def diff_graphs(a, b, node_fields=CORPUS_NODE_FIELDS, tensor_fields=CORPUS_TENSOR_FIELDS,
                limit=20):
    """Differences between graph dicts a and b: a summary dict with node
    counts, names only in one, per-field counts of differing nodes and up to
    `limit` examples. Nodes are matched by name."""
    a, b = normalize(a), normalize(b)
    na = {n["name"]: n for n in a.get("nodes", [])}
    nb = {n["name"]: n for n in b.get("nodes", [])}
    result = {"nodes": [len(na), len(nb)],
              "only_in_first": [n for n in na if n not in nb][:limit],
              "only_in_second": [n for n in nb if n not in na][:limit],
              "order_differs": [n for n in na if n in nb] != [n for n in nb if n in na],
              "graph_fields": {}, "field_counts": {}, "examples": []}
    for key in ("num_fwd_outputs", "static_lifetime_input_indices"):
        if a.get(key) != b.get(key):
            result["graph_fields"][key] = [a.get(key), b.get(key)]
    for name, x in na.items():
        y = nb.get(name)
        if y is None:
            continue
        for field in node_fields:
            fx_, fy = _field(x, field, tensor_fields), _field(y, field, tensor_fields)
            if fx_ != fy:
                result["field_counts"][field] = result["field_counts"].get(field, 0) + 1
                if len(result["examples"]) < limit:
                    result["examples"].append({"node": name, "field": field,
                                               "first": fx_, "second": fy})
    result["equal"] = (not result["only_in_first"] and not result["only_in_second"]
                       and not result["field_counts"] and not result["graph_fields"]
                       and not result["order_differs"])
    return result
