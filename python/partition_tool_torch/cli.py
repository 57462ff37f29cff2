"""Finding and running the partition_tool binary (no torch needed)."""

import json
import os
import shutil
import subprocess


class PartitionToolError(RuntimeError):
    """The binary failed; carries its exit code and stderr."""

    def __init__(self, message, returncode=None, stderr=""):
        super().__init__(message)
        self.returncode = returncode
        self.stderr = stderr


# Exit codes of partition_tool (its --help): 2 bad input, 3 infeasible, 4 internal.
EXIT_MEANINGS = {2: "bad input, settings or command line",
                 3: "infeasible: no finite cut, or no plan fits the memory limit", 4: "internal error"}


def find_binary(explicit=None):
    """The binary: `explicit`, else $PARTITION_TOOL, else partition_tool on PATH."""
    candidate = explicit or os.environ.get("PARTITION_TOOL") or shutil.which("partition_tool")
    if not candidate:
        raise PartitionToolError(
            "partition_tool not found: set PARTITION_TOOL to the binary or put it on PATH")
    if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
        raise PartitionToolError(f"partition_tool at {candidate!r} is not an executable file")
    return candidate


def format_setting(value):
    """A Python setting value as the tool's --set text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)):
        return ",".join(str(v) for v in value)
    return str(value)


def build_command(binary, graph_path, report_path, settings=None, device=None,
                  extra_args=()):
    """The argument list of one partition run: --input, --report-json, one
    --set per setting (in the order given), --device when asked for."""
    cmd = [binary, "--input", str(graph_path), "--report-json", str(report_path)]
    for key, value in (settings or {}).items():
        if not key or "=" in key:
            raise ValueError(f"bad setting key {key!r}")
        cmd += ["--set", f"{key}={format_setting(value)}"]
    if device:
        cmd += ["--device", str(device)]
    cmd += list(extra_args)
    return cmd


def run_partition(binary, graph_path, report_path, settings=None, device=None,
                  extra_args=(), timeout=None):
    """Run the tool and return its JSON report as a dict."""
    cmd = build_command(binary, graph_path, report_path, settings, device, extra_args)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        meaning = EXIT_MEANINGS.get(proc.returncode, "failed")
        raise PartitionToolError(
            f"partition_tool exited {proc.returncode} ({meaning}) on {graph_path}: "
            f"{proc.stderr.strip()[-2000:]}", proc.returncode, proc.stderr)
    with open(report_path, encoding="utf-8") as f:
        return json.load(f)


def saved_names(report):
    """(saved_values, saved_sym_nodes) from a --report-json report."""
    missing = [k for k in ("saved_values", "saved_sym_nodes") if k not in report]
    if missing:
        raise PartitionToolError(f"report lacks {', '.join(missing)}")
    return list(report["saved_values"]), list(report["saved_sym_nodes"])


def predicted_cost(report):
    """What the report predicts, where this build of the tool writes it:
    bandwidth.{forward,backward}.seconds and memory.peak_bytes."""
    out = {}
    bw = report.get("bandwidth")
    if isinstance(bw, dict):
        parts = [bw.get(side, {}).get("seconds") for side in ("forward", "backward")]
        if all(isinstance(p, (int, float)) for p in parts):
            out["forward_s"], out["backward_s"] = parts
            out["step_s"] = parts[0] + parts[1]
    mem = report.get("memory")
    if isinstance(mem, dict) and isinstance(mem.get("peak_bytes"), (int, float)):
        out["peak_bytes"] = mem["peak_bytes"]
    return out
