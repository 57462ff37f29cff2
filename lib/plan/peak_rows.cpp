#include "plan/peak_rows.h"

#include <algorithm>
#include <unordered_map>

namespace pt {

namespace {

// The position among the backward's own nodes of the first own node at or
// after `step`; past the last, the last.
int32_t own_position_from(const LinearPlanModel& m, const MemoryTimeline& t, size_t step) {
  for (size_t i = step; i < t.steps.size(); ++i) {
    if (m.position[t.steps[i]] >= 0) return m.position[t.steps[i]];
  }
  return m.position.empty() ? -1 : *std::max_element(m.position.begin(), m.position.end());
}

// Raises `terms`' term of value v to `bytes`, adding it where missing;
// `at` is per value its index in `terms` (-1: none).
void raise_term(std::vector<LinearTerm>& terms, std::vector<int32_t>& at, int32_t v, uint64_t bytes) {
  auto& i = at[static_cast<size_t>(v)];
  if (i < 0) {
    i = static_cast<int32_t>(terms.size());
    terms.push_back({v, 0});
  }
  LinearTerm& term = terms[static_cast<size_t>(i)];
  term.bytes = std::max(term.bytes, bytes);
}

// Where the plan's baseline at a backward position is above the reference
// plan's, the plan's own recomputations there are the likely cause: a
// recomputed chain ends the backward's kernels elsewhere, and what they
// keep in registers in the reference plan they store (gpt2_124m's
// recomputed cross-entropy chain stores two float32 logit-sized
// temporaries of the backward, 0.47 of the default peak). The excess goes
// to the values the plan recomputes and the reference does not, whose
// readers span the position, by their bytes; the baseline stays the
// reference plan's. A plan that keeps those values saved is then not held
// to an excess it would not have. With no such value, the excess stays in
// the baseline.
void attribute_extra(const LinearPlanModel& m, const LinearChoice& choice, int32_t position, LinearStep& row) {
  const uint64_t reference = m.reference_baseline[static_cast<size_t>(position)];
  if (row.baseline <= reference) return;
  std::vector<TermCause> causes;
  for (size_t v = 0; v < m.values.size(); ++v) {
    if (!choice.recomputed[v] || !m.may_recompute[v] || m.reference.recomputed[v] || m.bytes[v] == 0) continue;
    if (m.first_reader[v] > position || m.last_reader[v] < position) continue;
    causes.push_back({static_cast<int32_t>(v), false});
  }
  if (causes.empty()) return;
  spread_over_terms(m, causes, row.baseline - reference, row);
  row.baseline = reference;
}

}  // namespace

void spread_over_terms(const LinearPlanModel& m, const std::vector<TermCause>& causes, uint64_t extra,
                       LinearStep& row) {
  uint64_t weight = 0;
  for (const TermCause& c : causes) weight += m.bytes[static_cast<size_t>(c.value)];
  uint64_t given = 0;
  for (size_t i = 0; i < causes.size(); ++i) {
    const int32_t v = causes[i].value;
    const uint64_t share = i + 1 == causes.size()
                               ? extra - given
                               : static_cast<uint64_t>(static_cast<long double>(extra) * m.bytes[static_cast<size_t>(v)] /
                                                       static_cast<long double>(weight));
    given += share;
    std::vector<LinearTerm>& terms = causes[i].saved ? row.saved : row.recomputed;
    auto term = std::find_if(terms.begin(), terms.end(), [&](const LinearTerm& t) { return t.value == v; });
    if (term == terms.end()) term = terms.insert(terms.end(), {v, 0});
    term->bytes += share;
  }
}

LinearStep forward_row(const LinearPlanModel& m, NodeId node) {
  LinearStep step;
  step.node = node;
  for (size_t v = 0; v < m.values.size() && m.values[v] <= node; ++v) {
    if (m.bytes[v] > 0) step.saved.push_back({static_cast<int32_t>(v), m.bytes[v]});
  }
  return step;
}

LinearStep backward_row(const LinearPlanModel& m, int32_t position) {
  LinearStep step;
  for (size_t v = 0; v < m.values.size(); ++v) {
    if (m.bytes[v] == 0 || m.last_reader[v] < position) continue;
    step.saved.push_back({static_cast<int32_t>(v), m.bytes[v]});
    if (m.may_recompute[v] && m.recomputed_bytes[v] > 0 && m.first_reader[v] <= position) {
      step.recomputed.push_back({static_cast<int32_t>(v), m.recomputed_bytes[v]});
    }
  }
  return step;
}

LinearStep simulated_row(const Graph& g, const LinearPlanModel& m, const MemoryTimeline& t, size_t step,
                         const LinearChoice& choice) {
  const int32_t position = step >= t.backward_from ? own_position_from(m, t, step) : -1;
  LinearStep row = position >= 0 ? backward_row(m, position) : forward_row(m, t.steps[step]);
  row.node = t.steps[step];
  std::vector<int32_t> saved_at(m.values.size(), -1), recomputed_at(m.values.size(), -1);
  for (size_t i = 0; i < row.saved.size(); ++i) saved_at[static_cast<size_t>(row.saved[i].value)] = static_cast<int32_t>(i);
  for (size_t i = 0; i < row.recomputed.size(); ++i) {
    recomputed_at[static_cast<size_t>(row.recomputed[i].value)] = static_cast<int32_t>(i);
  }
  // The simulation names a buffer (a view's base): the chosen value that
  // holds it is the value itself, else a view of it that the plan saves.
  std::unordered_map<NodeId, int32_t> saved_view;
  for (size_t v = 0; v < m.values.size(); ++v) {
    if (choice.saved[v] && m.buffer[v] != m.values[v]) saved_view.emplace(m.buffer[v], static_cast<int32_t>(v));
  }
  uint64_t total = 0;
  for (const LiveValue& live : live_at(g, t, step)) {
    total += live.bytes;
    if (live.node == kNoNode) continue;
    const int32_t v = m.index[live.node];
    const auto i = static_cast<size_t>(v);
    if (v >= 0 && choice.saved[i]) {
      raise_term(row.saved, saved_at, v, live.bytes);
    } else if (v >= 0 && choice.recomputed[i] && m.may_recompute[i]) {
      raise_term(row.recomputed, recomputed_at, v, live.bytes);
    } else if (const auto view = saved_view.find(live.node); view != saved_view.end()) {
      raise_term(row.saved, saved_at, view->second, live.bytes);
    }
  }
  const uint64_t terms = step_bytes(row, choice);
  row.baseline = total > terms ? total - terms : 0;
  if (position >= 0 && static_cast<size_t>(position) < m.reference_baseline.size()) {
    attribute_extra(m, choice, position, row);
  }
  return row;
}

}  // namespace pt
