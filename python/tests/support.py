"""Shared helpers of the bridge's tests: paths, the binary, torch's presence."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
REPO = os.path.dirname(PYTHON_DIR)
SAMPLE_GRAPHS = os.path.join(REPO, "sample_graphs")

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)

HAVE_TORCH = importlib.util.find_spec("torch") is not None
NO_TORCH_REASON = "torch is not installed here (the bridge's torch tests run where it is)"


def tool_binary():
    """The partition_tool binary: $PARTITION_TOOL (CTest sets it), else the
    default build folder; None when neither exists."""
    for candidate in (os.environ.get("PARTITION_TOOL"),
                      os.path.join(REPO, "build", "app", "partition_tool")):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


NO_TOOL_REASON = "partition_tool binary not built (set PARTITION_TOOL or build into build/)"
