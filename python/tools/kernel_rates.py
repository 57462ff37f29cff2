"""How long single kernels take on this GPU, by size and shape, inside a
CUDA graph (as the step times of docs/prediction_accuracy.md are measured):
the data that the bandwidth model's per-kernel floor and its matmul rates
are fitted to (docs/bandwidth_model.md). Writes one JSON file.

  python3 python/tools/kernel_rates.py --out $OUT/kernel_rates.json

- elementwise: out-of-place multiply of n elements, bf16 and fp32, from
  4 KiB to 512 MiB read: the fixed cost of a small kernel and the rate of
  a large one.
- row sums: a (rows, cols) bf16 tensor summed over its last dimension.
- linear: the three matmuls of a linear layer with `tokens` rows, `a`
  inputs and `b` outputs (forward x @ W.T, input gradient dY @ W, weight
  gradient dY.T @ x), bf16 and fp32 (TF32), over a grid of shapes.
- bmm: the batched matmuls of unfused attention (scores and context).
- grouped convolutions (bf16, channels-last, 3x3): forward, input and weight
  gradient, by channels per group, beside dense ones of the same size.
- dense convolutions (bf16, channels-last, B=64): the layer shapes of
  ResNet-50 and VGG, 1x1 and 3x3, the three kernels each.
- NCHW convolutions (bf16, B=64): DenseNet's, ResNet's, ResNeXt's and
  RegNetY's layer shapes in NCHW beside the same in channels-last, and the
  kernels cuDNN launches for each NCHW call (its layout conversions among
  them).
- BatchNorm statistics (bf16, B=64, channels-last and NCHW): Inductor's
  kernels for a training BatchNorm's mean and variance, timed right after
  the kernel that wrote their input (as the forward runs them) and after a
  write of 256 MiB that evicts it from L2 (as a backward that recomputes
  them from a saved activation does).
"""
import argparse
import json
import time

import torch

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True


def graph_ms(fn, inner=10, replays=5):
    """Milliseconds of one call of fn, from a CUDA graph of `inner` calls
    replayed `replays` times (median of the replays)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(inner):
            fn()
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / inner)
    del g
    times.sort()
    return times[len(times) // 2]


def elementwise(out):
    rows = []
    for dt, size in ((torch.bfloat16, 2), (torch.float32, 4)):
        for p in range(12, 30):
            n = (1 << p) // size
            x = torch.randn(n, device="cuda", dtype=dt)
            y = torch.empty_like(x)
            ms = graph_ms(lambda: torch.mul(x, 2, out=y))
            rows.append({"dtype": str(dt).split(".")[-1], "numel": n, "bytes": 2 * n * size, "ms": ms})
            del x, y
    out["elementwise"] = rows


def row_sums(out):
    rows = []
    for r, c in ((8192, 512), (8192, 4096), (65536, 768), (802816, 96), (128, 62720), (8192, 49),
                 (401408, 64), (6272, 960)):
        x = torch.randn(r, c, device="cuda", dtype=torch.bfloat16)
        y = torch.empty(r, device="cuda", dtype=torch.bfloat16)
        ms = graph_ms(lambda: torch.sum(x, dim=1, out=y))
        rows.append({"rows": r, "cols": c, "bytes": r * c * 2 + r * 2, "ms": ms})
        del x, y
    out["row_sums"] = rows


def linear(out, deadline):
    rows = []
    dims = (96, 256, 512, 768, 1024, 2048, 4096)
    for dt in (torch.bfloat16, torch.float32):
        for tokens in (2048, 8192, 32768, 131072):
            for a in dims:
                for b in dims:
                    if time.time() > deadline:
                        out["linear_truncated"] = True
                        out["linear"] = rows
                        return
                    x = torch.randn(tokens, a, device="cuda", dtype=dt)
                    w = torch.randn(b, a, device="cuda", dtype=dt)
                    dy = torch.randn(tokens, b, device="cuda", dtype=dt)
                    y = torch.empty(tokens, b, device="cuda", dtype=dt)
                    dx = torch.empty(tokens, a, device="cuda", dtype=dt)
                    dw = torch.empty(b, a, device="cuda", dtype=dt)
                    flops = 2 * tokens * a * b
                    inner = 10 if flops < 1e11 else 3
                    row = {"dtype": str(dt).split(".")[-1], "tokens": tokens, "a": a, "b": b, "flops": flops,
                           "forward_ms": graph_ms(lambda: torch.mm(x, w.t(), out=y), inner),
                           "input_grad_ms": graph_ms(lambda: torch.mm(dy, w, out=dx), inner),
                           "weight_grad_ms": graph_ms(lambda: torch.mm(dy.t(), x, out=dw), inner)}
                    rows.append(row)
                    del x, w, dy, y, dx, dw
    out["linear"] = rows


def bmm(out):
    rows = []
    for batch, s, d in ((128, 512, 64), (128, 1024, 64), (96, 197, 64), (64, 2048, 128), (256, 256, 32)):
        q = torch.randn(batch, s, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(batch, d, s, device="cuda", dtype=torch.bfloat16)
        scores = torch.empty(batch, s, s, device="cuda", dtype=torch.bfloat16)
        ctx = torch.empty(batch, s, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(batch, s, d, device="cuda", dtype=torch.bfloat16)
        rows.append({"batch": batch, "seq": s, "head": d, "flops": 2 * batch * s * s * d,
                     "scores_ms": graph_ms(lambda: torch.bmm(q, k, out=scores)),
                     "context_ms": graph_ms(lambda: torch.bmm(scores, v, out=ctx))})
        del q, k, scores, ctx, v
    out["bmm"] = rows


def grouped_conv(out):
    rows = []
    aten = torch.ops.aten
    for width, per_group, hw, stride in ((48, 24, 56, 1), (120, 24, 28, 1), (336, 24, 14, 1), (888, 24, 7, 1),
                                         (336, 24, 28, 2), (128, 4, 56, 1), (256, 8, 28, 1), (512, 16, 14, 1),
                                         (256, 32, 28, 1), (512, 64, 14, 1), (256, 256, 28, 1), (512, 512, 14, 1),
                                         (256, 1, 28, 1), (512, 1, 14, 1), (1024, 32, 14, 1), (2048, 64, 7, 1)):
        groups = width // per_group
        x = torch.randn(64, width, hw, hw, device="cuda", dtype=torch.bfloat16).contiguous(
            memory_format=torch.channels_last)
        w = torch.randn(width, per_group, 3, 3, device="cuda", dtype=torch.bfloat16).contiguous(
            memory_format=torch.channels_last)
        y = aten.convolution(x, w, None, [stride] * 2, [1, 1], [1, 1], False, [0, 0], groups)
        gy = torch.randn_like(y)

        def bwd(mask):
            return lambda: aten.convolution_backward(gy, x, w, None, [stride] * 2, [1, 1], [1, 1], False, [0, 0],
                                                     groups, mask)
        flops = 2 * y.numel() * per_group * 9
        rows.append({"width": width, "per_group": per_group, "groups": groups, "hw": hw, "stride": stride,
                     "flops": flops, "x_bytes": x.numel() * 2, "y_bytes": y.numel() * 2,
                     "forward_ms": graph_ms(lambda: aten.convolution(x, w, None, [stride] * 2, [1, 1], [1, 1], False,
                                                                     [0, 0], groups)),
                     "input_grad_ms": graph_ms(bwd([True, False, False])),
                     "weight_grad_ms": graph_ms(bwd([False, True, False]))})
        del x, w, y, gy
    out["grouped_conv"] = rows


def dense_conv(out):
    """Dense (groups=1) bf16 channels-last convolutions, B=64, over the
    layer shapes of ResNet-50, VGG, DenseNet and mobile networks: how far
    their rate falls below a large layer's, by size, filter and width."""
    rows = []
    aten = torch.ops.aten
    for cin, cout, k, hw, stride in ((64, 64, 1, 56, 1), (64, 256, 1, 56, 1), (256, 64, 1, 56, 1),
                                     (64, 64, 3, 56, 1), (128, 128, 3, 28, 1), (256, 256, 3, 14, 1),
                                     (512, 512, 3, 7, 1), (512, 2048, 1, 7, 1), (2048, 512, 1, 7, 1),
                                     (1024, 256, 1, 14, 1), (256, 1024, 1, 14, 1), (128, 128, 3, 56, 2),
                                     (64, 128, 3, 112, 1), (128, 256, 3, 56, 1), (256, 256, 3, 56, 1),
                                     (256, 512, 3, 28, 1), (512, 512, 3, 28, 1), (512, 512, 3, 14, 1),
                                     (64, 64, 3, 224, 1), (768, 768, 1, 32, 1),
                                     # DenseNet-121: 3x3 to 32 channels, 1x1 to 128
                                     (128, 32, 3, 56, 1), (128, 32, 3, 28, 1), (128, 32, 3, 14, 1),
                                     (128, 32, 3, 7, 1), (64, 128, 1, 56, 1), (96, 128, 1, 56, 1),
                                     (512, 128, 1, 28, 1), (1024, 128, 1, 14, 1), (1024, 128, 1, 7, 1),
                                     # mobile networks' pointwise layers, and narrow 3x3 ones
                                     (16, 96, 1, 112, 1), (96, 24, 1, 56, 1), (24, 144, 1, 56, 1),
                                     (144, 24, 1, 56, 1), (40, 240, 1, 28, 1), (240, 40, 1, 28, 1),
                                     (80, 480, 1, 14, 1), (480, 80, 1, 14, 1), (192, 1152, 1, 7, 1),
                                     (1152, 192, 1, 7, 1), (32, 32, 3, 112, 1), (64, 32, 3, 56, 1),
                                     (32, 64, 3, 112, 1)):
        x = torch.randn(64, cin, hw, hw, device="cuda", dtype=torch.bfloat16).contiguous(
            memory_format=torch.channels_last)
        w = torch.randn(cout, cin, k, k, device="cuda", dtype=torch.bfloat16).contiguous(
            memory_format=torch.channels_last)
        pad = [k // 2] * 2
        y = aten.convolution(x, w, None, [stride] * 2, pad, [1, 1], False, [0, 0], 1)
        gy = torch.randn_like(y)

        def bwd(mask):
            return lambda: aten.convolution_backward(gy, x, w, None, [stride] * 2, pad, [1, 1], False, [0, 0],
                                                     1, mask)
        flops = 2 * y.numel() * cin * k * k
        rows.append({"cin": cin, "cout": cout, "k": k, "hw": hw, "stride": stride, "flops": flops,
                     "x_bytes": x.numel() * 2, "y_bytes": y.numel() * 2,
                     "forward_ms": graph_ms(lambda: aten.convolution(x, w, None, [stride] * 2, pad, [1, 1], False,
                                                                     [0, 0], 1)),
                     "input_grad_ms": graph_ms(bwd([True, False, False])),
                     "weight_grad_ms": graph_ms(bwd([False, True, False]))})
        del x, w, y, gy
    out["dense_conv"] = rows


def _kernels(fn):
    """(name, microseconds) of every kernel one call of fn launches."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return [[e.name[:160], round(e.time_range.elapsed_us(), 2)] for e in prof.events()
            if str(getattr(e, "device_type", "")).endswith("CUDA")]


def nchw_conv(out):
    """bf16 convolutions in NCHW, as Inductor leaves them where its layout
    optimization does not apply, beside channels-last: the time of each of
    the three kernels and what cuDNN launches for it."""
    rows = []
    aten = torch.ops.aten
    for cin, cout, k, hw, stride, groups in ((128, 32, 3, 56, 1, 1), (128, 32, 3, 28, 1, 1), (128, 32, 3, 14, 1, 1),
                                             (128, 32, 3, 7, 1, 1), (256, 128, 1, 56, 1, 1), (512, 128, 1, 28, 1, 1),
                                             (1024, 128, 1, 14, 1, 1), (256, 128, 1, 28, 1, 1), (3, 64, 7, 224, 2, 1),
                                             (64, 64, 3, 56, 1, 1), (256, 256, 3, 14, 1, 1), (128, 128, 3, 56, 1, 32),
                                             (512, 512, 3, 14, 1, 32), (256, 256, 3, 28, 1, 16),
                                             (48, 48, 3, 56, 1, 2), (120, 120, 3, 28, 1, 5), (336, 336, 3, 14, 1, 14),
                                             (888, 888, 3, 7, 1, 37), (336, 336, 3, 28, 2, 14), (120, 120, 3, 56, 2, 5),
                                             (256, 512, 1, 56, 2, 1), (1024, 2048, 1, 14, 2, 1), (64, 256, 1, 56, 1, 1),
                                             (512, 128, 1, 14, 1, 1), (1024, 128, 1, 7, 1, 1), (512, 128, 1, 7, 1, 1)):
        pad = [k // 2] * 2
        row = {"cin": cin, "cout": cout, "k": k, "hw": hw, "stride": stride, "groups": groups}
        for fmt in ("nchw", "channels_last"):
            mf = torch.contiguous_format if fmt == "nchw" else torch.channels_last
            x = torch.randn(64, cin, hw, hw, device="cuda", dtype=torch.bfloat16).contiguous(memory_format=mf)
            w = torch.randn(cout, cin // groups, k, k, device="cuda", dtype=torch.bfloat16).contiguous(
                memory_format=mf)
            y = aten.convolution(x, w, None, [stride] * 2, pad, [1, 1], False, [0, 0], groups)
            gy = torch.randn_like(y)
            row["x_bytes"], row["y_bytes"] = x.numel() * 2, y.numel() * 2

            def fwd():
                return aten.convolution(x, w, None, [stride] * 2, pad, [1, 1], False, [0, 0], groups)

            def bwd(mask):
                return lambda: aten.convolution_backward(gy, x, w, None, [stride] * 2, pad, [1, 1], False, [0, 0],
                                                         groups, mask)
            calls = {"forward": fwd, "input_grad": bwd([True, False, False]), "weight_grad": bwd([False, True, False])}
            for label, fn in calls.items():
                row[f"{fmt}_{label}_ms"] = graph_ms(fn)
                if fmt == "nchw":
                    row[f"nchw_{label}_kernels"] = _kernels(fn)
            del x, w, y, gy
        rows.append(row)
    out["nchw_conv"] = rows


def _triton_us(fn, calls=20):
    """Microseconds per call of the Triton kernels fn launches, from the
    profiler over `calls` calls."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    names = {}
    for e in prof.events():
        if str(getattr(e, "device_type", "")).endswith("CUDA") and e.name.startswith("triton"):
            names.setdefault(e.name[:120], []).append(e.time_range.elapsed_us())
    return {n: round(sum(t) / calls, 2) for n, t in names.items()}


def bn_statistics(out):
    """A training BatchNorm's statistics as Inductor compiles them, on an
    input just written (in L2) and on one evicted from L2 by a large write."""
    rows = []

    def stats(x):
        var, mean = torch.var_mean(x.float(), dim=[0, 2, 3], correction=0, keepdim=True)
        return mean, torch.rsqrt(var + 1e-5)
    flush = torch.empty(256 * 2**20, device="cuda", dtype=torch.uint8)
    for c, hw in ((64, 112), (256, 56), (128, 28), (512, 28), (1024, 14), (2048, 7), (256, 14), (48, 56),
                  (120, 28), (336, 14), (888, 7)):
        for fmt in ("channels_last", "nchw"):
            torch._dynamo.reset()  # a fresh compile per shape: past the recompile limit Dynamo runs eagerly
            compiled = torch.compile(stats, dynamic=False)
            mf = torch.contiguous_format if fmt == "nchw" else torch.channels_last
            src = torch.randn(64, c, hw, hw, device="cuda", dtype=torch.bfloat16).contiguous(memory_format=mf)
            x = torch.empty_like(src)

            def write():
                torch.mul(src, 1.0, out=x)

            def fresh():
                write()
                compiled(x)

            def evict():
                write()
                flush.fill_(1)

            def cold():
                evict()
                compiled(x)
            row = {"c": c, "hw": hw, "format": fmt, "bytes": x.numel() * 2,
                   "fresh_kernels_us": _triton_us(fresh), "cold_kernels_us": _triton_us(cold),
                   "fresh_ms": graph_ms(fresh) - graph_ms(write), "cold_ms": graph_ms(cold) - graph_ms(evict)}
            rows.append(row)
            del src, x
    out["bn_statistics"] = rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=240, help="time limit for the linear grid")
    ap.add_argument("--only", choices=["grouped_conv", "dense_conv", "nchw_conv", "bn_statistics"], help="one section alone")
    args = ap.parse_args()
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__}
    start = time.time()
    if args.only:
        {"grouped_conv": grouped_conv, "dense_conv": dense_conv, "nchw_conv": nchw_conv,
         "bn_statistics": bn_statistics}[args.only](out)
        with open(args.out, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
        return
    elementwise(out)
    row_sums(out)
    bmm(out)
    grouped_conv(out)
    dense_conv(out)
    nchw_conv(out)
    bn_statistics(out)
    linear(out, start + args.seconds)
    out["seconds"] = time.time() - start
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
