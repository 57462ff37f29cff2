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
leaks=$(leak_checks sanitize)
# halt_on_error: the first report fails the test that triggered it.
export ASAN_OPTIONS=detect_leaks=$leaks:halt_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
ctest --test-dir build-san --output-on-failure -j2
