#!/usr/bin/env bash
# Sets up a machine to build and test partition_tool, then builds it.
# On a fresh Debian 12, run as root from the clone:  bash scripts/setup.sh
#
# 1. installs, with apt-get (noninteractive, quiet), exactly the Debian
#    packages below that are not installed yet; nothing when all are;
# 2. configures with CMake into build/ (Ninja, Release) and builds the tool
#    and the tests: build/app/partition_tool, then `ctest --test-dir build`.
#
# --bench also installs what the benchmark harness needs beyond the build
# (libbenchmark-dev, so build/bench/pt_bench is built; python3-networkx, for
# the min-cut side-by-side), so that on a fresh machine
#   bash scripts/setup.sh --bench && python3 bench/run_benchmarks.py
# prints every table of docs/performance.md. Without them the harness prints
# "n/a" in those columns. Neither is needed by the tool or the tests.
set -euo pipefail

cd "$(dirname "$0")/.."

bench=0
for arg in "$@"; do
  case "$arg" in
    --bench) bench=1 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "setup: unknown option '$arg' (known: --bench, --help)" >&2; exit 2 ;;
  esac
done

packages=(cmake g++ ninja-build libcli11-dev liblemon-dev libglpk-dev libltdl-dev libspdlog-dev libfmt-dev libtomlplusplus-dev
          libprotobuf-dev protobuf-compiler doctest-dev python3
          clang libclang-rt-dev)  # clang and its sanitizer/libFuzzer runtimes (only recommended by
                                  # clang, so not pulled by --no-install-recommends): scripts/sanitize.sh, fuzz.sh
if ((bench)); then packages+=(libbenchmark-dev python3-networkx); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: these packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C build --quiet
echo "setup: built build/app/partition_tool and the tests (run them: ctest --test-dir build)" >&2
