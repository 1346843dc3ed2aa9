// output_escape.hpp — trace text made safe for each kind of output: the one
// place that decides how labels, process names, sites, counter names and
// messages (byte strings from a trace or a database, any bytes at all)
// reach a terminal, a JSON document, an SVG/XML file or a folded-stacks
// line. Every writer of trace text goes through one of these functions.
//
// A byte string is read as UTF-8. "Invalid" bytes are those that do not
// belong to a valid sequence (recorder/format/sexp_syntax.hpp: overlong forms,
// encoded surrogates, values past U+10FFFF, lone continuation bytes,
// truncated sequences); each is handled alone. "Controls" are C0
// (0x00–0x1F), DEL (0x7F) and C1 (U+0080–U+009F, two bytes in UTF-8).
//
//   output    controls            invalid bytes   also
//   terminal  \xHH, C1 as \u00HH  \xHH            U+FFFE, U+FFFF as \uHHHH
//   JSON      \u00HH              U+FFFD          " and \ escaped
//   XML       \xHH, C1 as \u00HH  \xHH            U+FFFE, U+FFFF as \uHHHH;
//                                                 & < > " ' as entities
//   folded    a space             U+FFFD          ';' to ':'; U+FFFE, U+FFFF
//                                                 to U+FFFD; "" named
//   shell     \xHH in $'...'      \xHH in $'...'  U+FFFE, U+FFFF as \xHH bytes;
//                                                 quoted only when needed
//
// Invariants of every result: valid UTF-8; no byte below 0x20, no DEL and
// no C1 control (so nothing in it is a terminal command); text that is
// printable UTF-8 with none of the characters a layer must escape comes
// out unchanged (a shell word: when it needs no quotes). The terminal and
// XML forms are for people: the escapes are visible and name the byte (a
// backslash is kept as it is, so they are for reading, not for parsing
// back). JSON keeps the value of valid text exactly; a shell word, every
// byte. The XML forms hold only characters XML 1.0 allows, none of them
// discouraged.
#pragma once

#include <string>
#include <string_view>

namespace skein {

// Terminal: for the text `skein` prints (check, info, summary, lint, why).
[[nodiscard]] std::string terminal_text(std::string_view bytes);

// JSON: `bytes` as the contents of a JSON string (without the quotes),
// appended to `out`.
void append_json_string_contents(std::string& out, std::string_view bytes);

// XML: `bytes` as XML character data or an attribute value, markup escaped.
[[nodiscard]] std::string xml_text(std::string_view bytes);
// The same characters with the markup left alone, for a writer that escapes
// markup itself (QSvgGenerator, behind the timeline painter).
[[nodiscard]] std::string xml_characters(std::string_view bytes);

// Shell: `bytes` (a path the user named) as one word that bash, zsh and
// ksh read back as exactly those bytes (so does any POSIX shell but for
// $'...', which POSIX added in 2024), for commands printed to be pasted (`skein lint`'s "open:" lines): as it is when it holds only
// characters no shell treats specially; else in single quotes when it is
// printable UTF-8; else in ANSI-C quotes ($'...'), each control, invalid
// or noncharacter byte as \xHH. Like every form here, no control byte
// reaches the output.
[[nodiscard]] std::string shell_word(std::string_view bytes);

// Folded stacks: a label as one frame of a `root;child;leaf COUNT` line, so
// that it cannot split a frame, end a line or break the SVG that
// flamegraph.pl and inferno draw from it. An empty label is "(empty label)".
[[nodiscard]] std::string folded_frame_name(std::string_view label);

}  // namespace skein
