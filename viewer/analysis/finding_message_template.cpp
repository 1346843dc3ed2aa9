// finding_message_template.cpp — splitting walks the sentence once; rendering
// walks the template once and checks each conversion before it uses it.
#include "viewer/analysis/finding_message_template.hpp"

namespace skein {
namespace {

constexpr std::size_t kMaxDigits = 18;  // below 2^63 whatever the digits

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::int64_t power_of_ten(std::size_t n) {
  std::int64_t p = 1;
  for (std::size_t i = 0; i < n; ++i) p *= 10;
  return p;
}

// The conversion at text[i], a '%' not followed by another: %d or %0Nd
// with N from 2 to 18. Its width (0 for %d) and the index just past it;
// nullopt for anything else.
struct Conversion {
  std::size_t width = 0;
  std::size_t end = 0;
};
std::optional<Conversion> conversion_at(std::string_view text, std::size_t i) {
  Conversion c;
  std::size_t k = i + 1;
  if (k < text.size() && text[k] == '0') {
    ++k;
    const std::size_t first = k;
    while (k < text.size() && is_digit(text[k]) && k - first < 3) c.width = c.width * 10 + (text[k++] - '0');
    if (k == first || c.width < 2 || c.width > kMaxDigits) return std::nullopt;
  }
  if (k >= text.size() || text[k] != 'd') return std::nullopt;
  c.end = k + 1;
  return c;
}

}  // namespace

MessageTemplate split_message(std::string_view message) {
  MessageTemplate out;
  out.text.reserve(message.size() + 8);
  std::size_t used = 0;
  for (std::size_t i = 0; i < message.size();) {
    const char c = message[i];
    if (c == '%') {
      out.text += "%%";
      ++i;
      continue;
    }
    if (!is_digit(c)) {
      out.text += c;
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < message.size() && is_digit(message[end])) ++end;
    const std::size_t digits = end - i;
    if (used == kMessageArguments || digits > kMaxDigits) {
      out.text.append(message.substr(i, digits));
    } else {
      std::int64_t value = 0;
      for (std::size_t k = i; k < end; ++k) value = value * 10 + (message[k] - '0');
      out.arguments[used++] = value;
      if (message[i] == '0' && digits > 1) out.text += "%0" + std::to_string(digits) + "d";
      else out.text += "%d";
    }
    i = end;
  }
  return out;
}

std::optional<MessageTemplateShape> message_template_shape(std::string_view text) {
  MessageTemplateShape shape;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '%') {
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) return std::nullopt;
    if (text[i + 1] == '%') {
      i += 2;
      continue;
    }
    const auto conversion = conversion_at(text, i);
    if (!conversion || shape.count == kMessageArguments) return std::nullopt;
    shape.widths[shape.count++] = static_cast<std::uint8_t>(conversion->width);
    i = conversion->end;
  }
  return shape;
}

bool message_arguments_fit(const MessageTemplateShape& shape,
                           const std::array<std::optional<std::int64_t>, kMessageArguments>& arguments) {
  for (std::size_t a = 0; a < shape.count; ++a) {
    if (!arguments[a] || *arguments[a] < 0) return false;
    if (shape.widths[a] > 0 && *arguments[a] >= power_of_ten(shape.widths[a])) return false;
  }
  return true;
}

std::optional<std::string> render_message_template(
    std::string_view text, const std::array<std::optional<std::int64_t>, kMessageArguments>& arguments) {
  std::string out;
  out.reserve(text.size() + 16);
  std::size_t used = 0;
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c != '%') {
      out += c;
      ++i;
      continue;
    }
    if (i + 1 >= text.size()) return std::nullopt;
    if (text[i + 1] == '%') {
      out += '%';
      i += 2;
      continue;
    }
    const auto conversion = conversion_at(text, i);
    if (!conversion) return std::nullopt;
    if (used == kMessageArguments || !arguments[used]) return std::nullopt;
    const std::int64_t value = *arguments[used++];
    const std::size_t width = conversion->width;
    if (value < 0 || (width > 0 && value >= power_of_ten(width))) return std::nullopt;
    const std::string digits = std::to_string(value);
    if (digits.size() < width) out.append(width - digits.size(), '0');
    out += digits;
    i = conversion->end;
  }
  return out;
}

}  // namespace skein
