// finding_text.hpp — a finding's words as a reader holds them: the texts
// it shares with every finding worded alike (rule, severity, grouping and
// the sentence as a template, finding_message_template.hpp) behind one
// shared pointer, and its own numbers beside it. A lint of a large trace
// finds hundreds of thousands of findings worded a few dozen ways, so a
// finding costs its numbers, not its sentence: the sentence is rendered
// when something shows it.
//
// Invariants: a FindingText's wording, when present, is immutable and
// shared; its template has the shape stored with it, and the finding's
// numbers fit that shape (every constructor here checks), so message()
// gives back the sentence as it was split, byte for byte. A FindingText
// without a wording has empty texts. FindingWordings interns: equal texts
// give the same pointer.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "viewer/analysis/finding_message_template.hpp"

namespace skein {

struct FindingWording {
  std::string rule;
  std::string severity;  // error, warning or note; "" when an older table has none
  std::string group;     // what `skein lint` groups the rule's findings by; "" for none
  std::string sentence;  // a template, finding_message_template.hpp
  MessageTemplateShape shape;
};

struct FindingText {
  std::shared_ptr<const FindingWording> wording;
  std::array<std::int64_t, kMessageArguments> arguments{};

  [[nodiscard]] std::string_view rule() const { return wording ? std::string_view(wording->rule) : std::string_view(); }
  [[nodiscard]] std::string_view severity() const {
    return wording ? std::string_view(wording->severity) : std::string_view();
  }
  [[nodiscard]] std::string_view group() const {
    return wording ? std::string_view(wording->group) : std::string_view();
  }
  // The sentence, rendered now.
  [[nodiscard]] std::string message() const;

  // These texts, with a wording of their own (the sentence split here).
  void set_text(std::string_view rule, std::string_view severity, std::string_view message,
                std::string_view group = {});
};

// Interns wordings, so that findings worded alike share one.
class FindingWordings {
 public:
  // The wording of these texts with `message` split into its template and
  // numbers, which go to `text`.
  void word(FindingText& text, std::string_view rule, std::string_view severity, std::string_view message,
            std::string_view group);
  // The wording of these texts with a template already split; nullopt when
  // the template is not one split_message writes.
  [[nodiscard]] std::optional<std::shared_ptr<const FindingWording>> intern(std::string_view rule,
                                                                            std::string_view severity,
                                                                            std::string_view group,
                                                                            std::string_view sentence);
  [[nodiscard]] std::size_t size() const { return by_texts_.size(); }

 private:
  std::unordered_map<std::string, std::shared_ptr<const FindingWording>> by_texts_;
};

// The numbers of a template of `shape`, or nullopt when they do not fit it.
[[nodiscard]] std::optional<std::array<std::int64_t, kMessageArguments>> fitted_arguments(
    const MessageTemplateShape& shape, const std::array<std::optional<std::int64_t>, kMessageArguments>& arguments);

}  // namespace skein
