// async.cpp — the async exception hook.
#include "runtime/async.hpp"

#include <cstdio>
#include <utility>

namespace skein {

namespace {

void print_async_failure(std::exception_ptr error) {
  try {
    std::rethrow_exception(std::move(error));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "skein: an async thread failed: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "skein: an async thread failed with a non-standard exception\n");
  }
}

AsyncExceptionHook& hook() {
  static AsyncExceptionHook h = print_async_failure;
  return h;
}

}  // namespace

AsyncExceptionHook set_async_exception_hook(AsyncExceptionHook new_hook) {
  if (!new_hook) new_hook = print_async_failure;
  return std::exchange(hook(), std::move(new_hook));
}

namespace detail {

void report_async_failure(const std::exception_ptr& error) noexcept {
  try {
    hook()(error);
  } catch (...) {
    std::fprintf(stderr, "skein: the async exception hook threw; ignored\n");
  }
}

}  // namespace detail

}  // namespace skein
