// unread_failure.hpp — the `unread-failure` rule: a thread that failed and
// whose outcome no other thread read, an exception nobody saw. A read of
// any thread of the failed thread's merge group (merge_groups.hpp) counts,
// since a merged thread's readers read it under another id; a read by the
// thread itself does not. Cancellation is not a failure. viewer/analysis/LINTS.md
// has an example.
#pragma once

#include <memory>

#include "viewer/analysis/lint_rule.hpp"

namespace skein {

[[nodiscard]] std::unique_ptr<LintRule> make_unread_failure_rule();

}  // namespace skein
