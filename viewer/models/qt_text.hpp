// qt_text.hpp — text from the viewer's core, which holds UTF-8 bytes
// (std::string, or a std::string_view into a shared finding wording or a
// rule's name), as the QString the models and widgets show. The bytes are
// decoded as UTF-8, as QString::fromStdString does; invalid sequences
// become U+FFFD, never a crash.
#pragma once

#include <QString>
#include <string_view>

namespace skein {

[[nodiscard]] inline QString qt_text(std::string_view utf8) {
  return QString::fromUtf8(utf8.data(), static_cast<qsizetype>(utf8.size()));
}

}  // namespace skein
