// PT_UNDER_SANITIZER is 1 in an AddressSanitizer build (GCC or clang): its
// shadow memory cannot start under an address-space limit, so tests that
// set one skip there.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define PT_UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PT_UNDER_SANITIZER 1
#endif
#endif
