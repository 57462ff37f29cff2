"""The graph facts and the knapsacks budget_crosscheck.py re-derives
(docs/design.md sections 2 and 5): value sizes from the graph JSON, the
matmul/convolution FLOPs, and the dp (float32 cells) and greedy knapsacks.
Python 3 standard library only."""

import json
import math
import struct
from array import array

ITEMSIZE = {
    "float64": 8, "double": 8, "float32": 4, "float": 4, "float16": 2, "half": 2,
    "bfloat16": 2, "complex32": 4, "complex64": 8, "complex128": 16,
    "int64": 8, "long": 8, "int32": 4, "int": 4, "int16": 2, "short": 2,
    "int8": 1, "uint8": 1, "uint16": 2, "uint32": 4, "uint64": 8, "bool": 1,
    "float8_e4m3fn": 1, "float8_e5m2": 1, "float8_e4m3fnuz": 1,
    "float8_e5m2fnuz": 1, "float8_e8m0fnu": 1, "qint8": 1, "quint8": 1, "qint32": 4,
}


def itemsize(dtype):
    dtype = (dtype or "").replace("torch.", "")
    if dtype in ITEMSIZE:
        return ITEMSIZE[dtype]
    digits = "".join(c if c.isdigit() else " " for c in dtype).split()
    if digits:  # float8_* and the like: the first bit count in the name
        return max(1, int(digits[0]) // 8)
    raise ValueError("unknown dtype %r" % dtype)


def tensor_numel(t):
    n = 1
    for d in t.get("shape", []):
        n *= int(d)
    return n


def value_bytes(v):
    """Section 2: numel x itemsize; tuples sum their tensors; a symbol is 1."""
    if not v:
        return 0
    if "tensor" in v:
        t = v["tensor"]
        return tensor_numel(t) * itemsize(t.get("dtype"))
    if "tuple" in v:
        return sum(tensor_numel(i["tensor"]) * itemsize(i["tensor"].get("dtype"))
                   for i in v["tuple"].get("items", []) if "tensor" in i)
    if "sym" in v:
        return 1
    return 0


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


class Graph:
    def __init__(self, name, path):
        with open(path) as f:
            d = json.load(f)
        self.name = name
        self.nodes = {}
        self.order = {}
        self.size = {}
        self.inputs = []
        for i, n in enumerate(d["nodes"]):
            self.nodes[n["name"]] = n
            self.order[n["name"]] = i
            self.size[n["name"]] = value_bytes(n.get("val"))
            if n["op"] == "placeholder" and self.is_input(n["name"]):
                self.inputs.append(n["name"])
        self.input_set = set(self.inputs)
        self.input_bytes = sum(self.size[x] for x in self.inputs)
        self.must_save = {k for k, n in self.nodes.items() if n.get("recompute") == "MUST_SAVE"}
        self.nontensor_input = any("tensor" not in (self.nodes[x].get("val") or {}) for x in self.inputs)

    @staticmethod
    def is_input(name):
        """Primals and forward seeds: every placeholder but tangents and backward seeds."""
        if "tangents" in name:
            return False
        if "bwd_seed" in name or "bwd_base_offset" in name:
            return False
        return True

    def set_bytes(self, names):
        return sum(self.size[x] for x in names)

    def shape_of(self, arg):
        if not isinstance(arg, dict) or "node" not in arg:
            return None
        v = self.nodes[arg["node"]].get("val") or {}
        if "tensor" not in v:
            return None
        return [int(d) for d in v["tensor"].get("shape", [])]

    def flops(self, name):
        """FLOPs of the ops whose formula this check re-derives; None otherwise."""
        n = self.nodes[name]
        target = n.get("target", "")
        parts = target.split(".")
        packet = ".".join(parts[:2]) if len(parts) >= 2 else target
        args = n.get("args", [])
        out = self.shape_of({"node": name})
        if packet == "aten.mm":
            a, b = self.shape_of(args[0]), self.shape_of(args[1])
            return 2 * a[0] * b[1] * a[1]
        if packet == "aten.addmm":
            a, b = self.shape_of(args[1]), self.shape_of(args[2])
            return 2 * a[0] * b[1] * a[1]
        if packet == "aten.bmm":
            a, b = self.shape_of(args[0]), self.shape_of(args[1])
            return 2 * a[0] * a[1] * b[2] * a[2]
        if packet == "aten.baddbmm":
            a, b = self.shape_of(args[1]), self.shape_of(args[2])
            return 2 * a[0] * a[1] * b[2] * a[2]
        if packet in ("aten.convolution", "aten._convolution"):
            x, w = self.shape_of(args[0]), self.shape_of(args[1])
            transposed = len(args) > 6 and args[6].get("bool") is True
            spatial = (x if transposed else out)[2:]
            return 2 * x[0] * w[0] * w[1] * math.prod(w[2:]) * math.prod(spatial)
        return None


# ---- the knapsack, re-implemented from docs/design.md section 5 -----------------

def dp_knapsack(memories, runtimes, budget):
    """Returns the kept flags. float32 cells, quantized memories, walk back
    from the capacity; a cell equal to the one above means 'not kept'."""
    q = [round(m * 10000) for m in memories]
    cap = round(budget * 10000)
    rt = [f32(r) for r in runtimes]
    rows = [array("f", bytes(4 * (cap + 1)))]
    for m, r in zip(q, rt):
        prev = rows[-1]
        if m > cap:
            rows.append(prev)
            continue
        # max(prev[j], f32(prev[j-m] + r)) == f32(max(prev[j], prev[j-m] + r)):
        # rounding to float32 is monotone and prev[j] is already a float32.
        # array('f') rounds each double to float32 on the way in.
        head = prev[:m] if m else array("f")
        tail = array("f", map(max, prev[m:], [x + r for x in prev[:cap + 1 - m]]))
        rows.append(head + tail)
    kept = [False] * len(q)
    j = cap
    for i in range(len(q), 0, -1):
        if rows[i][j] != rows[i - 1][j]:
            kept[i - 1] = True
            j -= q[i - 1]
    return kept


def greedy_knapsack(memories, runtimes, budget):
    def ratio(i):
        return runtimes[i] / memories[i] if memories[i] > 0 else math.inf
    order = sorted(range(len(memories)), key=ratio, reverse=True)  # stable
    kept = [False] * len(memories)
    total = 0.0
    for i in order:
        if total + memories[i] <= budget:
            total += memories[i]
            kept[i] = True
    return kept
