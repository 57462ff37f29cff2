#!/usr/bin/env bash
# Fuzzes partition_tool's input path: builds the libFuzzer targets of fuzz/
# (clang, -fsanitize=fuzzer,address,undefined) in build-san/ (the sanitizer
# build of scripts/sanitize.sh, configured the same way by
# scripts/san_config.sh) and runs fuzz_pb, fuzz_pbtxt and fuzz_json one after
# the other, SECONDS each. Its working files live in build-fuzz/.
#
#   bash scripts/fuzz.sh --ci     # what .ci/run does: 8,000 inputs per target
#   bash scripts/fuzz.sh          # 60 s per target, exploring
#   bash scripts/fuzz.sh 600      # a long run: 10 minutes per target
#
# --ci: libFuzzer's seed fixed (-seed=1), a fixed number of inputs
# (-runs=8000, 14-74 s per target on the same two cores, as mutations
# lead; stopped at 40 s, so that the whole CI run stays within its 20
# minutes, and the log says how many ran) and a corpus that starts from
# the seeds alone
# (build-fuzz/ci-corpus/, emptied first): the same amount of work on any
# machine, from where every developer's run starts (not bit-for-bit
# repeatable: mutations follow values compared at run time). Exploring, with
# what earlier runs learned and a random seed, is the timed mode's job
# (docs/user_guide.md, "Robustness").
#
# Needs clang (scripts/setup.sh installs it) and the normal build in build/
# (for `partition_tool convert`, which turns the corpus into text and JSON
# seeds). Seeds: sample_graphs/, the small corpus graphs, test/malformed/ and
# test/robustness/. What the fuzzer learns accumulates in
# build-fuzz/corpus/<target>/ across runs; logs go to build-fuzz/logs/. A
# finding (crash, sanitizer report, uncaught exception, a run over 10 s or
# 2 GB) is written to build-fuzz/findings/ and makes the script fail:
# reproduce it with `build-san/fuzz/fuzz_<target> FILE`, then add the file
# to test/malformed/ or test/robustness/ with its expected one-line error.
set -euo pipefail
cd "$(dirname "$0")/.."

ci=0
seconds=${1:-60}
if [[ ${1:-} == --ci ]]; then ci=1; seconds=40; fi
tool=build/app/partition_tool
[[ -x $tool ]] || { echo "fuzz: $tool is missing: run scripts/setup.sh first" >&2; exit 1; }

source scripts/san_config.sh
configure_san_build
ninja -C build-san --quiet fuzz_pb fuzz_pbtxt fuzz_json

seeds=build-fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{pb,pbtxt,json} build-fuzz/findings build-fuzz/logs
for f in sample_graphs/* test/malformed/* test/robustness/*; do
  case $f in
    *.pb) cp "$f" "$seeds/pb/" ;;
    *.pbtxt) cp "$f" "$seeds/pbtxt/" ;;
    *.json) cp "$f" "$seeds/json/" ;;
  esac
done
# The corpus graphs under 40 kB as they are (larger ones slow every run down),
# and the smallest in every format.
for f in test/corpus/*.pb; do
  size=$(stat -c %s "$f")
  ((size < 40000)) && cp "$f" "$seeds/pb/"
  if ((size < 20000)); then
    name=$(basename "$f" .pb)
    "$tool" -q convert "$f" "$seeds/pbtxt/$name.pbtxt"
    "$tool" -q convert "$f" "$seeds/json/$name.json"
  fi
done

leaks=$(leak_checks fuzz)  # scripts/san_config.sh

status=0
for target in pb pbtxt json; do
  corpus=build-fuzz/corpus/$target
  limits=(-max_total_time="$seconds")
  if ((ci)); then
    corpus=build-fuzz/ci-corpus/$target
    rm -rf "$corpus"
    limits+=(-seed=1 -runs=8000)
  fi
  mkdir -p "$corpus"
  dict=()
  [[ $target != pb ]] && dict=(-dict=fuzz/graph.dict)
  log=build-fuzz/logs/$target.log
  if ! "build-san/fuzz/fuzz_$target" "$corpus" "$seeds/$target" "${dict[@]}" \
      "${limits[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -detect_leaks=$leaks \
      -artifact_prefix="build-fuzz/findings/$target-" >"$log" 2>&1; then
    echo "fuzz: fuzz_$target found a problem (see $log and build-fuzz/findings/):" >&2
    grep -m 6 -E "ERROR|runtime error|terminate called|what\(\)|Test unit written" "$log" >&2 || tail -5 "$log" >&2
    status=1
  fi
  execs=$(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
  cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE)' "$log" | tail -1 | grep -o 'cov: [0-9]* ft: [0-9]* corp: [0-9/a-zA-Z]*' || echo "?")
  took=$(grep -m1 -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o '[0-9]* second' || echo "? second")
  echo "fuzz: fuzz_$target: ${took}s, $execs runs, $cov" >&2
done
exit "$status"
