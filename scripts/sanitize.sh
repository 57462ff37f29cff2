#!/usr/bin/env bash
# Builds the whole test suite with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer into build-san/ and runs it there (the CLI tests
# then run the instrumented tool). .ci/run calls this after the normal tests.
#
#   bash scripts/sanitize.sh
#
# The same build carries libFuzzer's coverage instrumentation
# (-fsanitize=fuzzer-no-link, PT_FUZZ=ON), so scripts/fuzz.sh links its
# targets from the objects built here instead of compiling everything a third
# time. -O0 keeps the build short on CI's two cores; the suite still finishes
# in a few minutes. Needs clang (scripts/setup.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/san_config.sh
configure_san_build
ninja -C build-san --quiet
# LeakSanitizer needs to stop the process's threads (ptrace-like); some
# containers forbid that, and then every process would fail at exit. Check
# once with a leak-free run and say so rather than fail every test.
leaks=1
if ! ASAN_OPTIONS=detect_leaks=1 build-san/app/partition_tool --version >/dev/null 2>&1; then
  echo "sanitize: LeakSanitizer cannot run on this machine; leaks are not checked (ASan and UBSan are)" >&2
  leaks=0
fi
# halt_on_error: the first report fails the test that triggered it.
export ASAN_OPTIONS=detect_leaks=$leaks:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-san --output-on-failure -j2
