// units.hpp — numbers and durations as people read them: "1,234,567",
// "950 ns", "12.3 µs", "4.56 ms", "1.234 s", "1 finding", "2 findings".
// Used by the command line and the viewer alike; plain code, no Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skein {

// 1234567 -> "1,234,567"
[[nodiscard]] std::string group_thousands(std::int64_t value);
// The noun that agrees with a count: plural_noun(1, "rule") is "rule",
// plural_noun(0, "rule") and plural_noun(2, "rule") are "rules"; `plural`
// for a noun that does not just take an "s" ("match", "matches").
[[nodiscard]] std::string plural_noun(std::uint64_t count, std::string_view singular, std::string_view plural = {});
// A count and its noun, grouped: counted(1, "finding") is "1 finding",
// counted(1234, "thread") is "1,234 threads".
[[nodiscard]] std::string counted(std::uint64_t count, std::string_view singular, std::string_view plural = {});
// Nanoseconds with the largest unit that keeps the number >= 1, three
// significant digits (ns are exact): 950 -> "950 ns", 12345 -> "12.3 µs".
[[nodiscard]] std::string format_duration_ns(std::int64_t ns);
// A point in time (ns since the trace's origin, as the records say) in µs
// to the ns: 1222348 -> "1,222.348 µs". Where a step of a causal chain
// happened, so steps a few µs apart stay apart.
[[nodiscard]] std::string format_time_us(std::int64_t ns);
// "125ms", "1.5s", "300us" (or "300µs"), "42ns", "2 ms" -> nanoseconds;
// nullopt when the text is not a non-negative number with one of these units.
[[nodiscard]] std::optional<std::int64_t> parse_duration_ns(std::string_view text);
// "12.5" milliseconds, the value of an option such as `--block-ms`, ->
// nanoseconds; nullopt unless the whole text (blanks around it aside) is a
// finite decimal number from 0 to max_ms: NaN, infinities, negatives and
// trailing text are refused. Independent of the locale.
[[nodiscard]] std::optional<std::int64_t> parse_milliseconds_ns(std::string_view text, double max_ms);

}  // namespace skein
