#!/usr/bin/env python3
"""Replay the allocations of one Inductor output file's call() and report its peak.

Walks the generated wrapper code of a forward or backward graph (the
`code/<hash>.py` files of a memsnap run's code.tar.gz) line by line:
`empty_strided_cuda` allocates, `bufN = X; del X  # reuse` and
`reinterpret_tensor` alias, `del` frees, the outputs of extern kernels
(`bufN = bufM[i]` then `assert_size_stride(bufN, ..., 'op')`) allocate. The
arguments count as live from the start (their sizes from the
`assert_size_stride` checks, their dtypes from the graph fragments' comments,
`%name : Tensor "bf16[...]"`), except parameters (`--skip-prefix`, default
primals_: the measured step peak leaves them out). Prints the peak, the line
and kernel it falls on, and the live buffers there; `--timeline` prints the
live bytes at every kernel.

Example: vit_b16 under aggressive_recomputation, whose backward replays to
1.425 GB, the measured step peak, at its third kernel (docs/bandwidth_model.md).

`--report R.json` (partition_tool's JSON report of the same graph and
setting) sets the model's backward peak beside the replay: its
memory.backward_peak_bytes minus memory.input_bytes is the same quantity
(saved values, tangents and temporaries; parameters and batch left out),
so the difference is the peak simulation's own miss, apart from what the
allocator and libraries add on the GPU.
"""
import argparse
import collections
import json
import re

DTYPE_BYTES = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i64": 8, "i32": 4, "b8": 1, "u8": 1, "i8": 1}
TORCH_BYTES = {"torch.bfloat16": 2, "torch.float16": 2, "torch.float32": 4, "torch.float64": 8,
               "torch.int64": 8, "torch.int32": 4, "torch.bool": 1, "torch.uint8": 1, "torch.int8": 1}


def storage_bytes(shape, stride, itemsize):
    shape, stride = eval(shape), eval(stride)  # tuples of ints in generated code
    if any(s == 0 for s in shape):
        return 0
    return (1 + sum((a - 1) * b for a, b in zip(shape, stride))) * itemsize


class Replay:
    def __init__(self):
        self.storage = {}  # name -> storage key
        self.size = {}     # storage key -> bytes
        self.refs = collections.Counter()
        self.live = 0

    def alloc(self, name, nbytes):
        self.storage[name] = name
        self.size[name] = nbytes
        self.refs[name] = 1
        self.live += nbytes

    def alias(self, new, old, steal):
        if old not in self.storage:
            return
        key = self.storage.pop(old) if steal else self.storage[old]
        if not steal:
            self.refs[key] += 1
        self.storage[new] = key

    def free(self, name):
        if name not in self.storage:
            return
        key = self.storage.pop(name)
        self.refs[key] -= 1
        if self.refs[key] == 0:
            self.live -= self.size.pop(key)

    def live_set(self):
        return {n: self.size[k] for n, k in self.storage.items() if k in self.size}


def replay(path, skip_prefix):
    lines = open(path).read().split("\n")
    dtypes = {m.group(1): m.group(2) for m in re.finditer(r'%(\w+) : Tensor "(\w+)\[', "\n".join(lines))}
    start = next(i for i, l in enumerate(lines) if "def call(" in l)
    r = Replay()
    peak, peak_line, peak_set, timeline = 0, None, {}, []
    for i in range(start, len(lines)):
        l = lines[i].strip()
        m = re.match(r"assert_size_stride\((\w+), (\(.*?\)), (\(.*?\)), '.*'\)", l)
        if m:  # an extern kernel's output
            if m.group(1) not in r.storage:
                r.alloc(m.group(1), storage_bytes(m.group(2), m.group(3), DTYPE_BYTES.get(dtypes.get(m.group(1)), 2)))
            continue
        m = re.match(r"assert_size_stride\((\w+), (\(.*?\)), (\(.*?\))\)", l)
        if m:  # an argument
            name = m.group(1)
            if not name.startswith(skip_prefix) and not name.startswith("tangents"):
                r.alloc(name, storage_bytes(m.group(2), m.group(3), DTYPE_BYTES.get(dtypes.get(name), 2)))
            continue
        m = re.match(r"(\w+) = empty_strided_cuda\((\(.*?\)), (\(.*?\)), (torch\.\w+)\)", l)
        if m:
            r.alloc(m.group(1), storage_bytes(m.group(2), m.group(3), TORCH_BYTES[m.group(4)]))
            continue
        m = re.match(r"(\w+) = (\w+); del (\w+)\s+# reuse", l)
        if m:
            r.alias(m.group(1), m.group(2), steal=True)
            continue
        m = re.match(r"(\w+) = reinterpret_tensor\((\w+),", l)
        if m:
            r.alias(m.group(1), m.group(2), steal="# reuse" in l)
            continue
        m = re.match(r"del (\w+)", l)
        if m:
            r.free(m.group(1))
            continue
        m = re.search(r"(triton_\w+)\.run|extern_kernels\.(\w+)|torch\.ops\.(\w+\.\w+)", l)
        if m:
            timeline.append((i + 1, r.live, m.group(0)))
            if r.live > peak:
                peak, peak_line, peak_set = r.live, i + 1, r.live_set()
        if l.startswith("return"):
            break
    return peak, peak_line, lines[peak_line - 1].strip() if peak_line else "", peak_set, timeline


def model_backward_bytes(memory):
    """What a report's `memory` section predicts of the replay: the backward
    peak less the inputs (parameters and batch)."""
    return memory["backward_peak_bytes"] - memory["input_bytes"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file", help="an Inductor output file (code/<hash>.py)")
    ap.add_argument("--skip-prefix", default="primals_", help="arguments left out (held before the step)")
    ap.add_argument("--timeline", action="store_true", help="live bytes at every kernel")
    ap.add_argument("--min-mb", type=float, default=5.0, help="list live buffers from this size")
    ap.add_argument("--report", help="partition_tool's JSON report of the same graph and setting")
    a = ap.parse_args()
    peak, line, text, live, timeline = replay(a.file, a.skip_prefix)
    print(f"peak {peak / 1e9:.3f} GB at line {line}: {text[:160]}")
    if a.report:
        memory = json.load(open(a.report))["memory"]
        model = model_backward_bytes(memory)
        print(f"model: backward peak less inputs {model / 1e9:.3f} GB at {memory['peak_at']} "
              f"({(model - peak) / 1e6:+.0f} MB, {(model / peak - 1) * 100 if peak else 0:+.1f}% of the replay)")
    sizes = collections.Counter(v for v in live.values() if v >= a.min_mb * 1e6)
    print("live buffers by size (MB: count):", {round(k / 1e6, 2): n for k, n in sorted(sizes.items(), reverse=True)})
    print("live:", " ".join(n for n, v in sorted(live.items(), key=lambda x: -x[1]) if v >= a.min_mb * 1e6))
    if a.timeline:
        for ln, b, k in timeline:
            print(f"{ln:6d} {b / 1e9:.3f} {k[:110]}")


if __name__ == "__main__":
    main()
