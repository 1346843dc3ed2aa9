// finding_text.cpp — rendering goes through render_message_template, the
// one renderer, with the numbers the shape uses; interning keys a wording
// by its four texts, each prefixed with its length so no two differ only
// in where one text ends.
#include "viewer/analysis/finding_text.hpp"

namespace skein {
namespace {

std::array<std::optional<std::int64_t>, kMessageArguments> optional_arguments(
    const MessageTemplateShape& shape, const std::array<std::int64_t, kMessageArguments>& arguments) {
  std::array<std::optional<std::int64_t>, kMessageArguments> out;
  for (std::size_t a = 0; a < shape.count; ++a) out[a] = arguments[a];
  return out;
}

std::shared_ptr<const FindingWording> make_wording(std::string_view rule, std::string_view severity,
                                                   std::string_view group, std::string sentence,
                                                   const MessageTemplateShape& shape) {
  auto w = std::make_shared<FindingWording>();
  w->rule = rule;
  w->severity = severity;
  w->group = group;
  w->sentence = std::move(sentence);
  w->shape = shape;
  return w;
}

void append_keyed(std::string& key, std::string_view text) {
  key += std::to_string(text.size());
  key += ':';
  key += text;
}

}  // namespace

std::optional<std::array<std::int64_t, kMessageArguments>> fitted_arguments(
    const MessageTemplateShape& shape, const std::array<std::optional<std::int64_t>, kMessageArguments>& arguments) {
  if (!message_arguments_fit(shape, arguments)) return std::nullopt;
  std::array<std::int64_t, kMessageArguments> out{};
  for (std::size_t a = 0; a < shape.count; ++a) out[a] = *arguments[a];
  return out;
}

std::string FindingText::message() const {
  if (!wording) return {};
  return render_message_template(wording->sentence, optional_arguments(wording->shape, arguments)).value_or("");
}

void FindingText::set_text(std::string_view rule, std::string_view severity, std::string_view message,
                           std::string_view group) {
  MessageTemplate split = split_message(message);
  // split_message writes only templates of a shape its numbers fit.
  const MessageTemplateShape shape = message_template_shape(split.text).value_or(MessageTemplateShape{});
  wording = make_wording(rule, severity, group, std::move(split.text), shape);
  arguments = fitted_arguments(shape, split.arguments).value_or(std::array<std::int64_t, kMessageArguments>{});
}

void FindingWordings::word(FindingText& text, std::string_view rule, std::string_view severity,
                           std::string_view message, std::string_view group) {
  const MessageTemplate split = split_message(message);
  auto wording = intern(rule, severity, group, split.text);
  if (!wording) {  // never: split_message writes only templates it reads
    text.set_text(rule, severity, message, group);
    return;
  }
  text.wording = std::move(*wording);
  text.arguments = fitted_arguments(text.wording->shape, split.arguments)
                       .value_or(std::array<std::int64_t, kMessageArguments>{});
}

std::optional<std::shared_ptr<const FindingWording>> FindingWordings::intern(std::string_view rule,
                                                                             std::string_view severity,
                                                                             std::string_view group,
                                                                             std::string_view sentence) {
  std::string key;
  key.reserve(rule.size() + severity.size() + group.size() + sentence.size() + 16);
  append_keyed(key, rule);
  append_keyed(key, severity);
  append_keyed(key, group);
  append_keyed(key, sentence);
  if (const auto it = by_texts_.find(key); it != by_texts_.end()) return it->second;
  const auto shape = message_template_shape(sentence);
  if (!shape) return std::nullopt;
  auto wording = make_wording(rule, severity, group, std::string(sentence), *shape);
  by_texts_.emplace(std::move(key), wording);
  return wording;
}

}  // namespace skein
