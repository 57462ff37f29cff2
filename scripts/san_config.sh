# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: one configuration of
# build-san/ (clang; ASan + UBSan + libFuzzer coverage via PT_FUZZ; tests on;
# -O0), so both scripts share its objects and neither reconfigures the other.
configure_san_build() {
  CC=clang CXX=clang++ cmake -S . -B build-san -G Ninja -DPT_FUZZ=ON -DPT_BUILD_TESTS=ON -DPT_BUILD_BENCH=OFF \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0" >/dev/null
}
