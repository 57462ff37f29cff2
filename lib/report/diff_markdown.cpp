// `diff --report-md`: the diff as Markdown for a pull-request comment (see
// diff.h).
#include <algorithm>
#include <string>

#include "report/diff.h"
#include "graph/human_units.h"
#include "report/report_markdown.h"

namespace pt {

namespace {

std::string settings_text(const CutSummary& c) {
  std::string s;
  for (const auto& kv : c.settings) s += (s.empty() ? "" : ", ") + markdown_code(kv);
  if (s.empty()) s = "defaults";
  if (!c.plan.empty()) s += "; plan: " + markdown_code(c.plan);
  return s;
}

// A folded list of names (with sizes where known), `top` rows shown.
template <typename Rows, typename Line>
void folded(std::ostream& out, const std::string& title, const Rows& rows, size_t top, Line line) {
  if (rows.empty()) return;
  const size_t shown = top == 0 ? rows.size() : std::min(top, rows.size());
  out << "\n<details><summary>" << title << " (" << rows.size() << ")</summary>\n\n";
  for (size_t i = 0; i < shown; ++i) out << "- " << line(rows[i]) << "\n";
  if (shown < rows.size()) out << "- _" << rows.size() - shown << " more (`--top 0` lists all)_\n";
  out << "\n</details>\n";
}

void graph_section(std::ostream& out, const GraphDiff& g, size_t top) {
  const CutSummary& a = g.a;
  const CutSummary& b = g.b;
  const CutDiff& d = g.d;
  out << "## partition_tool diff: " << markdown_code(a.graph)
      << (a.graph == b.graph ? "" : " vs " + markdown_code(b.graph)) << "\n\n";
  out << "A: " << settings_text(a) << (a.label != "A" ? " (" + markdown_code(a.label) + ")" : "") << "  \n";
  out << "B: " << settings_text(b) << (b.label != "B" ? " (" + markdown_code(b.label) + ")" : "") << "\n\n";
  if (d.identical) {
    out << "**The cuts are identical**: both save the same " << a.saved.size() << " values.\n\n";
  } else {
    out << "**The cuts differ**: " << d.saved_only_a.size() << " saved only in A, " << d.saved_only_b.size()
        << " only in B; " << d.recomputed_only_a.size() << " recomputed only in A, " << d.recomputed_only_b.size()
        << " only in B.\n\n";
  }
  out << "| | A | B | B - A |\n| --- | ---: | ---: | ---: |\n";
  for (const DeltaRow& r : delta_rows(a, b, d)) {
    out << "| " << markdown_cell(r.what) << " | " << r.a << " | " << r.b << " | " << r.delta << " |\n";
  }
  if (!d.same_device) {
    out << "\nA's times are for " << markdown_code(a.device) << ", B's for " << markdown_code(b.device) << ".\n";
  }
  const auto sized = [](const std::pair<std::string, uint64_t>& r) {
    return markdown_code(r.first) + " " + human_bytes(r.second);
  };
  const auto named = [](const std::string& n) { return markdown_code(n); };
  folded(out, "Saved only in A", d.saved_only_a, top, sized);
  folded(out, "Saved only in B", d.saved_only_b, top, sized);
  folded(out, "Recomputed only in A", d.recomputed_only_a, top, named);
  folded(out, "Recomputed only in B", d.recomputed_only_b, top, named);
}

}  // namespace

void write_diff_markdown(std::ostream& out, const std::vector<GraphDiff>& diffs, size_t top) {
  for (size_t i = 0; i < diffs.size(); ++i) {
    if (i) out << "\n";
    graph_section(out, diffs[i], top);
  }
  if (diffs.size() > 1) {
    const auto differ = std::count_if(diffs.begin(), diffs.end(), [](const GraphDiff& g) { return !g.d.identical; });
    out << "\n**" << differ << " of " << diffs.size() << " graphs' cuts differ.**\n";
  }
}

}  // namespace pt
