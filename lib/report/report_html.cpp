#include "report/report_html.h"

#include <algorithm>
#include <sstream>

#include "graph/human_units.h"
#include "report/json_writer.h"
#include "report/plan_report.h"
#include "report/svg_chart.h"

namespace pt {

namespace {

// Text from the graph, escaped for HTML as for XML (svg_chart.h's xml).
std::string html(std::string_view s) { return xml(s); }


constexpr const char* kStyle = R"(
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:0 20px 40px;color:#222}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd;padding-bottom:3px}
.sub{color:#666;margin:0 0 10px}code{font:12.5px ui-monospace,monospace;background:#f3f3f3;padding:0 3px;border-radius:3px}
table{border-collapse:collapse;font-size:13px}th,td{padding:3px 9px;border-bottom:1px solid #eee;text-align:left;vertical-align:top}
th{background:#f7f7f7}td.num,th.num{text-align:right;white-space:nowrap}
#saved-table th{cursor:pointer;user-select:none}#saved-table th.sorted:after{content:" \25BE"}#saved-table th.sorted.asc:after{content:" \25B4"}
a.node{color:#1864ab;text-decoration:none;font-family:ui-monospace,monospace;font-size:12.5px}a.node:hover{text-decoration:underline}
.controls{margin:6px 0}.controls input{padding:3px 6px;width:260px}.count{color:#555;margin-left:10px}
.summary td:first-child{color:#555}.changed td{background:#fff8db}.chart{overflow-x:auto}
#explain-out{background:#f8f9fa;padding:6px 12px;border-radius:4px;min-height:30px}.facts th{width:110px;background:none}
details{margin:6px 0}summary{cursor:pointer;color:#1864ab}
)";

constexpr const char* kScript = R"(
(function(){
'use strict';
var D=JSON.parse(document.getElementById('report-data').textContent),X=null,MAX=D.max_rows;
function esc(s){return String(s).replace(/[&<>"']/g,function(c){return '&#'+c.charCodeAt(0)+';';});}
function node(n){return '<a class="node" href="#">'+esc(n)+'</a>';}
function hash(){var p={};location.hash.slice(1).split('&').forEach(function(kv){var i=kv.indexOf('=');
 if(i>0)p[decodeURIComponent(kv.slice(0,i))]=decodeURIComponent(kv.slice(i+1));});return p;}
var col=1,desc=true,filter=document.getElementById('saved-filter'),field=document.getElementById('saved-field');
function match(r,q,f){if(!q)return true;q=q.toLowerCase();
 var cs=f==='name'?[r[0]]:f==='module'?[r[5]]:f==='reason'?[r[6],r[7]]:[r[0],r[5],r[6],r[7]];
 return cs.some(function(c){return String(c).toLowerCase().indexOf(q)>=0;});}
function renderSaved(){var q=filter.value,f=field.value,rows=D.saved.filter(function(r){return match(r,q,f);});
 rows.sort(function(a,b){var x=a[col],y=b[col],c=typeof x==='number'?x-y:String(x).localeCompare(String(y));return desc?-c:c;});
 var h=[];for(var i=0;i<rows.length&&i<MAX;i++){var r=rows[i];
  h.push('<tr><td>'+node(r[0])+'</td><td class="num" title="'+r[1]+' bytes">'+esc(r[2])+'</td><td>'+esc(r[3])+'</td><td>'+
   esc(r[4])+'</td><td>'+esc(r[5])+'</td><td title="'+esc(r[7])+'">'+esc(r[6])+'</td></tr>');}
 document.getElementById('saved-body').innerHTML=h.join('');
 document.getElementById('saved-count').textContent=rows.length+' of '+D.saved.length+' saved values match'+
  (rows.length>MAX?' (first '+MAX+' shown)':'');
 document.querySelectorAll('#saved-table th').forEach(function(th){th.className=(+th.dataset.col===col?'sorted'+(desc?'':' asc'):'')+
  (th.dataset.num?' num':'');});}
document.querySelectorAll('#saved-table th').forEach(function(th){th.addEventListener('click',function(){var c=+th.dataset.col;
 desc=c===col?!desc:!!th.dataset.num;col=c;renderSaved();});});
filter.addEventListener('input',renderSaved);field.addEventListener('change',renderSaved);
function list(id,items,fmt){var h=[];for(var i=0;i<items.length&&i<MAX;i++)h.push(fmt(items[i]));
 if(items.length>MAX)h.push('<li>... '+(items.length-MAX)+' more</li>');document.getElementById(id).innerHTML=h.join('');}
list('recomputed-list',D.recomputed,function(n){return '<li>'+node(n)+'</li>';});
list('banned-list',D.banned,function(b){return '<li>'+node(b[0])+': '+esc(b[1])+'</li>';});
function explain(name){if(!X){X=JSON.parse(document.getElementById('explain-data').textContent);X.at=new Map();
  X.n.forEach(function(n,i){X.at.set(n,i);});}
 var out=document.getElementById('explain-out'),i=X.at.get(name);document.getElementById('explain-input').value=name;
 if(i===undefined){out.innerHTML='<p>No node named <code>'+esc(name)+'</code> in the prepared graph.</p>';return;}
 var r=X.x[i],s=X.s,h='<h3><code>'+esc(name)+'</code>: '+esc(s[r[0]])+'</h3><p>'+esc(s[r[1]])+'</p><table class="facts">';
 for(var k=2;k+1<r.length;k+=2)h+='<tr><th>'+esc(s[r[k]])+'</th><td>'+esc(s[r[k+1]])+'</td></tr>';out.innerHTML=h+'</table>';}
document.addEventListener('click',function(ev){var a=ev.target.closest('a.node');if(!a)return;ev.preventDefault();
 explain(a.textContent);document.getElementById('explain').scrollIntoView();});
document.getElementById('explain-form').addEventListener('submit',function(ev){ev.preventDefault();
 explain(document.getElementById('explain-input').value.trim());});
function fromHash(){var p=hash();if(p.filter!==undefined)filter.value=p.filter;if(p.field)field.value=p.field;renderSaved();
 if(p.explain)explain(p.explain);}
window.addEventListener('hashchange',fromHash);fromHash();
document.documentElement.setAttribute('data-ready-ms',Math.round(performance.now()));
})();
)";

void summary_row(std::ostream& out, const std::string& label, const std::string& value_html) {
  out << "<tr><td>" << html(label) << "</td><td>" << value_html << "</td></tr>\n";
}

std::string node_link(std::string_view name) { return "<a class=\"node\" href=\"#\">" + html(name) + "</a>"; }

void write_summary_section(std::ostream& out, const ReportModel& m) {
  out << "<h2>Summary</h2>\n<table class=\"summary\">\n";
  summary_row(out, "saved", std::to_string(m.saved.size()) + " values, " + human_bytes(m.saved_bytes));
  summary_row(out, "saving everything the backward reads",
              std::to_string(m.save_all_read.count) + " values, " + human_bytes(m.save_all_read.bytes));
  summary_row(out, "saving only the inputs",
              std::to_string(m.inputs_only.count) + " values, " + human_bytes(m.inputs_only.bytes));
  summary_row(out, "recomputed", std::to_string(m.recomputed.size()) + " ops run again in the backward");
  if (m.memory) {
    summary_row(out, "peak memory",
                human_bytes(m.memory->peak_bytes) + " at <span id=\"peak-node\">" + node_link(m.memory->peak_at) +
                    "</span> (" + html(m.memory->peak_pass) + "; forward peak " +
                    human_bytes(m.memory->forward_peak_bytes) + ", backward " +
                    human_bytes(m.memory->backward_peak_bytes) + ")");
  }
  const auto pass = [](const PassEstimate& p) {
    return human_bytes(p.bytes()) + " moved, " + human_flops(p.flops) + ", " + human_seconds(p.seconds);
  };
  summary_row(out, "forward on " + m.bandwidth.device.name, pass(m.bandwidth.forward));
  summary_row(out, "backward on " + m.bandwidth.device.name, pass(m.bandwidth.backward));
  std::string cut = html(m.cut_value) + " (" + std::to_string(m.solves.size()) + " solve" +
                    (m.solves.size() == 1 ? "" : "s") + ")";
  if (!m.budget_stage.empty()) cut += ", memory budget: " + html(m.budget_stage);
  summary_row(out, "cut value", m.saved_set_given ? std::string("none: the memory-limit plan chose the saved set") : cut);
  out << "</table>\n";
}

void write_live(std::ostream& out, const ReportModel& m, size_t top) {
  if (!m.memory) return;
  const size_t shown = top == 0 ? m.live_at_peak.size() : std::min(top, m.live_at_peak.size());
  out << "<h2>Largest values live at the peak</h2>\n<p class=\"sub\">" << m.live_at_peak.size()
      << " values hold " << human_bytes(m.memory->peak_bytes) << " while " << html(m.memory->peak_at)
      << " runs" << (shown < m.live_at_peak.size() ? "; the largest " + std::to_string(shown) + " shown" : "")
      << ".</p>\n<table id=\"live-table\"><tr><th>name</th><th class=\"num\">size</th><th>category</th><th>why alive</th></tr>\n";
  for (size_t i = 0; i < shown; ++i) {
    const LiveRow& r = m.live_at_peak[i];
    out << "<tr><td>" << node_link(r.name) << "</td><td class=\"num\">" << human_bytes(r.bytes) << "</td><td>"
        << memory_category_name(r.category) << "</td><td>" << html(r.reason_text()) << "</td></tr>\n";
  }
  out << "</table>\n";
}

void write_counts(std::ostream& out, const char* what, const std::vector<CountRow>& rows, bool with_setting) {
  out << "<table><tr><th>" << what << "</th><th class=\"num\">count</th>" << (with_setting ? "<th>turned off by</th>" : "")
      << "</tr>\n";
  for (const CountRow& r : rows) {
    out << "<tr><td>" << html(r.what) << "</td><td class=\"num\">" << r.count << "</td>";
    if (with_setting) out << "<td>" << (r.setting.empty() ? "(always on)" : "<code>" + html(r.setting) + "</code>") << "</td>";
    out << "</tr>\n";
  }
  out << "</table>\n";
}

void write_settings_section(std::ostream& out, const ReportModel& m) {
  out << "<h2>Settings</h2>\n<p class=\"sub\">Highlighted: differs from PyTorch 2.11's default.";
  for (const auto& k : m.settings_changed) {
    const bool scalar = std::any_of(m.settings.begin(), m.settings.end(), [&](const SettingValue& s) { return s.key == k; });
    if (!scalar) out << " <code>" << html(k) << "</code> edited.";
  }
  out << "</p>\n<details" << (m.settings_changed.empty() ? "" : " open")
      << "><summary>all settings</summary>\n<table id=\"settings-table\"><tr><th>key</th><th>value</th><th>default</th></tr>\n";
  for (const SettingValue& s : m.settings) {
    out << "<tr" << (s.changed ? " class=\"changed\"" : "") << "><td><code>" << html(s.key) << "</code></td><td>"
        << html(s.text) << "</td><td>" << html(s.default_text) << "</td></tr>\n";
  }
  out << "</table></details>\n";
}

// The tables' rows for the page's script.
void write_data_json(std::ostream& json, const ReportModel& m) {
  JsonWriter w(json, JsonLayout::Compact);
  w.begin_object();
  w.field("max_rows", static_cast<uint64_t>(kHtmlRowsShown));
  w.key("saved");
  w.begin_array();
  for (const SavedRow& r : m.saved) {
    w.begin_array();
    w.value(r.name);
    w.value(r.bytes);
    w.value(human_bytes(r.bytes));
    w.value(r.dtype);
    w.value(shape_text(r.shape));
    w.value(r.module_path);
    w.value(r.reason->label);
    w.value(r.reason->text);
    w.end_array();
  }
  w.end_array();
  w.key("recomputed");
  w.begin_array();
  for (std::string_view n : m.recomputed) w.value(n);
  w.end_array();
  w.key("banned");
  w.begin_array();
  for (const auto& [n, why] : m.banned) {
    w.begin_array();
    w.value(n);
    w.value(why);
    w.end_array();
  }
  w.end_array();
  w.end_object();
}

}  // namespace

uint32_t ExplainTable::text_index(const std::string& s) {
  if (const auto it = index_.find(s); it != index_.end()) return it->second;
  const auto index = static_cast<uint32_t>(texts_.size());
  index_.emplace(texts_.emplace_back(s), index);
  return index;
}

void ExplainTable::add(const Explanation& x) {
  names_.push_back(x.node);
  row_items_.push_back(text_index(x.status));
  row_items_.push_back(text_index(x.summary));
  for (const ExplainFact& f : x.facts) {
    row_items_.push_back(text_index(f.label));
    row_items_.push_back(text_index(f.text));
  }
  row_start_.push_back(row_items_.size());
}

void ExplainTable::write_json(std::ostream& out) const {
  JsonWriter w(out, JsonLayout::Compact);
  w.begin_object();
  w.key("s");
  w.begin_array();
  for (const auto& s : texts_) w.value(s);
  w.end_array();
  w.key("n");
  w.begin_array();
  for (const auto& n : names_) w.value(n);
  w.end_array();
  w.key("x");
  w.begin_array();
  for (size_t k = 0; k + 1 < row_start_.size(); ++k) {
    w.begin_array();
    for (size_t i = row_start_[k]; i < row_start_[k + 1]; ++i) w.value(static_cast<uint64_t>(row_items_[i]));
    w.end_array();
  }
  w.end_array();
  w.end_object();
}

void write_report_html(std::ostream& out, const ReportModel& m, const ExplainTable& explanations, size_t top) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>partition_tool report: "
      << html(m.graph) << "</title>\n<style>" << kStyle << "</style></head><body>\n";
  out << "<h1>partition_tool report: <code>" << html(m.graph) << "</code></h1>\n<p class=\"sub\">" << html(m.source)
      << ": " << m.nodes_input << " nodes in the joint graph, " << m.nodes_after_prepare
      << " after dead-code elimination and CSE. Click any node name for its explanation.</p>\n";
  write_summary_section(out, m);
  if (m.plan) write_plan_html(out, *m.plan);
  out << "<h2>Memory timeline</h2>\n<div class=\"chart\">\n";
  if (m.memory_plot) write_memory_svg(out, m.graph, {*m.memory_plot});
  else out << "<p>No timeline: the peak memory was not simulated.</p>\n";
  out << "</div>\n";
  write_live(out, m, top);
  out << "<h2>Saved values</h2>\n<div class=\"controls\">filter <select id=\"saved-field\"><option value=\"any\">"
         "name, module or reason</option><option value=\"name\">name</option><option value=\"module\">module</option>"
         "<option value=\"reason\">reason</option></select> <input id=\"saved-filter\" type=\"search\" "
         "placeholder=\"substring\"><span class=\"count\" id=\"saved-count\"></span></div>\n"
         "<table id=\"saved-table\"><thead><tr><th data-col=\"0\">name</th><th data-col=\"1\" data-num=\"1\">size</th>"
         "<th data-col=\"3\">dtype</th><th data-col=\"4\">shape</th><th data-col=\"5\">module</th>"
         "<th data-col=\"6\">why saved</th></tr></thead><tbody id=\"saved-body\"></tbody></table>\n";
  out << "<h2>Recomputed ops</h2>\n<p class=\"sub\">" << m.recomputed.size() << " ops run again in the backward.</p>\n";
  if (!m.recomputed_by_op.empty()) write_counts(out, "op", m.recomputed_by_op, false);
  out << "<details><summary>every recomputed op</summary><ul id=\"recomputed-list\"></ul></details>\n";
  out << "<h2>Recomputation bans</h2>\n<p class=\"sub\">" << m.banned.size() << " nodes the cut may not recompute.</p>\n";
  if (!m.bans_by_reason.empty()) write_counts(out, "reason", m.bans_by_reason, true);
  out << "<details><summary>every banned node</summary><ul id=\"banned-list\"></ul></details>\n";
  write_settings_section(out, m);
  out << "<h2 id=\"explain\">Explain a node</h2>\n<form id=\"explain-form\"><input id=\"explain-input\" "
         "placeholder=\"node name\" size=\"40\"> <button>explain</button></form>\n<div id=\"explain-out\"><p>"
      << explanations.size() << " nodes can be explained.</p></div>\n";
  // JSON for <script type="application/json"> elements, written into the
  // page (JsonLayout::Compact escapes the '<' that could close them).
  out << "<script type=\"application/json\" id=\"report-data\">";
  write_data_json(out, m);
  out << "</script>\n<script type=\"application/json\" id=\"explain-data\">";
  explanations.write_json(out);
  out << "</script>\n";
  out << "<script>" << kScript << "</script>\n</body></html>\n";
}

}  // namespace pt
