"""partition_tool_torch: PyTorch's joint graphs to and from partition_tool.

- export(gm, path, num_fwd_outputs=..., static_lifetime_input_indices=...):
  a joint forward+backward graph as the project's graph JSON;
- capture(fn, *args, out_dir=...): compile one training step with Inductor
  and write every joint graph it partitions;
- PartitionToolPartitioner(settings): an Inductor custom partitioner whose
  cut comes from the partition_tool binary.

Only torch and the standard library are needed; the torch-free parts
(graph_json, cli) import without torch.
"""

_LAZY = {
    "export": ("exporter", "export"),
    "capture": ("recording", "capture"),
    "RecordingPartitioner": ("recording", "RecordingPartitioner"),
    "PartitionToolPartitioner": ("partitioner", "PartitionToolPartitioner"),
    "installed": ("hook", "installed"),
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    """Torch-dependent names load on first use, so `import
    partition_tool_torch.graph_json` works where torch is missing."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib
    module_name, attr = _LAZY[name]
    value = getattr(importlib.import_module(f".{module_name}", __name__), attr)
    globals()[name] = value
    return value
