// finding_text_test.cpp — a finding's words as readers hold them
// (viewer/analysis/finding_text.hpp): the sentence comes back byte for byte
// from its shared wording and its own numbers; findings worded alike share
// one wording, and texts that differ only in where one ends and the next
// begins do not; a template the splitter never writes is refused when
// interned, so no finding ever holds one.
#include <catch2/catch.hpp>

#include "viewer/analysis/finding_text.hpp"

using namespace skein;

TEST_CASE("finding text: the sentence comes back as written, its texts beside it") {
  FindingText t;
  CHECK(t.rule().empty());
  CHECK(t.message().empty());
  const std::string sentence = "thread 12 took control from thread 3 at 0.004000 ms (100% of \"label 7\")";
  t.set_text("missing-notification", "error", sentence, "created by thread 0");
  CHECK(t.message() == sentence);
  CHECK(t.rule() == "missing-notification");
  CHECK(t.severity() == "error");
  CHECK(t.group() == "created by thread 0");
  // What the wording keeps is the template, not the numbers.
  CHECK(t.wording->sentence == "thread %d took control from thread %d at %d.%06d ms (100%% of \"label 7\")");
  CHECK(t.arguments == std::array<std::int64_t, kMessageArguments>{12, 3, 0, 4000});
}

TEST_CASE("finding text: findings worded alike share one wording") {
  FindingWordings wordings;
  FindingText a, b, c, d;
  wordings.word(a, "self-wake", "note", "thread 5 woke itself at 17", "");
  wordings.word(b, "self-wake", "note", "thread 9 woke itself at 2", "");
  wordings.word(c, "self-wake", "warning", "thread 9 woke itself at 2", "");
  // The same characters cut differently between rule and severity.
  wordings.word(d, "self-wakenote", "", "thread 9 woke itself at 2", "");
  CHECK(a.wording == b.wording);
  CHECK(a.wording != c.wording);
  CHECK(d.wording != a.wording);
  CHECK(wordings.size() == 3);
  CHECK(a.message() == "thread 5 woke itself at 17");
  CHECK(b.message() == "thread 9 woke itself at 2");
  CHECK(c.severity() == "warning");
  CHECK(d.rule() == "self-wakenote");
  CHECK(d.severity().empty());
}

TEST_CASE("finding text: a stored template is interned only when it is one the splitter writes") {
  FindingWordings wordings;
  CHECK_FALSE(wordings.intern("r", "note", "", "at %s").has_value());
  CHECK_FALSE(wordings.intern("r", "note", "", "%d %d %d %d %d").has_value());
  const auto four = wordings.intern("r", "note", "", "%d %d %d %02d");
  REQUIRE(four.has_value());
  CHECK((*four)->shape.count == 4);
  CHECK(wordings.size() == 1);
  // The numbers a stored row gives must fit the shape, or the row is not shown.
  using Optional = std::array<std::optional<std::int64_t>, kMessageArguments>;
  CHECK_FALSE(fitted_arguments((*four)->shape, Optional{1, 2, 3, 100}).has_value());
  CHECK_FALSE(fitted_arguments((*four)->shape, Optional{1, 2, std::nullopt, 1}).has_value());
  const auto fitted = fitted_arguments((*four)->shape, Optional{1, 2, 3, 99});
  REQUIRE(fitted.has_value());
  FindingText t;
  t.wording = *four;
  t.arguments = *fitted;
  CHECK(t.message() == "1 2 3 99");
}
