"""Where Inductor hands the joint graph to a partitioner (PyTorch 2.11).

torch._inductor.compile_fx.partition_fn runs Inductor's joint-graph passes,
then, when torch._inductor.config.custom_partitioner_fn is set, asserts that
it is an instance of CustomPartitionerFn and calls it as
`fn(gm, joint_inputs, compiler="inductor", num_fwd_outputs=...,
static_lifetime_input_indices=..., ...)`; it must return (fw_module,
bw_module). Otherwise it calls min_cut_rematerialization_partition with the
same arguments.
"""

import contextlib
import hashlib

import torch
import torch._functorch.config
import torch._functorch.partitioners as partitioners
import torch._inductor.config


def _partitioner_base():
    """The class compile_fx checks custom_partitioner_fn against."""
    try:
        from torch._inductor import compile_fx
        base = getattr(compile_fx, "CustomPartitionerFn", None)
        if base is not None:
            return base
    except ImportError:  # pragma: no cover
        pass
    from torch._inductor.custom_graph_pass import CustomPartitionerFn
    return CustomPartitionerFn


PartitionerBase = _partitioner_base()


def pytorch_partition(gm, joint_inputs, **kwargs):
    """PyTorch's own partitioner, called exactly as compile_fx calls it."""
    return partitioners.min_cut_rematerialization_partition(gm, joint_inputs, **kwargs)


def forward_saved_outputs(fw_module, num_fwd_outputs):
    """Names of what the forward graph outputs for the backward (saved
    tensors, then saved symbols), after PyTorch's extraction."""
    out = next(n for n in reversed(fw_module.graph.nodes) if n.op == "output")
    values = out.args[0]
    values = values if isinstance(values, (list, tuple)) else [values]
    return [getattr(v, "name", repr(v)) for v in values[num_fwd_outputs:]]


def module_digest(gm):
    """A digest of a partitioned graph's generated code: equal digests mean
    the same graph (same nodes, names and order)."""
    return hashlib.sha256(gm.code.encode()).hexdigest()[:16]


@contextlib.contextmanager
def installed(partitioner, disable_caches=True):
    """Make `partitioner` Inductor's partitioner for the block. With
    disable_caches, the FX graph and AOTAutograd caches are off, so a cached
    compile cannot skip the partition call."""
    patches = {"custom_partitioner_fn": partitioner}
    if disable_caches:
        patches["fx_graph_cache"] = False
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch._inductor.config.patch(patches))
        if disable_caches and hasattr(torch._functorch.config, "enable_autograd_cache"):
            stack.enter_context(torch._functorch.config.patch(enable_autograd_cache=False))
        yield partitioner
