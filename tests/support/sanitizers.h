// Whether the tests run under a sanitizer, for GCC and Clang alike: GCC defines
// __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__; Clang 14 says so only through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define KMS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KMS_TEST_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define KMS_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define KMS_TEST_TSAN 1
#endif
#endif
