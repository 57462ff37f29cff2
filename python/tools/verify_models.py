"""The models gpu_verify.py runs: the corpus models it can rebuild (see
shared/corpus/README.md), nanoGPT's GPT-2 124M and a small Llama from
transformers (random init, no downloads).

A Workload is a step function `fn(*args) -> loss`, the arguments of step i,
the parameters to train and torch.compile's extra arguments. The model is
passed as an argument (as the corpus captures did), so Dynamo names it
L['lin'], L['m'], ...
"""

import functools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Workload:
    def __init__(self, name, fn, modules, make_args, lr=1e-3, compile_kwargs=None):
        self.name = name
        self.fn = fn
        self.modules = modules                # dict: argument name -> module
        self.make_args = make_args            # step index -> tuple of args
        self.lr = lr
        self.compile_kwargs = compile_kwargs or {}
        self.initial = {k: {n: t.detach().clone() for n, t in m.state_dict().items()}
                        for k, m in modules.items()}

    def reset(self):
        """Back to the initial weights (each configuration trains from them)."""
        for k, m in self.modules.items():
            m.load_state_dict(self.initial[k])

    def params(self):
        return [p for m in self.modules.values() for p in m.parameters()]


def _gen(seed):
    return torch.Generator(device="cuda").manual_seed(seed)


# --- linear + cross-entropy (llm.c shapes) -------------------------------

def _linear_ce_step(lin, x, y):
    return F.cross_entropy(lin(x), y)


def linear_ce(batches=4):
    torch.manual_seed(0)
    lin = nn.Linear(768, 50257, bias=False, device="cuda", dtype=torch.bfloat16)
    data = []
    for i in range(batches):
        x = torch.randn(32768, 768, device="cuda", dtype=torch.bfloat16, generator=_gen(i))
        y = torch.randint(0, 50257, (32768,), device="cuda", generator=_gen(100 + i))
        data.append((x.requires_grad_(), y))

    def make_args(i):
        x, y = data[i % batches]
        x.grad = None
        return (lin, x, y)
    return Workload("linear_ce", _linear_ce_step, {"lin": lin}, make_args)


# --- MLPs ------------------------------------------------------------------

def _ce_step(m, x, y):
    return F.cross_entropy(m(x), y)


def mlp_dynamic(sizes=(96,)):
    """Batch dimension marked dynamic; step i uses batch sizes[i % len(sizes)]
    (the default, one batch of 96, is the corpus capture)."""
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048),
                      nn.LayerNorm(2048), nn.ReLU(), nn.Linear(2048, 10)).cuda()
    data = []
    for b in sizes:
        x = torch.randn(b, 512, device="cuda")
        y = torch.randint(0, 10, (b,), device="cuda")
        torch._dynamo.mark_dynamic(x, 0)
        torch._dynamo.mark_dynamic(y, 0)
        data.append((x, y))
    name = "mlp_dynamic" if len(sizes) == 1 else "mlp_dynamic_varied"
    return Workload(name, _ce_step, {"m": m}, lambda i: (m, *data[i % len(data)]))


# The batch changes every step (96, 64, 128, 40, 96, ...): one compiled graph
# should serve them all through its batch symbol.
mlp_dynamic_varied = functools.partial(mlp_dynamic, sizes=(96, 64, 128, 40))


def _sac_policy(ctx, op, *args, **kwargs):
    from torch.utils.checkpoint import CheckpointPolicy
    if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default):
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def _sac_step(ln, layers, x, target):
    from torch.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
    context = functools.partial(create_selective_checkpoint_contexts, _sac_policy)
    for layer in layers:
        x = x + checkpoint(lambda h, layer=layer: layer(ln(h)), x,
                           use_reentrant=False, context_fn=context)
    return F.mse_loss(x, target)


def sac_mlp():
    torch.manual_seed(0)
    ln = nn.LayerNorm(1024).cuda()
    layers = nn.ModuleList(nn.Sequential(nn.Linear(1024, 4096), nn.SiLU(), nn.Linear(4096, 1024))
                           for _ in range(4)).cuda()
    x = torch.randn(256, 1024, device="cuda", requires_grad=True)
    target = torch.randn(256, 1024, device="cuda")
    return Workload("sac_mlp", _sac_step, {"ln": ln, "layers": layers},
                    lambda i: (ln, layers, x, target))


def resnet18():
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18().cuda().train()
    x = torch.randn(16, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (16,), device="cuda")
    return Workload("resnet18", _ce_step, {"m": m}, lambda i: (m, x, y))


# --- nanoGPT GPT-2 124M ----------------------------------------------------

class _Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))


class _Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln_1, self.attn = nn.LayerNorm(d), _Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """nanoGPT's model: learned positions, pre-LayerNorm blocks, tied head."""

    def __init__(self, vocab=50257, block=1024, layers=12, heads=12, d=768):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(block, d)
        self.h = nn.ModuleList(_Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.wte.weight = self.lm_head.weight
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * layers) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, 0.0, std)
            elif name.endswith("bias"):
                nn.init.zeros_(p)

    def forward(self, idx, targets):
        pos = torch.arange(idx.shape[1], device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)


def _model_step(m, idx, targets):
    return m(idx, targets)


def _token_batches(vocab, b, t, batches):
    out = []
    for i in range(batches):
        tokens = torch.randint(0, vocab, (b, t + 1), device="cuda", generator=_gen(1000 + i))
        out.append((tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()))
    return out


def gpt2_124m(b=8, t=1024, batches=4):
    torch.manual_seed(0)
    m = GPT().cuda().to(torch.bfloat16)
    data = _token_batches(50257, b, t, batches)
    return Workload("gpt2_124m", _model_step, {"m": m},
                    lambda i: (m, *data[i % batches]), lr=6e-4)


# --- a small Llama from transformers --------------------------------------

def _llama_step(m, input_ids, labels):
    return m(input_ids=input_ids, labels=labels).loss


def llama_workload(name, d, intermediate, layers, heads, b, t, batches=4, kv_heads=None):
    """A transformers Llama (vocab 32000, SDPA, bf16) trained on random tokens;
    kv_heads < heads gives grouped-query attention."""
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32000, hidden_size=d, intermediate_size=intermediate,
                         num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads or heads,
                         max_position_embeddings=max(1024, t))
    config._attn_implementation = "sdpa"
    m = LlamaForCausalLM(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(32000, b, t, batches)
    return Workload(name, _llama_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][0]), lr=3e-4)


def llama_small(b=8, t=512, batches=4):
    return llama_workload("llama_small", d=512, intermediate=1376, layers=4, heads=8, b=b, t=t, batches=batches)


# --- extra models for the prediction check (measure_settings.py) ---------

def linear_ce_fp32(batches=2):
    """linear_ce at another size and dtype: fp32 Linear(1024, 32000), 16384 rows."""
    torch.manual_seed(0)
    lin = nn.Linear(1024, 32000, bias=False, device="cuda")
    data = []
    for i in range(batches):
        x = torch.randn(16384, 1024, device="cuda", generator=_gen(i))
        y = torch.randint(0, 32000, (16384,), device="cuda", generator=_gen(100 + i))
        data.append((x.requires_grad_(), y))

    def make_args(i):
        x, y = data[i % batches]
        x.grad = None
        return (lin, x, y)
    return Workload("linear_ce_fp32", _linear_ce_step, {"lin": lin}, make_args)


class _MLPBlock(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


class MLPNet(nn.Module):
    """Pre-LayerNorm residual GELU MLP blocks, LayerNorm, a 1000-way head."""

    def __init__(self, d=1024, blocks=6, classes=1000):
        super().__init__()
        self.blocks = nn.ModuleList(_MLPBlock(d) for _ in range(blocks))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


def mlp_gelu_ln(rows=32768, d=1024, blocks=6):
    """bf16, 32768 rows of width 1024 (a large batch), 6 blocks."""
    torch.manual_seed(0)
    m = MLPNet(d, blocks).cuda().to(torch.bfloat16)
    x = torch.randn(rows, d, device="cuda", dtype=torch.bfloat16, generator=_gen(7))
    y = torch.randint(0, 1000, (rows,), device="cuda", generator=_gen(8))
    return Workload("mlp_gelu_ln", _ce_step, {"m": m}, lambda i: (m, x, y))


def resnet18_b64():
    """torchvision resnet18, fp32 (TF32 matmuls/convs), B=64, train mode."""
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.resnet18().cuda().train()
    x = torch.randn(64, 3, 224, 224, device="cuda", generator=_gen(9))
    y = torch.randint(0, 1000, (64,), device="cuda", generator=_gen(10))
    return Workload("resnet18_b64", _ce_step, {"m": m}, lambda i: (m, x, y))


def vit_b16_bf16(b=32):
    """torchvision vit_b_16, bf16, B=32, train mode (dropout 0)."""
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.vit_b_16().cuda().to(torch.bfloat16).train()
    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=torch.bfloat16, generator=_gen(11))
    y = torch.randint(0, 1000, (b,), device="cuda", generator=_gen(12))
    return Workload("vit_b16", _ce_step, {"m": m}, lambda i: (m, x, y))


# --- model families for docs/prediction_accuracy.md ------------------------

def _torchvision_classifier(name, build, b, dtype, seed, memory_format=torch.channels_last):
    """A torchvision classifier in `dtype`, weights and input in
    `memory_format` (channels-last unless told), train mode, 224 x 224
    images, 1000 classes."""
    torch.manual_seed(0)
    m = build().cuda().to(dtype=dtype, memory_format=memory_format).train()
    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=dtype, generator=_gen(seed))
    x = x.contiguous(memory_format=memory_format)
    y = torch.randint(0, 1000, (b,), device="cuda", generator=_gen(seed + 1))
    return Workload(name, _ce_step, {"m": m}, lambda i: (m, x, y))


def resnet50_fp32_cl(b=64):
    """torchvision resnet50, fp32 (TF32 convolutions and matmuls), channels-last, B=64."""
    import torchvision
    return _torchvision_classifier("resnet50_fp32_cl", torchvision.models.resnet50, b, torch.float32, 41)


def resnet50_bf16_cl(b=64):
    """torchvision resnet50, bf16, channels-last, B=64."""
    import torchvision
    return _torchvision_classifier("resnet50_bf16_cl", torchvision.models.resnet50, b, torch.bfloat16, 41)


def convnext_tiny_bf16_cl(b=64):
    """torchvision convnext_tiny, bf16, channels-last, B=64; stochastic depth
    off (it draws random numbers, which no partition may recompute)."""
    import torchvision
    return _torchvision_classifier("convnext_tiny_bf16_cl",
                                   functools.partial(torchvision.models.convnext_tiny, stochastic_depth_prob=0.0),
                                   b, torch.bfloat16, 43)


def llama_gqa(b=8, t=1024, batches=4):
    """transformers Llama, d=1024, 6 layers, 16 query heads sharing 4 key/value heads, bf16."""
    return llama_workload("llama_gqa", d=1024, intermediate=2816, layers=6, heads=16, kv_heads=4, b=b, t=t,
                          batches=batches)


class TopTwoMoE(nn.Module):
    """A pre-LayerNorm residual mixture-of-experts MLP: a router picks two of
    `experts` SiLU MLPs per token; tokens go to their experts' rows of a
    fixed-capacity buffer (GShard-style, capacity_factor x 2 x tokens /
    experts rows each; a token past its expert's capacity is dropped), so
    every shape is static and the step compiles to one graph."""

    def __init__(self, d, hidden, experts, capacity_factor=1.25):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.router = nn.Linear(d, experts, bias=False)
        self.w1 = nn.Parameter(torch.randn(experts, d, hidden) * d ** -0.5)
        self.w2 = nn.Parameter(torch.randn(experts, hidden, d) * hidden ** -0.5)
        self.capacity_factor = capacity_factor

    def forward(self, x):
        t, d = x.shape
        e = self.w1.shape[0]
        cap = int(self.capacity_factor * 2 * t / e)
        h = self.ln(x)
        gate, expert = self.router(h).float().softmax(-1).topk(2, dim=-1)
        gate = (gate / gate.sum(-1, keepdim=True)).to(x.dtype).t().reshape(-1, 1)  # first choices first
        expert = expert.t().reshape(-1)
        pos = (F.one_hot(expert, e).cumsum(0) - 1).gather(1, expert.view(-1, 1)).view(-1)
        slot = torch.where(pos < cap, expert * cap + pos, e * cap)  # past capacity: a discarded row
        buf = h.new_zeros(e * cap + 1, d).index_add(0, slot, h.repeat(2, 1))
        y = torch.bmm(F.silu(torch.bmm(buf[:-1].view(e, cap, d), self.w1)), self.w2)
        y = torch.cat([y.reshape(e * cap, d), y.new_zeros(1, d)])
        return x + (y[slot] * gate).view(2, t, d).sum(0)


class MoENet(nn.Module):
    def __init__(self, d, hidden, experts, layers, classes=1000):
        super().__init__()
        self.blocks = nn.ModuleList(TopTwoMoE(d, hidden, experts) for _ in range(layers))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, classes)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


def moe_top2(tokens=16384, d=1024, hidden=2048, experts=8, layers=4):
    """MoENet: 4 top-2 MoE blocks of 8 experts (1024 -> 2048 -> 1024), 16384 tokens, bf16."""
    torch.manual_seed(0)
    m = MoENet(d, hidden, experts, layers).cuda().to(torch.bfloat16)
    x = torch.randn(tokens, d, device="cuda", dtype=torch.bfloat16, generator=_gen(45))
    y = torch.randint(0, 1000, (tokens,), device="cuda", generator=_gen(46))
    return Workload("moe_top2", _ce_step, {"m": m}, lambda i: (m, x, y))


def mobilenet_v3_bf16_cl(b=128):
    """torchvision mobilenet_v3_large, bf16, channels-last, B=128: depthwise
    convolutions, hardswish, squeeze-and-excitation (dropout off: it draws
    random numbers)."""
    import torchvision
    return _torchvision_classifier("mobilenet_v3_bf16_cl",
                                   functools.partial(torchvision.models.mobilenet_v3_large, dropout=0.0),
                                   b, torch.bfloat16, 47)


def _bert_step(m, input_ids, labels):
    return m(input_ids=input_ids, labels=labels).loss


def bert_mlm(b=16, t=512, batches=4):
    """transformers BERT masked-LM head, 6 layers of width 768, bf16, SDPA,
    dropout off, trained on random tokens (a post-LayerNorm encoder)."""
    from transformers import BertConfig, BertForMaskedLM
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=768, num_hidden_layers=6, num_attention_heads=12,
                        intermediate_size=3072, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0,
                        max_position_embeddings=max(512, t))
    config._attn_implementation = "sdpa"
    m = BertForMaskedLM(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(30522, b, t, batches)
    return Workload("bert_mlm", _bert_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][1]), lr=1e-4)


def efficientnet_b0_bf16_cl(b=128):
    """torchvision efficientnet_b0, bf16, channels-last, B=128: depthwise
    convolutions, SiLU, squeeze-and-excitation (dropout and stochastic depth
    off: they draw random numbers)."""
    import torchvision
    return _torchvision_classifier("efficientnet_b0_bf16_cl",
                                   functools.partial(torchvision.models.efficientnet_b0, dropout=0.0,
                                                       stochastic_depth_prob=0.0),
                                     b, torch.bfloat16, 49)


def _t5_step(m, input_ids, labels):
    return m(input_ids=input_ids, labels=labels).loss


def t5_small_lm(b=16, t=512, batches=4):
    """transformers T5 encoder-decoder, 6+6 layers of width 512, bf16,
    RMSNorm before each block, relative position bias, dropout off, trained
    on random tokens (the decoder reads the labels shifted right)."""
    from transformers import T5Config, T5ForConditionalGeneration
    torch.manual_seed(0)
    config = T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_decoder_layers=6,
                      num_heads=8, dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0)
    m = T5ForConditionalGeneration(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(32128, b, t, batches)
    return Workload("t5_small_lm", _t5_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][1]), lr=1e-4)


def regnet_y_1_6gf_bf16_cl(b=64):
    """torchvision regnet_y_1_6gf, bf16, channels-last, B=64: grouped
    convolutions (groups of 24 channels), squeeze-and-excitation."""
    import torchvision
    return _torchvision_classifier("regnet_y_1_6gf_bf16_cl", torchvision.models.regnet_y_1_6gf,
                                   b, torch.bfloat16, 53)


def swin_t_bf16(b=64):
    """torchvision swin_t, bf16, B=64: shifted-window attention with a
    relative position bias, patch merging (stochastic depth off: it draws
    random numbers)."""
    import torchvision
    torch.manual_seed(0)
    m = torchvision.models.swin_t().cuda().to(torch.bfloat16).train()
    for mod in m.modules():
        if isinstance(mod, torchvision.ops.StochasticDepth):
            mod.p = 0.0
    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=torch.bfloat16, generator=_gen(59))
    y = torch.randint(0, 1000, (b,), device="cuda", generator=_gen(60))
    return Workload("swin_t_bf16", _ce_step, {"m": m}, lambda i: (m, x, y))


def resnext50_bf16_cl(b=64):
    """torchvision resnext50_32x4d, bf16, channels-last, B=64: 3x3
    convolutions in 32 groups of 4 to 32 channels."""
    import torchvision
    return _torchvision_classifier("resnext50_bf16_cl", torchvision.models.resnext50_32x4d,
                                   b, torch.bfloat16, 61)


def shufflenet_v2_bf16_cl(b=128):
    """torchvision shufflenet_v2_x1_0, bf16, channels-last, B=128: depthwise
    convolutions, channel shuffles (a transpose of the channel axis),
    concatenated branches."""
    import torchvision
    return _torchvision_classifier("shufflenet_v2_bf16_cl", torchvision.models.shufflenet_v2_x1_0,
                                   b, torch.bfloat16, 63)


def _timm_classifier(name, timm_id, b, seed):
    """A timm classifier in bf16, train mode, dropout and drop-path off,
    224 x 224 images, 1000 classes."""
    import timm
    torch.manual_seed(0)
    m = timm.create_model(timm_id, pretrained=False, drop_rate=0.0, drop_path_rate=0.0)
    m = m.cuda().to(torch.bfloat16).train()
    x = torch.randn(b, 3, 224, 224, device="cuda", dtype=torch.bfloat16, generator=_gen(seed))
    y = torch.randint(0, 1000, (b,), device="cuda", generator=_gen(seed + 1))
    return Workload(name, _ce_step, {"m": m}, lambda i: (m, x, y))


def mixer_b16_bf16(b=64):
    """timm mixer_b16_224 (MLP-Mixer), bf16, B=64: token-mixing MLPs across
    the 196 patches (a transpose each), channel-mixing MLPs, LayerNorm, GELU
    (dropout and drop-path off)."""
    return _timm_classifier("mixer_b16_bf16", "mixer_b16_224", b, 65)


def opt_lm(b=16, t=512, batches=4):
    """transformers OPT decoder, 6 layers of width 768, bf16, SDPA, ReLU MLPs,
    learned positions, dropout off, trained on random tokens."""
    from transformers import OPTConfig, OPTForCausalLM
    torch.manual_seed(0)
    config = OPTConfig(vocab_size=50272, hidden_size=768, num_hidden_layers=6, ffn_dim=3072,
                       num_attention_heads=12, max_position_embeddings=2048, dropout=0.0,
                       attention_dropout=0.0, activation_dropout=0.0, layerdrop=0.0)
    config._attn_implementation = "sdpa"
    m = OPTForCausalLM(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(50272, b, t, batches)
    return Workload("opt_lm", _bert_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][1]), lr=1e-4)


def densenet121_bf16_cl(b=64):
    """torchvision densenet121, bf16, channels-last, B=64: dense blocks whose
    layers read the concatenation of every earlier layer's output,
    BatchNorm-ReLU before each convolution."""
    import torchvision
    return _torchvision_classifier("densenet121_bf16_cl", torchvision.models.densenet121, b, torch.bfloat16, 67)


def mnasnet_bf16_cl(b=128):
    """torchvision mnasnet1_0, bf16, channels-last, B=128: inverted residuals
    with depthwise 3x3 and 5x5 convolutions, BatchNorm, ReLU, no
    squeeze-and-excitation (dropout off)."""
    import torchvision
    return _torchvision_classifier("mnasnet_bf16_cl", functools.partial(torchvision.models.mnasnet1_0, dropout=0.0),
                                   b, torch.bfloat16, 69)


def poolformer_s12_bf16(b=64):
    """timm poolformer_s12 (MetaFormer), bf16, B=64: average-pooling token
    mixers, GroupNorm with one group, GELU MLPs as 1x1 convolutions, layer
    scale (drop-path off)."""
    return _timm_classifier("poolformer_s12_bf16", "poolformer_s12", b, 71)


def gpt_neox_lm(b=16, t=512, batches=4):
    """transformers GPT-NeoX decoder, 6 layers of width 768, bf16, SDPA,
    rotary embeddings on a quarter of each head, parallel attention and MLP
    residuals, dropout off, trained on random tokens."""
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM
    torch.manual_seed(0)
    config = GPTNeoXConfig(vocab_size=50304, hidden_size=768, num_hidden_layers=6, num_attention_heads=12,
                           intermediate_size=3072, rotary_pct=0.25, max_position_embeddings=2048,
                           use_parallel_residual=True, hidden_dropout=0.0, attention_dropout=0.0)
    config._attn_implementation = "sdpa"
    m = GPTNeoXForCausalLM(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(50304, b, t, batches)
    return Workload("gpt_neox_lm", _bert_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][1]), lr=1e-4)


def vgg11_bn_bf16_cl(b=64):
    """torchvision vgg11_bn, bf16, channels-last, B=64: plain 3x3
    convolutions with BatchNorm and ReLU, max pooling, and a classifier of
    two 4096-wide Linear layers on 25088 inputs (dropout off)."""
    import torchvision
    return _torchvision_classifier("vgg11_bn_bf16_cl", functools.partial(torchvision.models.vgg11_bn, dropout=0.0),
                                   b, torch.bfloat16, 73)


def convmixer_bf16(b=32):
    """timm convmixer_768_32, bf16, B=32: a 7x7 patch stem, then 32 blocks of
    a depthwise 7x7 convolution and a pointwise convolution, each followed
    by GELU and BatchNorm, at 32 x 32 x 768 throughout."""
    return _timm_classifier("convmixer_bf16", "convmixer_768_32", b, 75)


def bloom_lm(b=16, t=512, batches=4):
    """transformers BLOOM decoder, 6 layers of width 768, bf16: ALiBi
    position biases added to explicit attention scores (no SDPA), a
    LayerNorm after the embedding, GELU MLPs, dropout off, random tokens."""
    from transformers import BloomConfig, BloomForCausalLM
    torch.manual_seed(0)
    config = BloomConfig(vocab_size=50304, hidden_size=768, n_layer=6, n_head=12,
                         hidden_dropout=0.0, attention_dropout=0.0)
    config._attn_implementation = "eager"
    m = BloomForCausalLM(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(50304, b, t, batches)
    return Workload("bloom_lm", _bert_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][1]), lr=1e-4)


def qwen2_lm(b=8, t=1024, batches=4):
    """transformers Qwen2 decoder, d=896, 8 layers, 14 query heads sharing 2
    key/value heads (with q/k/v biases), SwiGLU 4864, RMSNorm, rotary,
    vocabulary 32000, bf16, SDPA, random tokens."""
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=32000, hidden_size=896, intermediate_size=4864, num_hidden_layers=8,
                         num_attention_heads=14, num_key_value_heads=2, max_position_embeddings=2048,
                         tie_word_embeddings=False, attention_dropout=0.0)
    config._attn_implementation = "sdpa"
    m = Qwen2ForCausalLM(config).cuda().to(torch.bfloat16).train()
    data = _token_batches(32000, b, t, batches)
    return Workload("qwen2_lm", _bert_step, {"m": m},
                    lambda i: (m, data[i % batches][0], data[i % batches][1]), lr=1e-4)


def resnet50_bf16(b=64):
    """torchvision resnet50, bf16, B=64, NCHW as PyTorch creates it: Inductor's
    layout optimization lays its convolutions out channels-last."""
    import torchvision
    return _torchvision_classifier("resnet50_bf16", torchvision.models.resnet50, b, torch.bfloat16, 77,
                                   torch.contiguous_format)


def efficientnet_b0_bf16(b=128):
    """torchvision efficientnet_b0, bf16, B=128, NCHW (laid out channels-last
    by Inductor), stochastic depth and dropout off."""
    import torchvision
    build = functools.partial(torchvision.models.efficientnet_b0, stochastic_depth_prob=0.0, dropout=0.0)
    return _torchvision_classifier("efficientnet_b0_bf16", build, b, torch.bfloat16, 79, torch.contiguous_format)


def densenet121_bf16(b=64):
    """torchvision densenet121, bf16, B=64, NCHW: its 3x3 convolutions narrow
    128 channels to 32, so Inductor keeps the NCHW layout."""
    import torchvision
    return _torchvision_classifier("densenet121_bf16", torchvision.models.densenet121, b, torch.bfloat16, 81,
                                   torch.contiguous_format)


def resnext50_bf16(b=64):
    """torchvision resnext50_32x4d, bf16, B=64, NCHW: its grouped 3x3
    convolutions keep Inductor from laying the graph out channels-last."""
    import torchvision
    return _torchvision_classifier("resnext50_bf16", torchvision.models.resnext50_32x4d, b, torch.bfloat16, 83,
                                   torch.contiguous_format)


def regnet_y_1_6gf_bf16(b=64):
    """torchvision regnet_y_1_6gf, bf16, B=64, NCHW (kept so by Inductor, as
    its convolutions are grouped)."""
    import torchvision
    return _torchvision_classifier("regnet_y_1_6gf_bf16", torchvision.models.regnet_y_1_6gf, b, torch.bfloat16, 85,
                                   torch.contiguous_format)


def regnet_x_1_6gf_bf16(b=64):
    """torchvision regnet_x_1_6gf, bf16, B=64, NCHW: RegNetY's group width
    (24 channels) without its squeeze-excitation, kept NCHW by Inductor."""
    import torchvision
    return _torchvision_classifier("regnet_x_1_6gf_bf16", torchvision.models.regnet_x_1_6gf, b, torch.bfloat16, 87,
                                   torch.contiguous_format)


FAMILY_MODELS = {"resnet50_fp32_cl": resnet50_fp32_cl, "resnet50_bf16_cl": resnet50_bf16_cl,
                 "convnext_tiny_bf16_cl": convnext_tiny_bf16_cl, "vit_b16": vit_b16_bf16,
                 "llama_gqa": llama_gqa, "moe_top2": moe_top2,
                 "mobilenet_v3_bf16_cl": mobilenet_v3_bf16_cl, "bert_mlm": bert_mlm,
                 "efficientnet_b0_bf16_cl": efficientnet_b0_bf16_cl, "t5_small_lm": t5_small_lm,
                 "regnet_y_1_6gf_bf16_cl": regnet_y_1_6gf_bf16_cl, "swin_t_bf16": swin_t_bf16,
                 "resnext50_bf16_cl": resnext50_bf16_cl, "shufflenet_v2_bf16_cl": shufflenet_v2_bf16_cl,
                 "mixer_b16_bf16": mixer_b16_bf16, "opt_lm": opt_lm,
                 "densenet121_bf16_cl": densenet121_bf16_cl, "mnasnet_bf16_cl": mnasnet_bf16_cl,
                 "poolformer_s12_bf16": poolformer_s12_bf16, "gpt_neox_lm": gpt_neox_lm,
                 "vgg11_bn_bf16_cl": vgg11_bn_bf16_cl, "convmixer_bf16": convmixer_bf16,
                 "bloom_lm": bloom_lm, "qwen2_lm": qwen2_lm, "resnet50_bf16": resnet50_bf16,
                 "efficientnet_b0_bf16": efficientnet_b0_bf16, "densenet121_bf16": densenet121_bf16,
                 "resnext50_bf16": resnext50_bf16, "regnet_y_1_6gf_bf16": regnet_y_1_6gf_bf16,
                 "regnet_x_1_6gf_bf16": regnet_x_1_6gf_bf16}


CORPUS_MODELS = {"linear_ce": linear_ce, "mlp_dynamic": mlp_dynamic, "sac_mlp": sac_mlp,
                 "resnet18": resnet18}
TRAINING_MODELS = {"linear_ce": linear_ce, "gpt2_124m": gpt2_124m, "llama_small": llama_small,
                   "mlp_dynamic": mlp_dynamic, "mlp_dynamic_varied": mlp_dynamic_varied,
                   "sac_mlp": sac_mlp, "resnet18": resnet18}
SETTINGS_MODELS = {"linear_ce": linear_ce, "linear_ce_fp32": linear_ce_fp32,
                   "mlp_gelu_ln": mlp_gelu_ln, "gpt2_124m": gpt2_124m, "llama_small": llama_small,
                   "resnet18_b64": resnet18_b64, "vit_b16": vit_b16_bf16}
