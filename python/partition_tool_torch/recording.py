"""capture(): compile one training step with Inductor and write every joint
graph it partitions, unchanged: the recording partitioner exports the graph
it is handed and returns PyTorch's own partition of it."""

import itertools
import os
import types
import uuid

import torch

from . import hook
from .exporter import export


class RecordingPartitioner(hook.PartitionerBase):
    """Exports each joint graph to out_dir, then delegates to PyTorch's
    min_cut_rematerialization_partition. `records` lists, per graph, the file
    and the forward's saved outputs that PyTorch chose."""

    def __init__(self, out_dir, name="graph", export_graphs=True):
        self.out_dir = out_dir
        self.name = name
        self.export_graphs = export_graphs
        self.records = []
        self._nonce = uuid.uuid4().hex  # never share a cache entry

    def __call__(self, gm, joint_inputs, **kwargs):
        num_fwd_outputs = kwargs["num_fwd_outputs"]
        static = kwargs.get("static_lifetime_input_indices") or []
        index = len(self.records)
        path = None
        if self.export_graphs:
            stem = self.name if index == 0 else f"{self.name}_{index}"
            path = os.path.join(self.out_dir, f"{stem}.graph.json")
            export(gm, path, num_fwd_outputs, static, name=stem, model=self.name)
        fw, bw = hook.pytorch_partition(gm, joint_inputs, **kwargs)
        self.records.append({"graph": path, "num_fwd_outputs": num_fwd_outputs,
                             "saved": hook.forward_saved_outputs(fw, num_fwd_outputs),
                             "digests": [hook.module_digest(fw), hook.module_digest(bw)]})
        return fw, bw

    def uuid(self):
        return f"partition_tool_torch.capture:{self._nonce}"


def _backward(out):
    """Run the backward of a step's result: a scalar loss, or the first
    tensor of a tuple/list/dict that requires grad."""
    if isinstance(out, dict):
        out = list(out.values())
    if isinstance(out, (list, tuple)):
        out = next((o for o in out if isinstance(o, torch.Tensor) and o.requires_grad), None)
    if isinstance(out, torch.Tensor) and out.requires_grad:
        (out if out.numel() == 1 else out.sum()).backward()


_CAPTURES = itertools.count()


def capture(fn, *args, out_dir, name=None, compile_kwargs=None, reset=False, **kwargs):
    """Compile `fn` with Inductor, run it once on args/kwargs plus its
    backward, and write each joint graph to out_dir/<name>[_i].graph.json.

    `fn` is compiled as a fresh copy (its own code object, so its own Dynamo
    cache entry): a function compiled before is traced again, and what the
    program compiled before stays compiled. reset=True calls
    torch._dynamo.reset() first instead, which throws every compiled
    function of the process away. Returns the list of records (file, saved
    outputs).
    """
    os.makedirs(out_dir, exist_ok=True)
    name = name or getattr(fn, "__name__", type(fn).__name__)
    if reset:
        torch._dynamo.reset()
    recorder = RecordingPartitioner(out_dir, name)
    compiled = torch.compile(fresh_copy(fn, f"capture_{next(_CAPTURES)}"), backend="inductor",
                             **(compile_kwargs or {}))
    with hook.installed(recorder):
        _backward(compiled(*args, **kwargs))
    return recorder.records


def fresh_copy(fn, tag):
    """`fn` behind a code object of its own, so that Dynamo traces it anew
    without a reset (Dynamo keeps its compiled code per code object). A
    module or other callable is wrapped in a new function that calls it."""
    if not isinstance(fn, types.FunctionType):
        target = fn

        def call(*a, **k):
            return target(*a, **k)
        fn = call
    code = fn.__code__.replace(co_name=f"{fn.__name__}_{tag}")
    return types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)
