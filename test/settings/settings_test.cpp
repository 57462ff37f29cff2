// Settings: --set values and their ranges, op-class edits by packet or
// target, "did you mean" for keys and ops, and TOML settings files.
#include <doctest/doctest.h>

#include <functional>
#include <string>

#include "graph/errors.h"
#include "settings/settings.h"
#include "partition/settings_file.h"

namespace {

using pt::Settings;
using pt::SettingsError;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SettingsError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string set_error(const std::string& assignment) {
  return error_of([&] { Settings().set_assignment(assignment); });
}

std::string file_error(const std::string& text) {
  return error_of([&] {
    Settings s;
    pt::apply_settings_text(text, "s.toml", s);
  });
}

}  // namespace

TEST_CASE("out-of-range numbers are errors naming the key and the range") {
  CHECK(set_error("dist_from_bw_cap=-1") == "setting dist_from_bw_cap = -1: must be 0 or more");
  CHECK(set_error("max_dist_from_bw=-1") == "setting max_dist_from_bw = -1: must be 0 or more");
  CHECK(set_error("activation_memory_budget=1.5") == "setting activation_memory_budget = 1.5: must be within [0, 1]");
  CHECK(set_error("activation_memory_budget=-0.1") == "setting activation_memory_budget = -0.1: must be within [0, 1]");
  CHECK(set_error("dist_from_bw_base=0") == "setting dist_from_bw_base = 0: must be positive");
  CHECK(set_error("ilp_time_limit=0") == "setting ilp_time_limit = 0: must be positive (seconds)");
  CHECK(set_error("max_dist_from_bw=nan") == "setting max_dist_from_bw = 'nan': expected a finite number");
  Settings s;
  s.set_assignment("dist_from_bw_cap=0");
  s.set_assignment("activation_memory_budget=0");
  s.set_assignment("ilp_time_limit=0.5");
  CHECK(s.ilp_time_limit == 0.5);
}

TEST_CASE("a mistyped key names the nearest key only") {
  CHECK(set_error("dist_from_bw_bas=1") ==
        "unknown setting 'dist_from_bw_bas' (did you mean 'dist_from_bw_base'?) (partition_tool --help lists the keys)");
  CHECK(set_error("recomputable_ops.ad=aten.mm").find("(did you mean 'recomputable_ops.add'?)") != std::string::npos);
  CHECK(set_error("ban_recompute_rng_seed=false").find("(did you mean 'ban_recompute_rng_seeds'?)") != std::string::npos);
  CHECK(set_error("zzzz=1") == "unknown setting 'zzzz' (partition_tool --help lists the keys)");
}

TEST_CASE("op-class edits take packets or the targets the tool prints") {
  Settings s;
  CHECK_FALSE(s.op_classes.recomputable.contains("aten.mm"));
  s.set("recomputable_ops.add", "aten.mm.default");
  CHECK(s.op_classes.recomputable.contains("aten.mm"));
  CHECK_FALSE(s.op_classes.recomputable.contains("aten.mm.default"));
  s.set("recomputable_ops.remove", "aten.mm");
  CHECK_FALSE(s.op_classes.recomputable.contains("aten.mm"));
  s.set("recomputable_ops.add", "[aten.bmm.default, aten.mm]");
  CHECK(s.op_classes.recomputable.contains("aten.bmm"));
  CHECK(s.op_classes.recomputable.contains("aten.mm"));
  // Custom ops: only the graph knows them, taken as written (overload dropped).
  s.set("random_ops.add", "mylib.noise.default");
  CHECK(s.op_classes.random.contains("mylib.noise"));
}

TEST_CASE("an op-class edit naming no op the tool knows is an error with the nearest op") {
  CHECK(set_error("recomputable_ops.add=aten.mn") ==
        "setting recomputable_ops.add: 'aten.mn' is no op the tool knows (did you mean 'aten.mm'?)");
  CHECK(set_error("recomputable_ops.add=aten.addmm.default,aten.matmull").find("'aten.matmull' is no op") !=
        std::string::npos);
  CHECK(set_error("view_ops.add=mm") == "setting view_ops.add: 'mm' is not an op (write namespace.op, e.g. aten.mm)");
  // Nothing is applied when one item is wrong.
  Settings s;
  CHECK_THROWS_AS(s.set("recomputable_ops.add", "aten.mm,aten.nope_op"), SettingsError);
  CHECK_FALSE(s.op_classes.recomputable.contains("aten.mm"));
}

TEST_CASE("settings files are TOML") {
  Settings s;
  pt::apply_settings_text(
      "# partitioner settings\n"
      "dist_from_bw_base = 1.25  # a comment\n"
      "max_dist_from_bw = 500\n"
      "cse = false\n"
      "activation_memory_budget_solver = \"greedy\"\n"
      "random_ops.add = [\"aten.bernoulli.default\"]\n"
      "\n"
      "[recomputable_ops]\n"
      "add = [\"aten.mm.default\",\n"
      "       \"aten.bmm\"]  # a list over two lines\n"
      "remove = [\"aten.add\"]\n",
      "s.toml", s);
  CHECK(s.dist_from_bw_base == 1.25);
  CHECK(s.max_dist_from_bw == 500);
  CHECK_FALSE(s.cse);
  CHECK(s.activation_memory_budget_solver == "greedy");
  CHECK(s.op_classes.random.contains("aten.bernoulli"));
  CHECK(s.op_classes.recomputable.contains("aten.mm"));
  CHECK(s.op_classes.recomputable.contains("aten.bmm"));
  CHECK_FALSE(s.op_classes.recomputable.contains("aten.add"));
  Settings replace;
  pt::apply_settings_text("view_ops = [\"aten.view\"]\n", "s.toml", replace);
  CHECK(replace.op_classes.view.size() == 1);
}

TEST_CASE("what TOML accepts but no setting means, and broken TOML, are errors naming file and line") {
  CHECK(file_error("cse = true\nrecomputable_ops.add = [\"aten.mm\"\n").starts_with("s.toml:2: "));
  CHECK(file_error("cse = true\nactivation_memory_budget_solver = \"dp\n").starts_with("s.toml:2: "));
  CHECK(file_error("\nrecomputable_ops = { add = [\"aten.mm\"] }\n") ==
        "s.toml:2: recomputable_ops: inline tables are not settings (write [recomputable_ops] and its keys on "
        "lines of their own)");
  CHECK(file_error("[recomputable_ops]\nadd = [[\"aten.mm\"]]\n") == "s.toml:2: recomputable_ops.add: nested lists are not settings");
  CHECK(file_error("cse = true\n[recomputable_op]\nadd = [\"aten.mm\"]\n") ==
        "s.toml:2: unknown section [recomputable_op] (did you mean 'recomputable_ops'?) (sections are op classes: "
        "recomputable_ops, random_ops, view_ops, compute_intensive_ops, cse_rand_ops)");
  CHECK(file_error("[view_ops]\nadd = [\"aten.view\"]\nreplace = [\"aten.view\"]\n") ==
        "s.toml:3: [view_ops] takes add and remove lists, not 'replace'");
  CHECK(file_error("cse = true\n\ndist_from_bw_cap = -1\n") == "s.toml:3: setting dist_from_bw_cap = -1: must be 0 or more");
  CHECK(file_error("cse = true\nbogus_key = 3\n") ==
        "s.toml:2: unknown setting 'bogus_key' (partition_tool --help lists the keys)");
  CHECK(file_error("recomputable_ops.add = [\"aten.mn\"]\n") ==
        "s.toml:1: setting recomputable_ops.add: 'aten.mn' is no op the tool knows (did you mean 'aten.mm'?)");
  CHECK(file_error("cse = true\ncse = false\n").starts_with("s.toml:2: "));
  CHECK(file_error("cse = true\n[[view_ops]]\nadd = [\"aten.view\"]\n") ==
        "s.toml:2: [[view_ops]]: arrays of tables are not settings");
  CHECK(file_error("cse true\n").starts_with("s.toml:1: "));
}

TEST_CASE("a missing settings file names the file") {
  Settings s;
  CHECK_THROWS_WITH_AS(pt::apply_settings_file("/nonexistent/s.toml", s),
                       "/nonexistent/s.toml: cannot open settings file: No such file or directory", SettingsError);
}
