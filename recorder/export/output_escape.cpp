// output_escape.cpp — one scanner splits the bytes into pieces of the
// header table's classes (plain, control, noncharacter, invalid), using
// sexp_syntax's UTF-8 rules and emitting runs of printable ASCII as a single
// piece; each layer is a callback that says what to write for each class.
// JSON passes noncharacters through unchanged; xml_characters is the
// terminal form, whose escapes hold no markup characters.
#include "recorder/export/output_escape.hpp"

#include "recorder/format/sexp_syntax.hpp"

namespace skein {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

enum class Piece {
  plain,        // printable ASCII, or a valid sequence that is neither of the next two
  control,      // C0 or DEL (one byte), or C1 (two bytes)
  noncharacter,  // U+FFFE or U+FFFF (three bytes)
  invalid,      // one byte that is not part of a valid sequence
};

// Calls emit(piece, bytes) for each piece of `bytes`, in order.
template <typename Emit>
void scan(std::string_view bytes, Emit&& emit) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      // Runs of printable ASCII go out in one piece.
      std::size_t j = i;
      while (j < bytes.size() && static_cast<unsigned char>(bytes[j]) >= 0x20 &&
             static_cast<unsigned char>(bytes[j]) < 0x7f)
        ++j;
      if (j > i) {
        emit(Piece::plain, bytes.substr(i, j - i));
        i = j;
      } else {
        emit(Piece::control, bytes.substr(i, 1));
        ++i;
      }
      continue;
    }
    const std::size_t n = sexp::utf8_sequence_length(bytes.substr(i));
    if (n == 0) {
      emit(Piece::invalid, bytes.substr(i, 1));
      ++i;
      continue;
    }
    const std::string_view sequence = bytes.substr(i, n);
    const auto b1 = static_cast<unsigned char>(sequence[1]);
    if (n == 2 && c == 0xc2 && b1 < 0xa0) emit(Piece::control, sequence);
    else if (n == 3 && c == 0xef && b1 == 0xbf && static_cast<unsigned char>(sequence[2]) >= 0xbe)
      emit(Piece::noncharacter, sequence);
    else emit(Piece::plain, sequence);
    i += n;
  }
}

// The code point of a control or noncharacter piece.
unsigned code_point(std::string_view piece) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned>(static_cast<unsigned char>(piece[k])); };
  if (piece.size() == 1) return byte(0);
  if (piece.size() == 2) return (byte(0) & 0x1f) << 6 | (byte(1) & 0x3f);
  return (byte(0) & 0x0f) << 12 | (byte(1) & 0x3f) << 6 | (byte(2) & 0x3f);
}

void append_hex_byte(std::string& out, unsigned char c) {
  out += "\\x";
  out += kHex[c >> 4];
  out += kHex[c & 15];
}

void append_hex_code_point(std::string& out, unsigned cp) {
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(cp >> shift) & 15];
}

// The visible form shared by the terminal and XML: \xHH for a byte, \uHHHH
// for a character that is more than one byte.
void append_visible(std::string& out, Piece piece, std::string_view bytes) {
  switch (piece) {
    case Piece::plain: out.append(bytes); break;
    case Piece::control:
    case Piece::noncharacter:
      if (bytes.size() == 1) append_hex_byte(out, static_cast<unsigned char>(bytes[0]));
      else append_hex_code_point(out, code_point(bytes));
      break;
    case Piece::invalid: append_hex_byte(out, static_cast<unsigned char>(bytes[0])); break;
  }
}

}  // namespace

std::string terminal_text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  scan(bytes, [&](Piece piece, std::string_view b) { append_visible(out, piece, b); });
  return out;
}

void append_json_string_contents(std::string& out, std::string_view bytes) {
  scan(bytes, [&](Piece piece, std::string_view b) {
    switch (piece) {
      case Piece::plain:
        // '"' and '\' are the only plain bytes JSON escapes.
        for (std::size_t at = 0;;) {
          const std::size_t quote = b.find_first_of("\"\\", at);
          out.append(b.substr(at, quote - at));
          if (quote == std::string_view::npos) break;
          out += '\\';
          out += b[quote];
          at = quote + 1;
        }
        break;
      case Piece::control: {
        const unsigned cp = code_point(b);
        out += "\\u00";
        out += kHex[cp >> 4];
        out += kHex[cp & 15];
        break;
      }
      case Piece::noncharacter: out.append(b); break;  // valid JSON, and not a control
      case Piece::invalid: out.append(kReplacement); break;
    }
  });
}

std::string xml_characters(std::string_view bytes) {
  return terminal_text(bytes);
}

std::string xml_text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  scan(bytes, [&](Piece piece, std::string_view b) {
    if (piece != Piece::plain) {
      append_visible(out, piece, b);
      return;
    }
    for (const char c : b) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default: out += c;
      }
    }
  });
  return out;
}

std::string folded_frame_name(std::string_view label) {
  if (label.empty()) return "(empty label)";
  std::string out;
  out.reserve(label.size());
  scan(label, [&](Piece piece, std::string_view b) {
    switch (piece) {
      case Piece::plain:
        for (const char c : b) out += c == ';' ? ':' : c;
        break;
      case Piece::control: out += ' '; break;
      case Piece::noncharacter:
      case Piece::invalid: out.append(kReplacement); break;
    }
  });
  return out;
}

std::string shell_word(std::string_view bytes) {
  constexpr std::string_view kBare =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_";
  if (!bytes.empty() && bytes.find_first_not_of(kBare) == std::string_view::npos) return std::string(bytes);
  bool printable = true;
  scan(bytes, [&](Piece piece, std::string_view) { printable = printable && piece == Piece::plain; });
  if (printable) {
    // Single quotes keep every byte; a quote is closed, escaped, reopened.
    std::string out = "'";
    for (const char c : bytes) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  // ANSI-C quoting: the bytes a terminal would act on as \xHH, which the
  // shell turns back into those bytes (at most two hex digits follow \x).
  std::string out = "$'";
  scan(bytes, [&](Piece piece, std::string_view piece_bytes) {
    if (piece != Piece::plain) {
      for (const char c : piece_bytes) append_hex_byte(out, static_cast<unsigned char>(c));
      return;
    }
    for (const char c : piece_bytes) {
      if (c == '\'' || c == '\\') out += '\\';
      out += c;
    }
  });
  return out + "'";
}

}  // namespace skein
