"""Micro-benchmark: how fast the GPU runs scaled-dot-product attention and
convolutions against their FLOP counts, by sequence length and shape, to
calibrate the bandwidth model's compute time for those ops
(docs/bandwidth_model.md, "Calibration"). Needs torch and a CUDA device;
prints JSON lines and writes --out, a file outside the repository (raw run
data is not kept in the tree; the fitted rates are in lib/report).

  python3 python/tools/attention_bench.py --out /tmp/attention_bench.json
"""
import argparse
import json
import statistics

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


def timed(fn, warmup=3, reps=10):
    """GPU time of one call in us: the kernels' own time under
    torch.profiler, summed over `reps` calls (CUDA events around a call
    would add the host's launch latency, tens of us per small kernel)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
    total = 0.0
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            total += e.time_range.elapsed_us()
    return total / reps


def sdpa_flops(bh, s, d):
    return 2 * bh * s * d * s * 2  # q@k^T and p@v, 2 FLOPs per multiply-add


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    dev = "cuda"
    rows = []
    # Reference: a large bf16 matmul (the model's matmul efficiency).
    a = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=dev, dtype=torch.bfloat16)
    us = timed(lambda: a @ b)
    rows.append({"op": "mm", "shape": [8192, 8192, 8192], "us": us, "flops": 2 * 8192**3})
    for backend in ("cudnn", "flash"):
        kern = SDPBackend.CUDNN_ATTENTION if backend == "cudnn" else SDPBackend.FLASH_ATTENTION
        for s, bh in ((64, 3072), (128, 1536), (192, 1024), (197, 768), (256, 768), (320, 768), (384, 512),
                      (512, 384), (577, 384), (768, 256), (1024, 192), (1536, 96), (2048, 96)):
            for d in (64, 128):
                q = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                k = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                v = torch.randn(1, bh, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                for causal in (False, True):
                    try:
                        with sdpa_kernel([kern]):
                            fwd = timed(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal))
                            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                            g = torch.randn_like(o)

                            def both():
                                out = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                                torch.autograd.grad(out, (q, k, v), g)

                            total = timed(both)
                    except Exception as e:  # backend refuses the shape
                        rows.append({"op": "sdpa", "backend": backend, "s": s, "bh": bh, "d": d, "causal": causal,
                                     "error": str(e)[:200]})
                        continue
                    f = sdpa_flops(bh, s, d)
                    rows.append({"op": "sdpa", "backend": backend, "s": s, "bh": bh, "d": d, "causal": causal,
                                 "fwd_us": fwd, "bwd_us": total - fwd, "fwd_flops": f, "bwd_flops": int(2.5 * f)})
                    print(json.dumps(rows[-1]), flush=True)
    # Convolutions: ViT's patch embedding and ResNet-style 3x3 / 1x1 / stem.
    convs = [
        ("vit_patch16", (64, 3, 224, 224), (768, 3, 16, 16), 16, 0),
        ("vit_patch16_b32", (32, 3, 224, 224), (768, 3, 16, 16), 16, 0),
        ("resnet_stem7", (64, 3, 224, 224), (64, 3, 7, 7), 2, 3),
        ("resnet_3x3_64", (64, 64, 56, 56), (64, 64, 3, 3), 1, 1),
        ("resnet_3x3_256", (64, 256, 14, 14), (256, 256, 3, 3), 1, 1),
        ("resnet_1x1_512", (64, 512, 7, 7), (512, 512, 1, 1), 1, 0),
    ]
    for name, xs, ws, stride, pad in convs:
        for cl in (False, True):
            x = torch.randn(*xs, device=dev, dtype=torch.bfloat16, requires_grad=True)
            w = torch.randn(*ws, device=dev, dtype=torch.bfloat16, requires_grad=True)
            if cl:
                x = x.detach().to(memory_format=torch.channels_last).requires_grad_(True)
                w = w.detach().to(memory_format=torch.channels_last).requires_grad_(True)
            fwd = timed(lambda: F.conv2d(x, w, stride=stride, padding=pad))
            y = F.conv2d(x, w, stride=stride, padding=pad)
            g = torch.randn_like(y)

            def both():
                out = F.conv2d(x, w, stride=stride, padding=pad)
                torch.autograd.grad(out, (x, w), g)

            total = timed(both)
            f = 2 * y.numel() * ws[1] * ws[2] * ws[3]
            rows.append({"op": "conv", "name": name, "channels_last": cl, "x": list(xs), "w": list(ws),
                         "stride": stride, "fwd_us": fwd, "bwd_us": total - fwd, "fwd_flops": f, "bwd_flops": 2 * f})
            print(json.dumps(rows[-1]), flush=True)
    env = {"torch": torch.__version__, "device": torch.cuda.get_device_name(), "cudnn": torch.backends.cudnn.version()}
    with open(args.out, "w") as fh:
        json.dump({"env": env, "rows": rows}, fh, indent=1)


if __name__ == "__main__":
    main()
