#include "partition/dimacs.h"

#include <algorithm>
#include <cmath>
#include <istream>
#include <ostream>
#include <sstream>

#include "graph/errors.h"

namespace pt {

namespace {

constexpr const char* kInfiniteNote = "infinite capacity written as ";

// Distinct arcs in order of first occurrence, each with its last capacity.
std::vector<FlowArc> distinct_arcs(const std::vector<FlowArc>& arcs) {
  std::vector<int32_t> order(arcs.size());
  for (size_t k = 0; k < arcs.size(); ++k) order[k] = static_cast<int32_t>(k);
  auto at = [&](int32_t k) -> const FlowArc& { return arcs[static_cast<size_t>(k)]; };
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return at(a).from != at(b).from ? at(a).from < at(b).from : at(a).to < at(b).to;
  });
  std::vector<FlowArc> runs;  // one per (from, to); `from` of the first occurrence kept in `first`
  std::vector<int32_t> first;
  for (size_t k = 0; k < order.size(); ++k) {
    const FlowArc& a = at(order[k]);
    if (runs.empty() || runs.back().from != a.from || runs.back().to != a.to) {
      runs.push_back(a);
      first.push_back(order[k]);
    } else {
      runs.back().capacity = a.capacity;  // a later occurrence: stable sort keeps index order
    }
  }
  std::vector<int32_t> by_first(runs.size());
  for (size_t r = 0; r < runs.size(); ++r) by_first[r] = static_cast<int32_t>(r);
  std::sort(by_first.begin(), by_first.end(), [&](int32_t a, int32_t b) { return first[a] < first[b]; });
  std::vector<FlowArc> out;
  out.reserve(runs.size());
  for (int32_t r : by_first) out.push_back(runs[static_cast<size_t>(r)]);
  return out;
}

}  // namespace

DimacsCounts write_dimacs(std::ostream& out, const FlowNetwork& net, const std::string& comment) {
  // build_flow_network's arcs are distinct already (arcs_distinct), and
  // distinct_arcs keeps the order of first occurrence: the same list.
  const std::vector<FlowArc> deduplicated = net.arcs_distinct ? std::vector<FlowArc>{} : distinct_arcs(net.arcs);
  const std::vector<FlowArc>& arcs = net.arcs_distinct ? net.arcs : deduplicated;
  FlowValue finite_sum = 0;
  for (const FlowArc& a : arcs) {
    if (a.capacity != kInfinite) finite_sum += a.capacity;
  }
  const FlowValue infinite = finite_sum < kDimacsInfinite ? FlowValue(kDimacsInfinite) : FlowValue(finite_sum + 1);
  const std::string infinite_text = to_string(infinite);

  std::vector<int32_t> id(static_cast<size_t>(net.vertex_count), 0);
  for (const FlowArc& a : arcs) id[a.from] = id[a.to] = 1;
  id[FlowNetwork::kSource] = id[FlowNetwork::kSink] = 1;
  DimacsCounts counts;
  for (auto& v : id) v = v ? static_cast<int32_t>(++counts.vertices) : 0;
  counts.arcs = static_cast<int64_t>(arcs.size());

  std::ostringstream text;  // one write at the end: the caller's stream may be a file
  if (!comment.empty()) text << "c " << comment << "\n";
  text << "c " << kInfiniteNote << infinite_text << "\n";
  text << "p max " << counts.vertices << " " << counts.arcs << "\n";
  text << "n " << id[FlowNetwork::kSource] << " s\n";
  text << "n " << id[FlowNetwork::kSink] << " t\n";
  for (const FlowArc& a : arcs) {
    text << "a " << id[a.from] << " " << id[a.to] << " " << (a.capacity == kInfinite ? infinite_text : to_string(a.capacity))
         << "\n";
  }
  out << text.str();
  return counts;
}

namespace {

// A non-negative decimal integer of any length.
bool parse_integer(const std::string& word, FlowValue& v) {
  if (word.empty() || word.find_first_not_of("0123456789") != std::string::npos) return false;
  v.set_str(word, 10);
  return true;
}

}  // namespace

DimacsNetwork read_dimacs(std::istream& in, const std::string& label) {
  DimacsNetwork net;
  FlowValue infinite = kDimacsInfinite;
  bool have_problem = false, have_source = false, have_sink = false;
  int64_t declared_arcs = 0;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    auto fail = [&](const std::string& what) -> void {
      throw InputError(label + ": line " + std::to_string(number) + ": " + what);
    };
    std::istringstream words(line);
    std::string kind;
    if (!(words >> kind)) continue;
    if (kind == "c") {
      const auto at = line.find(kInfiniteNote);
      FlowValue v;
      if (at != std::string::npos && parse_integer(line.substr(at + std::string(kInfiniteNote).size()), v)) {
        infinite = v;
      }
    } else if (kind == "p") {
      std::string max;
      int64_t n = 0;
      if (!(words >> max >> n >> declared_arcs) || max != "max" || n < 2 || n > INT32_MAX) fail("expected 'p max NODES ARCS'");
      net.vertex_count = static_cast<int32_t>(n);
      net.arcs.reserve(static_cast<size_t>(std::min<int64_t>(declared_arcs, 1 << 26)));
      have_problem = true;
    } else if (kind == "n") {
      int64_t v = 0;
      std::string which;
      if (!have_problem || !(words >> v >> which) || v < 1 || v > net.vertex_count) fail("expected 'n ID s|t' after 'p'");
      if (which == "s") net.source = static_cast<int32_t>(v - 1), have_source = true;
      else if (which == "t") net.sink = static_cast<int32_t>(v - 1), have_sink = true;
      else fail("expected 's' or 't'");
    } else if (kind == "a") {
      int64_t u = 0, v = 0;
      std::string cap_word;
      FlowValue cap;
      if (!have_problem || !(words >> u >> v >> cap_word)) fail("expected 'a FROM TO CAPACITY' after 'p'");
      if (!parse_integer(cap_word, cap) || u < 1 || v < 1 || u > net.vertex_count || v > net.vertex_count) {
        fail("bad arc");
      }
      Capacity capacity = kInfinite;
      if (cap < infinite) {
        capacity = cap.get_d();
        if (!std::isfinite(capacity) || FlowValue(capacity) != cap) {
          fail("capacity " + cap_word + " is not exactly a double");
        }
      }
      net.arcs.push_back({static_cast<int32_t>(u - 1), static_cast<int32_t>(v - 1), capacity});
    } else {
      fail("unknown line kind '" + kind + "'");
    }
  }
  if (!have_problem || !have_source || !have_sink) throw InputError(label + ": missing 'p max', 'n ID s' or 'n ID t'");
  if (static_cast<int64_t>(net.arcs.size()) != declared_arcs) {
    throw InputError(label + ": 'p max' declares " + std::to_string(declared_arcs) + " arcs, the file has " +
                     std::to_string(net.arcs.size()));
  }
  return net;
}

}  // namespace pt
