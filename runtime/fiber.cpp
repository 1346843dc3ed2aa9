// fiber.cpp — starting, switching into and out of, and finishing fibers
// (fiber.hpp has the protocol and its invariants).
//
// Every switch into a fiber goes through FiberCore::run_until_blocked on the
// resumer's side, which saves and restores around it what is per stack: the
// current fiber, the callback depth (invariant 4), the C++ exception-handling
// globals (invariant 5) and, under AddressSanitizer, the stack ASan believes
// it is on. The fiber's side of a switch is FiberCore::suspend (in await,
// inline in fiber.hpp) or returning from fiber_main (when it finishes).
#include "runtime/fiber.hpp"

#include <cassert>
#include <cxxabi.h>
#include <stdexcept>
#include <string>

namespace skein {

namespace detail {

namespace {

namespace ctx = boost::context;

// --- exception-handling globals (invariant 5) --------------------------------
//
// libstdc++ keeps, per OS thread, the chain of exceptions being handled and
// the count of uncaught ones (__cxa_eh_globals, laid out as in its
// unwind-cxx.h). A fiber that blocks inside a catch block would otherwise
// leave its exception on the chain while another fiber pushes and pops its
// own, and `throw;` or the end of a handler would act on the wrong one.
struct EhGlobals {
  void* caught;
  unsigned int uncaught;
};
// Looked up once per OS thread: __cxa_get_globals lives in libstdc++.so and
// costs a call and a dynamic TLS lookup, this a load relative to %fs.
thread_local EhGlobals* t_eh_globals = nullptr;
EhGlobals* eh_globals() noexcept {
  EhGlobals* eh = t_eh_globals;
  if (eh == nullptr) [[unlikely]]
    eh = t_eh_globals = reinterpret_cast<EhGlobals*>(abi::__cxa_get_globals());
  return eh;
}

// --- stacks -------------------------------------------------------------------

// Boost.Context's StackAllocator over the pool; it tells the fiber its stack.
struct PooledStackAllocator {
  FiberCore* core;

  ctx::stack_context allocate() {
    const FiberStack stack = allocate_fiber_stack();
    core->stack = stack;
    ctx::stack_context sctx;
    sctx.size = stack.size;
    sctx.sp = static_cast<char*>(stack.low) + stack.size;
    return sctx;
  }
  void deallocate(ctx::stack_context& sctx) noexcept {
    void* low = static_cast<char*>(sctx.sp) - sctx.size;
    release_fiber_stack(FiberStack{static_cast<char*>(low) - page_size(), low, sctx.size});
  }
};

// The bottom of every fiber's stack. It returns the continuation of whoever
// resumed the fiber last, which Boost.Context switches to while it frees the
// stack (on the resumer's stack).
ctx::fiber fiber_main(FiberCore* core, ctx::fiber&& from) {
  core->resumer = std::move(from);
  asan_finish_switch(nullptr, &core->asan_resumer_low, &core->asan_resumer_size);
  core->body(core);
  asan_start_switch(nullptr, core->asan_resumer_low, core->asan_resumer_size);  // null: this stack ends
  return std::move(core->resumer);
}

// Resumes a fiber from the loop's ready queue (its awaited promise settled).
void resume_from_scheduler(FiberCore* core) noexcept {
  ActorScope actor(core->thread, true);  // records switch F
  core->run_until_blocked();             // may free core
}

}  // namespace

FiberCore::FiberCore(ThreadId id) noexcept : thread(id) { on_event = &fiber_on_event; }

FiberCore::~FiberCore() {
  // Invariant 1: only a finished fiber's node dies, so there is no stack to
  // unwind. (If there were, boost::context::fiber's destructor would unwind it.)
  assert(!context);
}

void FiberCore::run_until_blocked() {
  FiberCore* const outer = g_current_fiber;
  const int depth = g_runtime.depth;
  g_current_fiber = this;
  g_runtime.depth = kFiberBaseDepth;
  EhGlobals* const eh = eh_globals();
  const EhGlobals saved = *eh;
  eh->caught = eh_caught;
  eh->uncaught = eh_uncaught;

  void* fake_stack = nullptr;
  asan_start_switch(&fake_stack, stack.low, stack.size);
  context = std::move(context).resume();
  asan_finish_switch(fake_stack, nullptr, nullptr);

  eh_caught = eh->caught;
  eh_uncaught = eh->uncaught;
  *eh = saved;
  g_runtime.depth = depth;
  g_current_fiber = outer;
  if (!context) {
    assert(eh_caught == nullptr && eh_uncaught == 0);
    finish(this);  // may free this
  }
}

void fiber_on_event(Waiter* w, Node* settled, WaitEvent event) noexcept {
  auto* core = static_cast<FiberCore*>(w);
  switch (event) {
    case WaitEvent::fire:
      // Inside the resolver: the loop resumes the fiber, from its ready queue.
      w->next = w;
      defer_waiters(settled, w);
      return;
    case WaitEvent::fire_deferred:
      resume_from_scheduler(core);
      return;
    case WaitEvent::detach:
      // Defensive: invariant 3 says await holds its input, so it cannot die pending.
      assert(false && "skein: a blocked fiber's promise died pending");
      return;
  }
}

void start_fiber(FiberCore* core, Node* node, const std::source_location& site) {
  // Allocate first: if the stack cannot be had, nothing is recorded and the
  // caller's handle frees the node.
  core->context = ctx::fiber(std::allocator_arg, PooledStackAllocator{core},
                             [core](ctx::fiber&& from) { return fiber_main(core, std::move(from)); });
  add_ref(node);  // invariant 1
  trace_spawn(node, site);
  struct Restore {
    ThreadId caller = g_runtime.actor;
    ~Restore() {
      g_runtime.actor = caller;
      trace_switch(caller);
    }
  } restore;
  trace_switch(core->thread);
  g_runtime.actor = core->thread;
  core->run_until_blocked();
}

void throw_cannot_block() {
  FiberCore* const self = g_current_fiber;
  if (self == nullptr)
    throw std::logic_error(
        "skein::await: the promise is pending and the caller is not a fiber; only a fiber can block "
        "(elsewhere use bind, co_await in a coroutine, or run)");
  throw std::logic_error("skein::await: the promise is pending and the caller, thread " +
                         std::to_string(g_runtime.actor) + ", is a callback or coroutine running on the stack of " +
                         "fiber " + std::to_string(self->thread) +
                         ", not the fiber itself; only a fiber's own code can block");
}

FiberStack current_fiber_stack() noexcept {
  return g_current_fiber != nullptr ? g_current_fiber->stack : FiberStack{};
}

}  // namespace detail

bool in_fiber() noexcept {
  return detail::g_current_fiber != nullptr && detail::g_current_fiber->thread == detail::g_runtime.actor;
}

}  // namespace skein
