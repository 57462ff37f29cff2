# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: one configuration of
# build-san/ (clang; ASan + UBSan + libFuzzer coverage via PT_FUZZ; tests on;
# -O0; the engine a shared library, linked once rather than into every
# test program), so both scripts share its objects and neither reconfigures the other.
configure_san_build() {
  CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DPT_FUZZ=ON -DPT_SHARED_LIBS=ON -DPT_BUILD_TESTS=ON -DPT_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0" >/dev/null
}

# Prints 1 when LeakSanitizer can run here, else 0 (with a warning naming
# the caller). It needs to stop the process's threads (ptrace-like), which
# some containers forbid; there every sanitized process would fail at exit,
# so a leak-free probe decides once rather than every test failing.
leak_checks() {
  if ASAN_OPTIONS=detect_leaks=1 build-san/app/partition_tool --version >/dev/null 2>&1; then
    echo 1
  else
    echo "$1: LeakSanitizer cannot run on this machine; leaks are not checked (ASan and UBSan are)" >&2
    echo 0
  fi
}
