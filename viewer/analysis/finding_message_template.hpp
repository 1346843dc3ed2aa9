// finding_message_template.hpp — a finding's sentence split into what
// repeats and what does not, so that the database stores each distinct
// wording once. "thread 12 took control from thread 3 at its resolve of
// thread 12 ..." becomes the template "thread %d took control from thread
// %d at its resolve of thread %d ..." and the numbers 12, 3, 12; the
// findings table (recorder/store/SCHEMA.md) keeps the numbers in a1..a4
// and the template once in finding_texts.
//
// The template is a format SQLite's printf() reads, so the `anomalies`
// view gives back every sentence with printf(template, a1, a2, a3, a4):
//   - `%` in the sentence is `%%`;
//   - each of the first kMessageArguments runs of decimal digits that fit
//     in 18 digits becomes `%d`, or `%0Nd` when it starts with a 0 and has N
//     > 1 digits (so "05" and "007" come back as written);
//   - every other character, later digit runs included, stays as it is.
// Splitting is lossless for any text (trace labels in a sentence
// included): render_message_template(split(m)) == m, byte for byte.
//
// Rendering reads a template from a database, which is untrusted: it
// accepts only the three forms above and fails (nullopt) on anything else,
// on a missing number, and on a number that does not fit its width; it
// never hands a database's text to a printf of ours.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skein {

inline constexpr std::size_t kMessageArguments = 4;

struct MessageTemplate {
  std::string text;
  std::array<std::optional<std::int64_t>, kMessageArguments> arguments{};
};

[[nodiscard]] MessageTemplate split_message(std::string_view message);

// What a template asks of its numbers: how many, and each one's width (0
// for %d, N for %0Nd); nullopt for a template this file would not write.
// A reader that keeps templates checks each once with this, and each
// finding's numbers with message_arguments_fit, and renders later.
struct MessageTemplateShape {
  std::uint8_t count = 0;
  std::array<std::uint8_t, kMessageArguments> widths{};
};
[[nodiscard]] std::optional<MessageTemplateShape> message_template_shape(std::string_view text);

// Whether render_message_template(text, arguments) succeeds for a text of
// this shape: each number it uses present, not negative, within its width.
[[nodiscard]] bool message_arguments_fit(const MessageTemplateShape& shape,
                                         const std::array<std::optional<std::int64_t>, kMessageArguments>& arguments);

// The sentence back; nullopt for a template this file would not write.
[[nodiscard]] std::optional<std::string> render_message_template(
    std::string_view text, const std::array<std::optional<std::int64_t>, kMessageArguments>& arguments);

}  // namespace skein
