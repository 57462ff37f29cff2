#include "generate/transformer_graph.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "generate/transformer_blocks.h"
#include "graph/validate.h"

namespace pt::gen {

namespace {

// Bounds on what one spec writes (a block writes about 220 nodes).
constexpr int64_t kNodesPerLayer = 230;
constexpr int64_t kNodesOutsideLayers = 100;

std::string bytes_text(long double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3Lg", bytes);
  return buf;
}

struct BlockParams {
  Ref ln1_w, ln1_b, qkv_w, qkv_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, fc2_w, fc2_b;
};

struct BlockSaved {
  LayerNorm ln1, ln2;
  Linear qkv, proj, fc, fc2;
  Attention attn;
  Ref fc_out = kNone;  // the GELU input
};

class TransformerWriter {
 public:
  TransformerWriter(const TransformerSpec& spec, proto::Graph& g) : s_(spec), b_(g), o_(b_) {}

  void write() {
    inputs();
    std::vector<BlockSaved> saved(static_cast<size_t>(s_.layers));
    Ref x = embed();
    for (int64_t i = 0; i < s_.layers; ++i) x = block_forward(i, x, saved[static_cast<size_t>(i)]);
    const Ref loss = head_forward(x);

    b_.set_scope({"is_backward", "", "", -1, false});
    std::vector<Ref> block_grads(static_cast<size_t>(s_.layers) * 12, kNone);
    Ref dx = head_backward();
    for (int64_t i = s_.layers; i-- > 0;) {
      std::vector<Ref> g;
      dx = block_backward(dx, saved[static_cast<size_t>(i)], g);
      std::copy(g.begin(), g.end(), block_grads.begin() + i * 12);
    }
    embed_backward(dx);

    std::vector<Ref> outputs{loss, kNone, wte_grad_, wpe_grad_};
    outputs.insert(outputs.end(), block_grads.begin(), block_grads.end());
    outputs.insert(outputs.end(), lnf_grads_.begin(), lnf_grads_.end());
    outputs.push_back(kNone);  // the mask buffer
    b_.output(outputs);
  }

 private:
  int64_t tokens() const { return s_.batch * s_.seq; }
  Dims act() const { return {s_.batch, s_.seq, s_.hidden}; }

  Ref param(Dims shape) {
    return b_.placeholder("primals_" + std::to_string(++primal_count_), contiguous(std::move(shape), s_.dtype));
  }

  void inputs() {
    b_.set_scope({"is_forward", "", "", -1, false});
    const int64_t h = s_.hidden;
    tokens_ = b_.placeholder("primals_" + std::to_string(++primal_count_), contiguous({s_.batch, s_.seq}, "int64"));
    wte_ = param({s_.vocab, h});
    wpe_ = param({s_.seq, h});
    for (int64_t i = 0; i < s_.layers; ++i) {
      params_.push_back({param({h}), param({h}), param({3 * h, h}), param({3 * h}), param({h, h}), param({h}),
                         param({h}), param({h}), param({4 * h, h}), param({4 * h}), param({h, 4 * h}), param({h})});
    }
    lnf_w_ = param({h});
    lnf_b_ = param({h});
    mask_ = b_.placeholder("primals_" + std::to_string(++primal_count_), contiguous({1, 1, s_.seq, s_.seq}, "bool"));
    b_.set_scope({"is_backward", "", "", -1, false});
    tangent_ = b_.placeholder("tangents_1", contiguous({}, kFloat));
  }

  Ref embed() {
    b_.set_scope({"is_forward", "L['m'].wte", "", -1, false});
    const Ref tok = b_.call("aten.embedding.default", {wte_, tokens_}, contiguous(act(), s_.dtype));
    b_.set_scope({"is_forward", "L['m'].wpe", "", -1, false});
    positions_ = b_.call("prims.iota.default", {Arg::of_int(s_.seq)}, contiguous({s_.seq}, "int64"),
                         {{"device", Arg::device("cuda:0")},
                          {"dtype", Arg::dtype("int64")},
                          {"requires_grad", Arg::of_bool(false)},
                          {"start", Arg::of_int(0)},
                          {"step", Arg::of_int(1)}});
    const Ref pos = b_.call("aten.embedding.default", {wpe_, positions_}, contiguous({s_.seq, s_.hidden}, s_.dtype));
    b_.set_scope({"is_forward", "L['m']", "", -1, false});
    return o_.add(tok, pos);
  }

  // Enters module `name` of block `i`: inside its checkpoint region when
  // checkpointing, unless `outside` (the residual adds).
  void enter(int64_t i, const std::string& name, bool outside = false) {
    const std::string path = "L['m'].blocks." + std::to_string(i) + (name.empty() ? "" : "." + name);
    if (s_.checkpoint && !outside) b_.set_scope({"is_forward", path, "PREFER_RECOMPUTE", i + 1, true});
    else b_.set_scope({"is_forward", path, "", -1, false});
  }

  Ref block_forward(int64_t i, Ref x, BlockSaved& sv) {
    const BlockParams& p = params_[static_cast<size_t>(i)];
    const int64_t n = tokens(), h = s_.hidden, a = s_.heads, d = h / a;
    enter(i, "ln1");
    const Ref h1 = layer_norm_forward(o_, x, p.ln1_w, p.ln1_b, sv.ln1);
    enter(i, "qkv");
    const Ref qkv = o_.view(linear_forward(o_, o_.view(h1, {n, h}), p.qkv_w, p.qkv_b, sv.qkv), {s_.batch, s_.seq, 3 * h});
    enter(i, "attn");
    TensorType part = o_.type(qkv);
    part.shape[2] = h;
    const Ref split = b_.call_tuple("aten.split.Tensor", {qkv, Arg::of_int(h), Arg::of_int(2)}, {part, part, part});
    Ref heads[3];
    for (int k = 0; k < 3; ++k) {
      heads[k] = o_.permute(o_.view(b_.getitem(split, k), {s_.batch, s_.seq, a, d}), {0, 2, 1, 3});
    }
    const Ref attn = attention_forward(o_, heads[0], heads[1], heads[2], mask_, sv.attn);
    enter(i, "proj");
    const Ref proj = o_.view(linear_forward(o_, o_.view(attn, {n, h}), p.proj_w, p.proj_b, sv.proj), act());
    enter(i, "", true);
    const Ref x1 = o_.add(x, proj);
    enter(i, "ln2");
    const Ref h2 = layer_norm_forward(o_, x1, p.ln2_w, p.ln2_b, sv.ln2);
    enter(i, "fc");
    sv.fc_out = o_.view(linear_forward(o_, o_.view(h2, {n, h}), p.fc_w, p.fc_b, sv.fc), {s_.batch, s_.seq, 4 * h});
    enter(i, "gelu");
    const Ref act_out = gelu_forward(o_, sv.fc_out);
    enter(i, "fc2");
    const Ref mlp = o_.view(linear_forward(o_, o_.view(act_out, {n, 4 * h}), p.fc2_w, p.fc2_b, sv.fc2), act());
    enter(i, "", true);
    return o_.add(x1, mlp);
  }

  // Final layer norm, tied LM head, cross-entropy (log-softmax + gather + mean).
  Ref head_forward(Ref x) {
    b_.set_scope({"is_forward", "L['m'].lnf", "", -1, false});
    const Ref y = layer_norm_forward(o_, x, lnf_w_, lnf_b_, lnf_);
    b_.set_scope({"is_forward", "L['m'].head", "", -1, false});
    head_.x = o_.view(y, {tokens(), s_.hidden});
    head_.wt = o_.permute(wte_, {1, 0});
    const Ref logits = o_.convert(o_.mm(head_.x, head_.wt), kFloat);
    b_.set_scope({"is_forward", "L['m']", "", -1, false});
    const Ref shifted = o_.sub(logits, o_.amax(logits, {1}));
    const Ref lse = o_.unary("aten.log.default", o_.sum(o_.unary("aten.exp.default", shifted), {1}, true));
    log_probs_ = o_.sub(shifted, lse);
    target_ = o_.unsqueeze(o_.view(tokens_, {-1}), 1);
    const Ref picked = b_.call("aten.gather.default", {log_probs_, Arg::of_int(1), target_},
                               contiguous({tokens(), 1}, kFloat));
    return o_.mean_all(o_.unary("aten.neg.default", o_.squeeze(picked, 1)));
  }

  Ref head_backward() {
    const int64_t n = tokens();
    const Ref per_token = o_.unary("aten.neg.default", o_.expand(o_.div(tangent_, static_cast<double>(n)), {n}));
    const Ref zeros = o_.full({n, s_.vocab}, 0.0, kFloat);
    const Ref dlogp = b_.call("aten.scatter.src", {zeros, Arg::of_int(1), target_, o_.unsqueeze(per_token, 1)},
                              contiguous({n, s_.vocab}, kFloat));
    const Ref softmax = o_.unary("aten.exp.default", log_probs_);
    const Ref dlogits = o_.sub(dlogp, o_.mul(softmax, o_.sum(dlogp, {1}, true)));
    const Ref dl = o_.convert(dlogits, s_.dtype);
    const Ref dx = o_.mm(dl, o_.permute(head_.wt, {1, 0}));
    wte_head_grad_ = o_.mm(o_.permute(dl, {1, 0}), head_.x);
    return layer_norm_backward(o_, o_.view(dx, act()), lnf_, lnf_grads_);
  }

  Ref block_backward(Ref dx2, const BlockSaved& sv, std::vector<Ref>& g) {
    const int64_t n = tokens(), h = s_.hidden;
    std::vector<Ref> mlp_grads;  // fc2 w, b, fc w, b, ln2 w, b: reordered below
    const Ref dact = linear_backward(o_, o_.view(dx2, {n, h}), sv.fc2, mlp_grads);
    const Ref dfc = gelu_backward(o_, o_.view(dact, {s_.batch, s_.seq, 4 * h}), sv.fc_out);
    const Ref dh2 = linear_backward(o_, o_.view(dfc, {n, 4 * h}), sv.fc, mlp_grads);
    const Ref dx1 = o_.add(dx2, layer_norm_backward(o_, o_.view(dh2, act()), sv.ln2, mlp_grads));

    std::vector<Ref> attn_grads;  // proj w, b, qkv w, b, ln1 w, b
    const Ref dattn = linear_backward(o_, o_.view(dx1, {n, h}), sv.proj, attn_grads);
    const std::vector<Ref> dqkv = attention_backward(o_, o_.view(dattn, act()), sv.attn);
    const Ref dcat = o_.view(o_.cat(dqkv, 2), {n, 3 * h});
    const Ref dh1 = linear_backward(o_, dcat, sv.qkv, attn_grads);
    const Ref dx = o_.add(dx1, layer_norm_backward(o_, o_.view(dh1, act()), sv.ln1, attn_grads));
    // Primal order: ln1, qkv, proj, ln2, fc, fc2 (weight, bias each).
    g = {attn_grads[4], attn_grads[5], attn_grads[2], attn_grads[3], attn_grads[0], attn_grads[1],
         mlp_grads[4],  mlp_grads[5],  mlp_grads[2],  mlp_grads[3],  mlp_grads[0],  mlp_grads[1]};
    return dx;
  }

  void embed_backward(Ref dx) {
    const Ref dtok = b_.call("aten.embedding_dense_backward.default",
                             {dx, tokens_, Arg::of_int(s_.vocab), Arg::of_int(-1), Arg::of_bool(false)},
                             contiguous({s_.vocab, s_.hidden}, s_.dtype));
    wte_grad_ = o_.add(wte_head_grad_, dtok);
    const Ref dpos = o_.sum(dx, {0}, false);
    wpe_grad_ = b_.call("aten.embedding_dense_backward.default",
                        {dpos, positions_, Arg::of_int(s_.seq), Arg::of_int(-1), Arg::of_bool(false)},
                        contiguous({s_.seq, s_.hidden}, s_.dtype));
  }

  const TransformerSpec& s_;
  GraphBuilder b_;
  AtenOps o_;
  int primal_count_ = 0;
  Ref tokens_ = kNone, wte_ = kNone, wpe_ = kNone, lnf_w_ = kNone, lnf_b_ = kNone, mask_ = kNone, tangent_ = kNone;
  std::vector<BlockParams> params_;
  Ref positions_ = kNone, log_probs_ = kNone, target_ = kNone;
  LayerNorm lnf_;
  Linear head_;
  Ref wte_head_grad_ = kNone, wte_grad_ = kNone, wpe_grad_ = kNone;
  std::vector<Ref> lnf_grads_;
};

}  // namespace

void check_spec(const TransformerSpec& s) {
  auto positive = [](int64_t v, const char* what) {
    if (v <= 0) throw std::invalid_argument(std::string(what) + " must be positive (got " + std::to_string(v) + ")");
  };
  positive(s.layers, "--layers");
  positive(s.hidden, "--hidden");
  positive(s.seq, "--seq");
  positive(s.batch, "--batch");
  positive(s.heads, "--heads");
  positive(s.vocab, "--vocab");
  if (s.hidden % s.heads != 0) {
    throw std::invalid_argument("--hidden (" + std::to_string(s.hidden) + ") must be a multiple of --heads (" +
                                std::to_string(s.heads) + ")");
  }
  if (s.dtype != "float32" && s.dtype != "bfloat16" && s.dtype != "float16") {
    throw std::invalid_argument("--dtype must be float32, bfloat16 or float16 (got '" + s.dtype + "')");
  }
  // Only graphs the tool can read back: no more nodes than its loader takes,
  // and sizes whose every sum fits in 64 bits (the largest tensor, 4 bytes
  // an element, times the node count). Checked in long double, before any
  // allocation: the products themselves may not fit in 64 bits.
  const long double nodes = static_cast<long double>(s.layers) * kNodesPerLayer + kNodesOutsideLayers;
  const long double max_nodes = static_cast<long double>(ValidateOptions{}.max_nodes);
  if (nodes > max_nodes) {
    throw std::invalid_argument("--layers " + std::to_string(s.layers) + " makes more nodes than the " +
                                std::to_string(ValidateOptions{}.max_nodes) + " the tool reads (at most " +
                                std::to_string(static_cast<int64_t>((max_nodes - kNodesOutsideLayers) / kNodesPerLayer)) +
                                " layers)");
  }
  const long double b = s.batch, t = s.seq, h = s.hidden, a = s.heads, v = s.vocab;
  const long double largest = std::max({b * a * t * t, b * t * v, b * t * 4 * h, v * h}) * 4;
  if (largest * nodes > 0x1p62L) {
    throw std::invalid_argument("--batch " + std::to_string(s.batch) + " --seq " + std::to_string(s.seq) + " --hidden " +
                                std::to_string(s.hidden) + " --vocab " + std::to_string(s.vocab) +
                                ": tensors too large for the tool's 64-bit byte counts (the largest holds " +
                                bytes_text(largest) + " bytes)");
  }
}

std::shared_ptr<proto::Graph> transformer_graph(const TransformerSpec& spec) {
  check_spec(spec);
  auto g = std::make_shared<proto::Graph>();
  g->set_name("transformer_l" + std::to_string(spec.layers) + (spec.checkpoint ? "_ckpt" : ""));
  (*g->mutable_metadata())["producer"] = "partition_tool generate";
  (*g->mutable_metadata())["model"] = "gpt-style transformer";
  g->mutable_nodes()->Reserve(static_cast<int>(spec.layers * kNodesPerLayer + kNodesOutsideLayers));
  TransformerWriter(spec, *g).write();
  g->set_num_fwd_outputs(1);
  // Every primal but the token ids (0) is a parameter or buffer.
  const int64_t primals = 3 + 12 * spec.layers + 3;
  for (int64_t k = 1; k < primals; ++k) g->add_static_lifetime_input_indices(k);
  return g;
}

}  // namespace pt::gen
