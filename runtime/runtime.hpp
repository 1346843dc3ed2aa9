// runtime.hpp — the whole public runtime in one include. Start reading with
// OVERVIEW.md and bind.hpp.
#pragma once

#include "runtime/async.hpp"
#include "runtime/bind.hpp"
#include "runtime/cancel.hpp"
#include "runtime/catch.hpp"
#include "runtime/choose.hpp"
#include "runtime/condition.hpp"
#include "runtime/coroutine.hpp"
#include "runtime/fiber.hpp"
#include "runtime/finally.hpp"
#include "runtime/join.hpp"
#include "runtime/label.hpp"
#include "runtime/mailbox.hpp"
#include "runtime/mutex.hpp"
#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/semaphore.hpp"
#include "runtime/stream.hpp"
#include "runtime/tcp.hpp"
#include "runtime/trace_sink.hpp"
