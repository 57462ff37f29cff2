"""The project's graph JSON format (schemas/graph.proto, corpus/README.md) from
plain Python values.

Nothing here imports torch: the exporter turns torch objects into the plain
descriptions below (a node reference, a dtype name, a tensor's sizes), and
this module spells them exactly as the corpus files do. Field order follows
the corpus files (readers ignore it; it keeps diffs readable).
"""

import json
import math


class NodeRef:
    """A reference to another node of the graph, by name."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


class Const:
    """A constant that is neither a Python scalar nor a list: kind is
    'dtype' ('bfloat16'), 'device' ('cuda:0') or 'repr' (any other text)."""

    __slots__ = ("kind", "text")

    def __init__(self, kind, text):
        if kind not in ("dtype", "device", "repr"):
            raise ValueError(f"unknown constant kind {kind!r}")
        self.kind = kind
        self.text = text


def encode_float(x):
    """A float as the proto3 JSON mapping writes a double."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return x


def encode_arg(x, convert=None):
    """One Arg. `convert` maps objects this module does not know (torch
    nodes, dtypes, devices) to NodeRef, Const or a plain value; it returns
    None to leave an object as it is."""
    if convert is not None and not isinstance(x, (NodeRef, Const)):
        converted = convert(x)
        if converted is not None:
            x = converted
    if isinstance(x, NodeRef):
        return {"node": x.name}
    if isinstance(x, Const):
        return {x.kind: x.text}
    if x is None:
        return {"none": True}
    if isinstance(x, bool):  # before int: bool is an int in Python
        return {"bool": x}
    if isinstance(x, int):
        return {"int": x}
    if isinstance(x, float):
        return {"float": encode_float(x)}
    if isinstance(x, str):
        return {"str": x}
    if isinstance(x, (list, tuple)):
        return {"list": {"items": [encode_arg(item, convert) for item in x]}}
    return {"repr": str(x)}


def tensor_value(shape, stride, dtype, device, *, shape_expr=None,
                 stride_expr=None, storage=None, storage_offset=0,
                 storage_offset_expr=None):
    """A tensor Value. shape/stride are ints (symbolic dims at their hint);
    the *_expr lists are given only when some entry is symbolic."""
    meta = {"shape": list(shape), "dtype": dtype, "device": device,
            "stride": list(stride)}
    if shape_expr is not None:
        meta["shape_expr"] = list(shape_expr)
    if storage is not None:
        meta["storage"] = storage
    meta["storage_offset"] = storage_offset
    if stride_expr is not None:
        meta["stride_expr"] = list(stride_expr)
    if storage_offset_expr is not None:
        meta["storage_offset_expr"] = storage_offset_expr
    return {"tensor": meta}


def sym_value(kind, expr, hint):
    if kind not in ("int", "float", "bool"):
        raise ValueError(f"unknown symbolic kind {kind!r}")
    return {"sym": {"kind": kind, "expr": expr, "hint": int(hint)}}


def tuple_value(items):
    return {"tuple": {"items": list(items)}}


def none_value():
    return {"none": True}


def opaque_value(type_name):
    return {"opaque": type_name}


def node_entry(name, op, target, *, args=(), kwargs=None, val=None,
               op_tags=(), mutable=False, recompute=None, ac_graph_id=None,
               partitioner_tag=None, module_path=None, impure=False,
               has_backward_hook=False, memory_budget=None, convert=None):
    """One Node; fields at their default value are left out, as the corpus
    files do."""
    node = {"name": name, "op": op, "target": target}
    if args:
        node["args"] = [encode_arg(a, convert) for a in args]
    if kwargs:
        node["kwargs"] = {k: encode_arg(v, convert) for k, v in kwargs.items()}
    if val is not None:
        node["val"] = val
    optional = (("op_tags", sorted(op_tags) if op_tags else None),
                ("mutable", True if mutable else None),
                ("recompute", recompute or None),
                ("ac_graph_id", int(ac_graph_id) if ac_graph_id is not None else None),
                ("partitioner_tag", partitioner_tag or None),
                ("module_path", module_path or None),
                ("impure", True if impure else None),
                ("has_backward_hook", True if has_backward_hook else None),
                ("memory_budget", float(memory_budget) if memory_budget is not None else None))
    node.update((key, value) for key, value in optional if value is not None)
    return node


def graph_entry(name, nodes, num_fwd_outputs, static_lifetime_input_indices,
                metadata=None):
    return {"name": name, "nodes": list(nodes),
            "num_fwd_outputs": int(num_fwd_outputs),
            "static_lifetime_input_indices": [int(i) for i in static_lifetime_input_indices],
            "metadata": dict(metadata or {})}


def write_graph(graph, path):
    """Write a graph dict as JSON (NaN and infinities only ever appear as
    strings, so the file is strict JSON)."""
    with open(path, "w", encoding="utf-8") as f:
        json.dump(graph, f, allow_nan=False)
        f.write("\n")
