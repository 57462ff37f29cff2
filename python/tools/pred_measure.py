"""Held-out models for the prediction check (docs/bandwidth_model.md,
"Prediction accuracy"): shapes no model-side change was tuned on. Registers them in
verify_models.SETTINGS_MODELS and runs measure_settings.main() with the same
arguments (--models picks them by name).

  python3 python/tools/pred_measure.py --out $OUT --models llama_d1024,gpt_d1024_l6,mlp_d2048 ...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import measure_settings  # noqa: E402
import verify_models as vm  # noqa: E402


def gpt_d1024_l6(b=8, t=1024, batches=4):
    """nanoGPT blocks at d=1024, 16 heads, 6 layers, vocab 32000, bf16."""
    torch.manual_seed(0)
    m = vm.GPT(vocab=32000, block=1024, layers=6, heads=16, d=1024).cuda().to(torch.bfloat16)
    data = vm._token_batches(32000, b, t, batches)
    return vm.Workload("gpt_d1024_l6", vm._model_step, {"m": m}, lambda i: (m, *data[i % batches]), lr=6e-4)


def llama_d1024(b=8, t=1024, batches=4):
    """transformers Llama at d=1024, 6 layers, SDPA, bf16 (GPU-bound, unlike llama_small)."""
    return vm.llama_workload("llama_d1024", d=1024, intermediate=2816, layers=6, heads=16, b=b, t=t, batches=batches)


def mlp_d2048(rows=16384, d=2048, blocks=4):
    """mlp_gelu_ln's blocks at width 2048, 4 blocks, 16384 rows, bf16."""
    torch.manual_seed(0)
    m = vm.MLPNet(d, blocks).cuda().to(torch.bfloat16)
    x = torch.randn(rows, d, device="cuda", dtype=torch.bfloat16, generator=vm._gen(7))
    y = torch.randint(0, 1000, (rows,), device="cuda", generator=vm._gen(8))
    return vm.Workload("mlp_d2048", vm._ce_step, {"m": m}, lambda i: (m, x, y))


# Held out from the attention rates and the peak-memory rules: shapes none
# of them was tuned on.
def gpt_d768_t2048(b=4, t=2048, batches=4):
    """nanoGPT blocks at d=768, 12 heads, 4 layers, 2048 tokens (causal attention at 2048), vocab 32000, bf16."""
    torch.manual_seed(0)
    m = vm.GPT(vocab=32000, block=2048, layers=4, heads=12, d=768).cuda().to(torch.bfloat16)
    data = vm._token_batches(32000, b, t, batches)
    return vm.Workload("gpt_d768_t2048", vm._model_step, {"m": m}, lambda i: (m, *data[i % batches]), lr=6e-4)


def vit_b32(b=64):
    """torchvision vit_b_32 (50 tokens: attention far below a 128-row tile), bf16, B=64."""
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.vit_b_32().cuda().to(torch.bfloat16).train()
    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=torch.bfloat16, generator=vm._gen(21))
    y = torch.randint(0, 1000, (b,), device="cuda", generator=vm._gen(22))
    return vm.Workload("vit_b32", vm._ce_step, {"m": m}, lambda i: (m, x, y))


def llama_d768_t2048(b=4, t=2048, batches=4):
    """transformers Llama at d=768, 12 heads, 4 layers, 2048 tokens, SDPA, bf16."""
    return vm.llama_workload("llama_d768_t2048", d=768, intermediate=2048, layers=4, heads=12, b=b, t=t,
                             batches=batches)


vm.SETTINGS_MODELS.update({"gpt_d1024_l6": gpt_d1024_l6, "llama_d1024": llama_d1024, "mlp_d2048": mlp_d2048,
                           "gpt_d768_t2048": gpt_d768_t2048, "vit_b32": vit_b32,
                           "llama_d768_t2048": llama_d768_t2048})

if __name__ == "__main__":
    measure_settings.main()
