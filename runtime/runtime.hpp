// runtime.hpp — the whole public runtime in one include. Start reading with
// OVERVIEW.md and bind.hpp.
#pragma once

#include "runtime/async.hpp"
#include "runtime/bind.hpp"
#include "runtime/cancel.hpp"
#include "runtime/catch.hpp"
#include "runtime/choose.hpp"
#include "runtime/finally.hpp"
#include "runtime/join.hpp"
#include "runtime/label.hpp"
#include "runtime/promise.hpp"
#include "runtime/resolver.hpp"
#include "runtime/scheduler.hpp"
#include "runtime/trace_sink.hpp"
