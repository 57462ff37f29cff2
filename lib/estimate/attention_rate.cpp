#include "estimate/attention_rate.h"

#include <algorithm>
#include <cmath>
#include <string_view>

namespace pt {

namespace {

constexpr double kTile = 128;

// is_causal, at positional `index` or as a keyword (false when absent).
bool is_causal(const proto::Node& pn, int index) {
  if (index >= pn.args_size()) {
    const proto::Arg* kw = find_kwarg(pn, "is_causal");
    return kw && kw->kind_case() == proto::Arg::kBool && kw->bool_();
  }
  const proto::Arg& a = pn.args(index);
  return a.kind_case() == proto::Arg::kBool && a.bool_();
}

// The (sequence, head size) of a node's tensor input, or nullopt.
struct SeqHead {
  double seq = 0, head = 0;
};
std::optional<SeqHead> seq_head(const Graph& g, NodeId in) {
  const proto::Node pn = g.record(in);
  const proto::Value& v = pn.val();
  if (v.kind_case() != proto::Value::kTensor || v.tensor().shape_size() != 4) return std::nullopt;
  const auto& s = v.tensor().shape();
  const int64_t seq = s[2], head = s[3];
  if (seq <= 0 || head <= 0) return std::nullopt;
  return SeqHead{static_cast<double>(seq), static_cast<double>(head)};
}

double padded(double s) { return std::ceil(s / kTile) * kTile; }

}  // namespace

std::optional<double> attention_seconds(const Graph& g, NodeId id, double flops, const AttentionRates& rates) {
  const Node& n = g[id];
  const bool forward = n.packet == "aten._scaled_dot_product_cudnn_attention";
  const bool backward = n.packet == "aten._scaled_dot_product_cudnn_attention_backward";
  if (!forward && !backward) return std::nullopt;
  // Forward: (query, key, value, attn_bias, compute_log_sumexp, dropout_p,
  // is_causal, ...); backward: (grad_out, query, key, value, ..., is_causal
  // at 14, scale).
  const size_t q_at = forward ? 0 : 1;
  if (n.positional_inputs.size() < q_at + 2) return std::nullopt;
  const auto q = seq_head(g, n.positional_inputs[q_at]);
  const auto k = seq_head(g, n.positional_inputs[q_at + 1]);
  if (!q || !k) return std::nullopt;
  const proto::Node& pn = g.record(id);
  const bool causal = is_causal(pn, forward ? 6 : 14);
  const AttentionFit& fit = forward ? (causal ? rates.causal_forward : rates.forward)
                                    : (causal ? rates.causal_backward : rates.backward);
  if (fit.rate_d64 <= 0 || fit.rate_d128 <= 0) return std::nullopt;
  const double head = std::clamp(q->head, 64.0, 128.0);
  const double rate_long = fit.rate_d64 + (fit.rate_d128 - fit.rate_d64) * (head - 64) / 64;
  const double sq = padded(q->seq), sk = padded(k->seq);
  const double tile_work = (sq * sk) / (q->seq * k->seq);
  const double s = std::max(sq, sk);
  const double rate = rate_long * s / (s + fit.s0);
  return static_cast<double>(flops) * tile_work / rate;
}

}  // namespace pt
