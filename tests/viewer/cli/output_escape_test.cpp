// output_escape_test.cpp — the escaping layers of
// recorder/export/output_escape.hpp (terminal, JSON, XML, folded, shell) on every byte
// 0x00–0xFF alone and inside a label, on every C1 control, on invalid UTF-8
// (overlong forms, lone continuation bytes, truncated sequences, encoded
// surrogates, values past U+10FFFF) and on ordinary UTF-8 text. Each output
// is checked by a reader that is not the code under test: the strict
// decoder of tests/support/output_text_checks.hpp, QJsonDocument for JSON,
// QXmlStreamReader for XML, bash for shell words; the expected escapes come
// from the table in output_escape.hpp.
#include <QJsonArray>
#include <QJsonDocument>
#include <QString>
#include <QXmlStreamReader>
#include <catch2/catch.hpp>
#include <cstdio>

#include "tests/support/output_text_checks.hpp"
#include "tests/support/subprocess.hpp"
#include "recorder/export/folded_stacks_export.hpp"
#include "recorder/export/output_escape.hpp"

using skein::test::raw_control_in;

namespace {

std::string hex_byte(unsigned char c) {
  char s[8];
  std::snprintf(s, sizeof s, "\\x%02x", c);
  return s;
}

std::string json_of(std::string_view bytes) {
  std::string out;
  skein::append_json_string_contents(out, bytes);
  return out;
}

// The string a JSON string's contents parse to; nullopt when QJsonDocument
// refuses the document.
std::optional<QString> parse_json_string(const std::string& contents) {
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString("[\"" + contents + "\"]"), &error);
  if (error.error != QJsonParseError::NoError || !doc.isArray()) return std::nullopt;
  return doc.array().at(0).toString();
}

// The attribute and the text of `<r a="ATTRIBUTE">TEXT</r>`; nullopt when
// QXmlStreamReader finds the document not well-formed.
struct XmlParsed {
  QString attribute, text;
};
std::optional<XmlParsed> parse_xml(const std::string& attribute, const std::string& text) {
  QXmlStreamReader reader(QByteArray::fromStdString("<?xml version=\"1.0\" encoding=\"UTF-8\"?><r a=\"" + attribute +
                                                    "\">" + text + "</r>"));
  XmlParsed parsed;
  while (!reader.atEnd()) {
    reader.readNext();
    if (reader.isStartElement()) parsed.attribute = reader.attributes().value(QStringLiteral("a")).toString();
    if (reader.isCharacters()) parsed.text += reader.text().toString();
  }
  if (reader.hasError()) return std::nullopt;
  return parsed;
}

// The XML a writer that escapes markup the way QSvgGenerator does
// (QString::toHtmlEscaped) makes of xml_characters().
std::string svg_text_of(std::string_view bytes) {
  return QString::fromStdString(skein::xml_characters(bytes)).toHtmlEscaped().toStdString();
}

}  // namespace

TEST_CASE("hostile: the oracles refuse what the layers must never write") {
  // The checks below could not fail if the readers took anything.
  // QJsonDocument takes a raw control character inside a string, which JSON
  // forbids: raw_control_in() checks every JSON text for them.
  CHECK_FALSE(parse_json_string("\xff"));
  CHECK_FALSE(parse_json_string("a\"b"));
  CHECK_FALSE(parse_xml("", "\x01"));
  CHECK_FALSE(parse_xml("\x1b", ""));
  CHECK_FALSE(parse_xml("", "\xef\xbf\xbf"));  // U+FFFF
  CHECK_FALSE(parse_xml("", "a<b"));
  CHECK_FALSE(parse_xml("\"", ""));
  CHECK_FALSE(raw_control_in("\x1b").empty());
  CHECK_FALSE(raw_control_in("\xc2\x9b").empty());
  CHECK_FALSE(raw_control_in("\xed\xa0\x80").empty());
  CHECK(raw_control_in("a\nb", "\n") == "");
}

TEST_CASE("hostile: every byte alone and in a label through the terminal layer") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto c = static_cast<unsigned char>(b);
    const std::string alone(1, static_cast<char>(c));
    const bool printable = c >= 0x20 && c < 0x7f;
    const std::string expected = printable ? alone : hex_byte(c);
    INFO("byte " << b);
    CHECK(skein::terminal_text(alone) == expected);
    CHECK(skein::terminal_text("ab" + alone + "cd") == "ab" + expected + "cd");
    CHECK(raw_control_in(skein::terminal_text("ab" + alone + "cd")) == "");
  }
}

TEST_CASE("hostile: every byte alone and in a label through the JSON layer") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto c = static_cast<unsigned char>(b);
    const std::string alone(1, static_cast<char>(c));
    INFO("byte " << b);
    std::string expected = alone;
    if (c < 0x20 || c == 0x7f) {
      char u[8];
      std::snprintf(u, sizeof u, "\\u%04x", b);
      expected = u;
    } else if (c == '"' || c == '\\') {
      expected = "\\" + alone;
    } else if (c >= 0x80) {
      expected = "\xef\xbf\xbd";
    }
    CHECK(json_of(alone) == expected);
    const std::string in_label = json_of("ab" + alone + "cd");
    CHECK(in_label == "ab" + expected + "cd");
    // A JSON text holds no raw control character, and parses.
    CHECK(raw_control_in(in_label) == "");
    const auto parsed = parse_json_string(in_label);
    REQUIRE(parsed);
    // Every byte but a lone one past 0x7f keeps its value.
    const QString value = c < 0x80 ? QString::fromLatin1("ab") + QChar(c) + QString::fromLatin1("cd")
                                   : QStringLiteral("ab\uFFFDcd");
    CHECK(*parsed == value);
  }
}

TEST_CASE("hostile: every byte alone and in a label through the XML layer") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto c = static_cast<unsigned char>(b);
    const std::string alone(1, static_cast<char>(c));
    INFO("byte " << b);
    std::string expected = alone;
    if (c < 0x20 || c >= 0x7f) expected = hex_byte(c);
    else if (c == '&') expected = "&amp;";
    else if (c == '<') expected = "&lt;";
    else if (c == '>') expected = "&gt;";
    else if (c == '"') expected = "&quot;";
    else if (c == '\'') expected = "&apos;";
    CHECK(skein::xml_text(alone) == expected);
    const std::string label = "ab" + alone + "cd";
    const std::string escaped = skein::xml_text(label);
    CHECK(escaped == "ab" + expected + "cd");
    CHECK(raw_control_in(escaped) == "");
    // Well-formed as an attribute value and as text, and read back as the
    // visible form of the label.
    const auto parsed = parse_xml(escaped, escaped);
    REQUIRE(parsed);
    const QString shown = QString::fromStdString("ab" + (c < 0x20 || c >= 0x7f ? hex_byte(c) : alone) + "cd");
    CHECK(parsed->attribute == shown);
    CHECK(parsed->text == shown);
    // The characters alone, escaped as the SVG writer escapes them.
    CHECK(raw_control_in(skein::xml_characters(label)) == "");
    const auto svg = parse_xml("", svg_text_of(label));
    REQUIRE(svg);
    CHECK(svg->text == shown);
  }
}

TEST_CASE("hostile: every byte alone and in a label through the folded layer") {
  for (unsigned b = 0; b < 256; ++b) {
    const auto c = static_cast<unsigned char>(b);
    const std::string alone(1, static_cast<char>(c));
    INFO("byte " << b);
    std::string expected = alone;
    if (c < 0x20 || c == 0x7f) expected = " ";
    else if (c == ';') expected = ":";
    else if (c >= 0x80) expected = "\xef\xbf\xbd";
    CHECK(skein::folded_frame_name(alone) == expected);
    const std::string frame = skein::folded_frame_name("ab" + alone + "cd");
    CHECK(frame == "ab" + expected + "cd");
    CHECK(raw_control_in(frame) == "");
    CHECK(frame.find(';') == std::string::npos);
  }
  CHECK(skein::folded_frame_name("") == "(empty label)");
}

TEST_CASE("hostile: C1 controls and noncharacters are escaped by every layer") {
  for (unsigned cp = 0x80; cp <= 0x9f; ++cp) {
    const std::string c1{static_cast<char>(0xc0 | cp >> 6), static_cast<char>(0x80 | (cp & 0x3f))};
    char u[8];
    std::snprintf(u, sizeof u, "\\u%04x", cp);
    INFO("U+" << cp);
    CHECK(skein::terminal_text("a" + c1) == std::string("a") + u);
    CHECK(json_of("a" + c1) == std::string("a") + u);
    CHECK(skein::xml_text("a" + c1) == std::string("a") + u);
    CHECK(skein::folded_frame_name("a" + c1) == "a ");
    const auto parsed = parse_json_string(json_of(c1));
    REQUIRE(parsed);
    CHECK(*parsed == QString(QChar(static_cast<char16_t>(cp))));
  }
  // U+FFFE and U+FFFF are valid UTF-8 but not XML characters.
  CHECK(skein::terminal_text("\xef\xbf\xbe") == "\\ufffe");
  CHECK(skein::xml_text("\xef\xbf\xbf") == "\\uffff");
  CHECK(skein::folded_frame_name("\xef\xbf\xbf") == "\xef\xbf\xbd");
  CHECK(json_of("\xef\xbf\xbe") == "\xef\xbf\xbe");
  // The character before them, and NBSP after the C1 range, are text.
  CHECK(skein::xml_text("\xef\xbf\xbd\xc2\xa0") == "\xef\xbf\xbd\xc2\xa0");
}

TEST_CASE("hostile: invalid UTF-8 through every layer") {
  const std::vector<std::pair<const char*, std::string>> cases = {
      {"overlong '/' in two bytes", "\xc0\xaf"},
      {"overlong '/' in three bytes", "\xe0\x80\xaf"},
      {"overlong '/' in four bytes", "\xf0\x80\x80\xaf"},
      {"overlong NUL", "\xc0\x80"},
      {"lone continuation byte", "\x80"},
      {"two continuation bytes", "\xbf\x80"},
      {"truncated three-byte sequence", "\xe2\x82"},
      {"truncated four-byte sequence", "\xf0\x9f\x98"},
      {"truncated sequence before a valid one", "\xe2\x82\xe2\x82\xac"},
      {"high surrogate", "\xed\xa0\x80"},
      {"low surrogate", "\xed\xbf\xbf"},
      {"surrogate pair in CESU-8", "\xed\xa0\xbd\xed\xb8\x80"},
      {"past U+10FFFF", "\xf4\x90\x80\x80"},
      {"five-byte form", "\xf8\x88\x80\x80\x80"},
      {"bytes never in UTF-8", "\xfe\xff\xc1\xf5"},
  };
  for (const auto& [name, bytes] : cases) {
    INFO(name);
    const std::string label = "x" + bytes + "y";
    // The expected forms, byte by byte from the well-formedness table.
    std::string terminal = "x", replaced = skein::test::replace_ill_formed_bytes(label);
    for (std::size_t i = 0; i < bytes.size();) {
      char32_t cp = 0;
      const std::size_t n = skein::test::well_formed_sequence(bytes, i, cp);
      if (n == 0) {
        terminal += hex_byte(static_cast<unsigned char>(bytes[i]));
        ++i;
      } else {
        terminal += bytes.substr(i, n);
        i += n;
      }
    }
    terminal += "y";
    CHECK(skein::terminal_text(label) == terminal);
    CHECK(skein::xml_text(label) == terminal);
    CHECK(json_of(label) == replaced);
    CHECK(skein::folded_frame_name(label) == replaced);
    for (const std::string& out : {skein::terminal_text(label), json_of(label), skein::xml_text(label),
                                   skein::xml_characters(label), skein::folded_frame_name(label)})
      CHECK(raw_control_in(out) == "");
    const auto json = parse_json_string(json_of(label));
    REQUIRE(json);
    CHECK(*json == QString::fromStdString(replaced));
    const auto xml = parse_xml(skein::xml_text(label), skein::xml_text(label));
    REQUIRE(xml);
    CHECK(xml->text == QString::fromStdString(terminal));
  }
  // A valid sequence after a truncated one is kept whole.
  CHECK(skein::terminal_text("\xe2\x82\xe2\x82\xac") == "\\xe2\\x82\xe2\x82\xac");
}

TEST_CASE("hostile: ordinary UTF-8 text passes every layer unchanged") {
  const std::vector<std::string> texts = {
      "blkfront.poll",
      "Process data",
      "B.read 6 (sector 4096)",
      "na\xc3\xafve caf\xc3\xa9 \xe2\x80\x94 12 \xc2\xb5s",             // naïve café — 12 µs
      "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",                              // 日本語
      "emoji \xf0\x9f\x98\x80 and \xf0\x9d\x84\x9e",                       // 😀 𝄞
      "\xce\xa9mega \xe2\x88\x91 \xef\xbf\xbd \xf4\x8f\xbf\xbf",           // Ωmega ∑ U+FFFD U+10FFFF
      "C:\\path\\to\\file.ml",
  };
  for (const std::string& text : texts) {
    INFO(text);
    CHECK(skein::terminal_text(text) == text);
    CHECK(skein::xml_characters(text) == text);
    CHECK(skein::xml_text(text) == text);
    CHECK(skein::folded_frame_name(text) == text);
    if (text.find('\\') == std::string::npos) CHECK(json_of(text) == text);
    const auto json = parse_json_string(json_of(text));
    REQUIRE(json);
    CHECK(*json == QString::fromStdString(text));
  }
  // Text with the characters a layer escapes reads back as it was.
  const std::string markup = "a<b> & \"c\" 'd' e;f";
  const auto xml = parse_xml(skein::xml_text(markup), skein::xml_text(markup));
  REQUIRE(xml);
  CHECK(xml->attribute == QString::fromStdString(markup));
  CHECK(xml->text == QString::fromStdString(markup));
  CHECK(skein::terminal_text(markup) == markup);
  CHECK(skein::folded_frame_name(markup) == "a<b> & \"c\" 'd' e:f");
  const auto json = parse_json_string(json_of(markup + "\\"));
  REQUIRE(json);
  CHECK(*json == QString::fromStdString(markup + "\\"));
}

// A shell word is read back by bash as exactly the bytes it was made from,
// for every byte but NUL (which no path or argument holds) alone and
// inside a word, for quotes, backslashes and expansions, for C1 controls,
// noncharacters and invalid UTF-8; it holds no control byte and is valid
// UTF-8; a word of plain characters is left as it is.
TEST_CASE("hostile: every byte alone and in a word through the shell layer, read back by bash") {
  std::vector<std::string> words;
  for (unsigned b = 1; b < 256; ++b) {
    words.emplace_back(1, static_cast<char>(b));
    words.push_back("ab" + std::string(1, static_cast<char>(b)) + "cd");
  }
  for (const char* w : {"", "-dash", "my trace.sexp", "it's", "'", "\\", "\\'", "$HOME", "`id`", "$(id)", "a\nb",
                        "\xc2\x9b[31m", "\xef\xbf\xbe\xef\xbf\xbf", "\xed\xa0\x80", "\xc0\xaf", "caf\xc3\xa9",
                        "\xe2\x82\xac \xff", "~user", "*.sexp", "a;b|c&d", "!x"})
    words.emplace_back(w);
  std::string script = "printf '%s\\0'";
  for (const std::string& w : words) {
    const std::string quoted = skein::shell_word(w);
    INFO(hex_byte(w.empty() ? 0 : static_cast<unsigned char>(w[0])) << " " << quoted);
    CHECK(raw_control_in(quoted) == "");
    CHECK(skein::test::decode_utf8(quoted));
    script += " " + quoted;
  }
  CHECK(skein::shell_word("t.sexp") == "t.sexp");
  CHECK(skein::shell_word("dir/-a_b,c=1@x%y+z:w") == "dir/-a_b,c=1@x%y+z:w");
  CHECK(skein::shell_word("my trace") == "'my trace'");
  CHECK(skein::shell_word("it's") == "'it'\\''s'");
  CHECK(skein::shell_word("a\x1b") == "$'a\\x1b'");
  const auto r = skein::test::run_process({"/bin/bash", "-c", script});
  REQUIRE(r.exit_code == 0);
  std::vector<std::string> read_back;
  std::size_t at = 0;
  for (std::size_t end; (end = r.out.find('\0', at)) != std::string::npos; at = end + 1)
    read_back.push_back(r.out.substr(at, end - at));
  REQUIRE(read_back.size() == words.size());
  for (std::size_t i = 0; i < words.size(); ++i) {
    INFO(i << " " << skein::shell_word(words[i]));
    CHECK(read_back[i] == words[i]);
  }
}
