"""export(): a joint forward+backward fx.GraphModule (what AOTAutograd hands
the partitioner) as the project's graph JSON.

Every field comes from what PyTorch's own partitioner reads: node.meta["val"]
(FakeTensor / SymInt / tuples), the OpOverload's tags and schema,
node.meta["recompute"] / ["ac_graph_id"] / ["partitioner_tag"] /
["has_backward_hook"] / ["memory_budget"], and node.is_impure().
"""

import torch
import torch.fx as fx

from . import graph_json as gj

try:  # a hint for symbolic sizes, with PyTorch's fallback for unbacked ones
    from torch.fx.experimental.symbolic_shapes import hint_int as _hint_int
except ImportError:  # pragma: no cover - older torch
    _hint_int = None

_UNBACKED_FALLBACK = 4096


def target_name(node):
    """`aten.mm.default`, `prims.convert_element_type.default`,
    `operator.getitem`, `higher_order.<name>`; for placeholders and get_attr
    the target string itself."""
    t = node.target
    if node.op in ("placeholder", "get_attr", "output"):
        return str(t)
    if isinstance(t, torch._ops.OpOverload):
        return str(t)  # namespace.packet.overload
    if isinstance(t, torch._ops.OpOverloadPacket):
        return str(t)
    if isinstance(t, torch._ops.HigherOrderOperator):
        return f"higher_order.{t.name()}"
    module = getattr(t, "__module__", None) or ""
    name = getattr(t, "__name__", None) or str(t)
    if module in ("_operator", "operator"):
        module = "operator"
    return f"{module}.{name}" if module else name


def _hint(x):
    """An int for a size, stride or offset that may be symbolic."""
    if isinstance(x, int):
        return x
    if _hint_int is not None:
        try:
            return int(_hint_int(x, fallback=_UNBACKED_FALLBACK))
        except Exception:  # noqa: BLE001 - any failure means no hint
            pass
    hint = getattr(getattr(x, "node", None), "hint", None)
    return int(hint) if hint is not None else _UNBACKED_FALLBACK


def _is_symbolic(x):
    return isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool))


def _exprs(values):
    """Per-entry text, only when some entry is symbolic."""
    if not any(_is_symbolic(v) for v in values):
        return None
    return [str(v) for v in values]


def _dtype_name(dtype):
    return str(dtype).removeprefix("torch.")


class _StorageIds:
    """Small integer ids for storage identity: tensors that alias one storage
    (views, in-place results) get the same id."""

    def __init__(self):
        self._ids = {}

    def of(self, t):
        try:
            key = t.untyped_storage()._cdata
        except Exception:  # noqa: BLE001 - sparse, nested, functional wrappers
            return None
        return self._ids.setdefault(key, len(self._ids))


def _tensor_value(t, storages):
    shape, stride = list(t.shape), list(t.stride())
    offset = t.storage_offset()
    return gj.tensor_value(
        [_hint(s) for s in shape], [_hint(s) for s in stride],
        _dtype_name(t.dtype), str(t.device),
        shape_expr=_exprs(shape), stride_expr=_exprs(stride),
        storage=storages.of(t), storage_offset=_hint(offset),
        storage_offset_expr=str(offset) if _is_symbolic(offset) else None)


def encode_value(v, storages):
    """A node's meta["val"] as a Value."""
    if isinstance(v, torch.Tensor):
        return _tensor_value(v, storages)
    if isinstance(v, torch.SymInt):
        return gj.sym_value("int", str(v), _hint(v))
    if isinstance(v, torch.SymFloat):
        hint = getattr(v.node, "hint", None)
        return gj.sym_value("float", str(v), int(hint) if hint is not None else 0)
    if isinstance(v, torch.SymBool):
        hint = getattr(v.node, "hint", None)
        return gj.sym_value("bool", str(v), int(bool(hint)) if hint is not None else 0)
    if isinstance(v, (list, tuple)):
        return gj.tuple_value(encode_value(item, storages) for item in v)
    if v is None:
        return gj.none_value()
    return gj.opaque_value(type(v).__name__)


def _convert_arg(x):
    """Torch objects in args/kwargs as graph_json descriptions."""
    if isinstance(x, fx.Node):
        return gj.NodeRef(x.name)
    if isinstance(x, torch.dtype):
        return gj.Const("dtype", _dtype_name(x))
    if isinstance(x, torch.device):
        return gj.Const("device", str(x))
    if isinstance(x, (torch.SymInt, torch.SymFloat, torch.SymBool, torch.layout,
                      torch.memory_format)):
        return gj.Const("repr", str(x))
    return None


def _module_path(node):
    """The innermost module of nn_module_stack, as Dynamo names it
    (`L['m'].layer1.0.conv1`)."""
    stack = node.meta.get("nn_module_stack")
    if not stack:
        return None
    entry = list(stack.values())[-1]
    return entry[0] if isinstance(entry, tuple) else str(entry)


def _op_info(node):
    """(op_tags, mutable) of an OpOverload target."""
    t = node.target
    if node.op != "call_function" or not isinstance(t, torch._ops.OpOverload):
        return (), False
    tags = [getattr(tag, "name", str(tag).split(".")[-1]) for tag in t.tags]
    return tags, bool(t._schema.is_mutable)


def _impure(node):
    if node.op == "output":
        return False
    try:
        return bool(node.is_impure())
    except Exception:  # noqa: BLE001 - a target whose schema cannot be read
        return node.op == "placeholder"


def _recompute(node):
    policy = node.meta.get("recompute")
    if policy is None or policy is False:
        return None
    return getattr(policy, "name", str(policy))


def node_entries(gm):
    """The graph's nodes as Node dicts, in graph order."""
    storages = _StorageIds()
    nodes = []
    for node in gm.graph.nodes:
        tags, mutable = _op_info(node)
        val = None
        if node.op != "output":
            val = encode_value(node.meta.get("val"), storages)
        budget = node.meta.get("memory_budget")
        nodes.append(gj.node_entry(
            node.name, node.op, target_name(node),
            args=node.args if node.op != "placeholder" else (),
            kwargs=node.kwargs, val=val, op_tags=tags, mutable=mutable,
            recompute=_recompute(node),
            ac_graph_id=node.meta.get("ac_graph_id") if _recompute(node) else None,
            partitioner_tag=node.meta.get("partitioner_tag"),
            module_path=_module_path(node), impure=_impure(node),
            has_backward_hook=bool(node.meta.get("has_backward_hook", False)),
            memory_budget=budget if isinstance(budget, float) else None,
            convert=_convert_arg))
    return nodes


def export(gm, path, num_fwd_outputs, static_lifetime_input_indices=None,
           name=None, model=None):
    """Write the joint graph `gm` to `path` (.json) in the project's format."""
    name = name or getattr(gm, "_get_name", lambda: "joint")()
    graph = gj.graph_entry(
        name, node_entries(gm), num_fwd_outputs,
        static_lifetime_input_indices or [],
        {"producer": f"torch {torch.__version__}", "model": model or name})
    gj.write_graph(graph, path)
    return path


__all__ = ["export", "target_name", "encode_value", "node_entries"]
