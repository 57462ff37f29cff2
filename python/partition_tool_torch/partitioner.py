"""PartitionToolPartitioner: Inductor's partitioner with the cut chosen by
the partition_tool binary.

The joint graph is exported, the binary picks the saved values, and PyTorch's
own min_cut_rematerialization_partition runs with its choice of saved values
(choose_saved_values_set) replaced by the tool's. So everything before the
cut (CSE, tag passes) and after it (extraction of the forward and backward
graphs, dropping unused saves, symbol bindings, RNG functionalization, the
backward's reordering) stays PyTorch's code.
"""

import contextlib
import hashlib
import os
import tempfile
import warnings

import torch._functorch.partitioners as partitioners

from . import cli, hook
from .exporter import export


# partition_tool settings that are torch._functorch.config keys of the same
# name and meaning. Inside the partition call PyTorch's config is set to the
# tool's values for these, so that PyTorch's steps around the cut (CSE before
# it, the budget its own choice is made under when compared) follow the
# same settings as the tool's cut.
_PYTORCH_KEYS = (
    "cse", "recompute_views", "aggressive_recomputation", "ban_recompute_used_far_apart",
    "ban_recompute_long_fusible_chains", "ban_recompute_materialized_backward",
    "ban_recompute_not_in_allowlist", "ban_recompute_reductions", "treat_parameters_as_free_to_save",
    "max_dist_from_bw", "activation_memory_budget", "activation_memory_budget_solver",
)


def pytorch_config(settings):
    """(patch, unmatched): the torch._functorch.config values that mirror
    `settings`, and the settings PyTorch has no knob for (dist_from_bw_base,
    memory_limit, op-class edits, ...): under those, PyTorch's own choice is
    not the same question as the tool's."""
    import torch._functorch.config as fconfig
    patch, unmatched = {}, []
    for key, value in settings.items():
        if key in _PYTORCH_KEYS and hasattr(fconfig, key):
            patch[key] = _like(value, getattr(fconfig, key))
        else:
            unmatched.append(key)
    return patch, sorted(unmatched)


def _like(value, current):
    """A setting's value (text, bool or number) as the type of PyTorch's own."""
    if isinstance(current, bool):
        return str(value).lower() in ("true", "1")
    if isinstance(current, int):
        return int(float(value))
    if isinstance(current, float):
        return float(value)
    return str(value)


@contextlib.contextmanager
def _saved_values_replaced(choose):
    """Replace partitioners.choose_saved_values_set (looked up at call time
    by min_cut_rematerialization_partition) for the block."""
    original = partitioners.choose_saved_values_set
    partitioners.choose_saved_values_set = lambda *a, **k: choose(original, *a, **k)
    try:
        yield
    finally:
        partitioners.choose_saved_values_set = original


class PartitionToolPartitioner(hook.PartitionerBase):
    """A CustomPartitionerFn for torch._inductor.config.custom_partitioner_fn.

    settings: partition_tool keys (`{"dist_from_bw_base": 1.2}`), passed as
    --set key=value. binary: the tool (default $PARTITION_TOOL, then PATH).
    work_dir: where graphs and reports go (default: a temporary directory,
    removed unless keep_files). compare_with_pytorch: also run PyTorch's own
    choice on each graph and record it. PyTorch's partition call runs with
    torch._functorch.config set to the tool's values for the settings both
    have (pytorch_config); settings PyTorch lacks are recorded per graph and
    named in a warning, since PyTorch's choice then answers another question. `records` lists, per joint graph, the
    tool's saved values and symbols, the forward's final saved outputs and,
    when compared, PyTorch's choice.
    """

    def __init__(self, settings=None, binary=None, device=None, work_dir=None,
                 keep_files=False, compare_with_pytorch=False, name="graph"):
        self.settings = dict(settings or {})
        self.binary = cli.find_binary(binary)
        self.device = device
        self.work_dir = work_dir
        self.keep_files = keep_files or work_dir is not None
        self.compare_with_pytorch = compare_with_pytorch
        self.name = name
        self.records = []
        self._warned = False

    def __call__(self, gm, joint_inputs, **kwargs):
        num_fwd_outputs = kwargs["num_fwd_outputs"]
        static = kwargs.get("static_lifetime_input_indices") or []
        stem = self.name if not self.records else f"{self.name}_{len(self.records)}"
        with self._directory() as d:
            graph_path = os.path.join(d, f"{stem}.graph.json")
            export(gm, graph_path, num_fwd_outputs, static, name=stem, model=self.name)
            report = cli.run_partition(self.binary, graph_path,
                                       os.path.join(d, f"{stem}.report.json"),
                                       self.settings, self.device)
        values, symbols = cli.saved_names(report)
        record = {"graph": graph_path if self.keep_files else None,
                  "saved_values": values, "saved_sym_nodes": symbols,
                  "applied": False, "prediction": cli.predicted_cost(report)}

        def choose(original, joint_graph, *args, **kw):
            if self.compare_with_pytorch:
                record["pytorch_choice"] = [
                    n.name for n in original(joint_graph, *args, **kw)]
            record["applied"] = True
            return _nodes_by_name(joint_graph, values + symbols)

        patch, unmatched = pytorch_config(self.settings)
        if self.compare_with_pytorch:
            record["pytorch_settings"] = patch
            record["settings_pytorch_lacks"] = unmatched
            if unmatched and not self._warned:
                warnings.warn("compare_with_pytorch: PyTorch has no setting for " + ", ".join(unmatched)
                              + "; its choice is made without them, so it answers another question", stacklevel=2)
                self._warned = True
        import torch._functorch.config as fconfig
        with fconfig.patch(patch), _saved_values_replaced(choose):
            fw, bw = hook.pytorch_partition(gm, joint_inputs, **kwargs)
        record["saved"] = hook.forward_saved_outputs(fw, num_fwd_outputs)
        record["digests"] = [hook.module_digest(fw), hook.module_digest(bw)]
        self.records.append(record)
        return fw, bw

    def uuid(self):
        """Same settings, same binary, same bridge code: same partition."""
        h = hashlib.sha256()
        h.update(repr(sorted((k, cli.format_setting(v)) for k, v in self.settings.items())).encode())
        h.update(str(self.device).encode())
        for path in [self.binary, *_package_files()]:
            with open(path, "rb") as f:
                h.update(hashlib.sha256(f.read()).digest())
        return h.hexdigest()

    @contextlib.contextmanager
    def _directory(self):
        if self.work_dir is not None:
            os.makedirs(self.work_dir, exist_ok=True)
            yield self.work_dir
        elif self.keep_files:
            yield tempfile.mkdtemp(prefix="partition_tool_")
        else:
            with tempfile.TemporaryDirectory(prefix="partition_tool_") as d:
                yield d


def _nodes_by_name(joint_graph, names):
    """The joint graph's nodes of these names, in graph order (as PyTorch's
    own choice is)."""
    order = {n.name: i for i, n in enumerate(joint_graph.nodes)}
    missing = [n for n in names if n not in order]
    if missing:
        raise cli.PartitionToolError(
            f"partition_tool saved {missing[:5]} which PyTorch's graph (after its CSE) "
            "does not have: the tool's preparation and PyTorch's disagree on this graph")
    wanted = set(names)
    return [n for n in joint_graph.nodes if n.name in wanted]


def _package_files():
    here = os.path.dirname(os.path.abspath(__file__))
    return sorted(os.path.join(here, f) for f in os.listdir(here) if f.endswith(".py"))
