// hostile_output_test.cpp — trace text that tries to reach a terminal, a
// JSON reader or an XML parser raw, through every `skein` command that
// writes it; and the folded export of a spawn chain 300,000 threads deep.
//
// The hostile trace's process name, labels, site, counter name and failure
// message hold ESC ] 0 ; title BEL (a terminal's set-title command), every
// control byte but NUL, a C1 control, a noncharacter and invalid UTF-8.
// Terminal outputs (check, info, summary, lint, why, render's message) may
// hold no byte below 0x20 but '\n' and no DEL, C1 control or invalid UTF-8;
// the trace's text must still be there, in the visible form of
// recorder/export/output_escape.hpp. JSON parses (QJsonDocument) and keeps
// the labels' values, the SVG is well-formed (QXmlStreamReader), the folded
// lines are exact, and the sexp export is a valid trace that exports to
// itself.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QXmlStreamReader>
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>

#include "tests/support/output_text_checks.hpp"
#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"
#include "recorder/export/folded_stacks_export.hpp"

using skein::test::raw_control_in;
using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;

const std::string kTitle = "\x1b]0;pwned\x07";  // ESC ] 0 ; pwned BEL: sets the terminal's title
const std::string kControls = [] {
  std::string s;
  for (char c = 1; c < 0x20; ++c) s += c;
  return s + "\x7f";
}();
// Invalid UTF-8 (0xff, an overlong '/', a lone continuation byte, a
// truncated sequence, an encoded surrogate), then C1 CSI and U+FFFE.
const std::string kBad = "\xff|\xc0\xaf|\x80|\xe2\x82|\xed\xa0\x80|\xc2\x9b|\xef\xbf\xbe";

// The visible forms (output_escape.hpp's table) of the three.
const std::string kTitleShown = "\\x1b]0;pwned\\x07";
const std::string kControlsShown =
    "\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\x09\\x0a\\x0b\\x0c\\x0d\\x0e\\x0f\\x10\\x11\\x12\\x13\\x14\\x15"
    "\\x16\\x17\\x18\\x19\\x1a\\x1b\\x1c\\x1d\\x1e\\x1f\\x7f";
const std::string kBadShown = "\\xff|\\xc0\\xaf|\\x80|\\xe2\\x82|\\xed\\xa0\\x80|\\u009b|\\ufffe";

// A trace string holding `bytes`, every byte outside printable ASCII as \xHH.
std::string quoted(const std::string& bytes) {
  std::string out = "\"";
  for (const char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    }
  }
  return out + "\"";
}

// Threads 0 "main" + title (never runs), 1 "ctl;" + controls (spawned by 0,
// runs 4 µs), 2 "bad" + kBad (spawned by 1, runs 2 µs, fails with a hostile
// message nobody reads), 3 title + "x\ny;z" (spawned by 0, runs 3 µs); 1
// and 3 are pending at the end, created at a hostile site.
std::string hostile_trace() {
  return "(skein-trace 1 (process " + quoted(kTitle + "proc" + kControls + kBad) + ") (pid 7))\n" +
         "(site 0 " + quoted("file" + kTitle + ".c") + " 3 " + quoted("fn" + kControls) + ")\n" +
         "(label 0 0 " + quoted("main" + kTitle) + ")\n" +
         "(spawn 0 1 0 task 0)\n" +
         "(label 0 1 " + quoted("ctl;" + kControls) + ")\n" +
         "(spawn 0 2 1 task 0)\n" +
         "(label 0 2 " + quoted("bad" + kBad) + ")\n" +
         "(spawn 0 3 0 task 0)\n" +
         "(label 0 3 " + quoted(kTitle + "x\ny;z") + ")\n" +
         "(counter 0 " + quoted("ctr" + kTitle + kBad) + " 1)\n" +
         "(switch 0 -1)\n"
         "(switch 1000 1)\n"
         "(switch 5000 -1)\n"
         "(switch 6000 2)\n"
         "(resolve 7000 2 2 fail " + quoted("boom" + kTitle + kBad) + ")\n" +
         "(switch 8000 -1)\n"
         "(switch 10000 3)\n"
         "(switch 13000 -1)\n"
         "(end 20000)\n";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Runs `skein ARGS...` and checks that neither output holds a raw control.
skein::test::ProcessResult run_terminal(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kSkein};
  argv.insert(argv.end(), args.begin(), args.end());
  const auto r = run_process(argv);
  INFO("skein " << args.front() << "\nstdout:\n" << r.out << "\nstderr:\n" << r.err);
  CHECK(r.out.find('\x1b') == std::string::npos);
  CHECK(raw_control_in(r.out, "\n") == "");
  CHECK(raw_control_in(r.err, "\n") == "");
  return r;
}

}  // namespace

TEST_CASE("hostile: control bytes in labels reach no terminal output raw") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, hostile_trace());

  const auto check = run_terminal({"check", trace});
  CHECK(check.exit_code == 0);
  CHECK_THAT(check.out, Catch::Contains("process \"" + kTitleShown + "proc" + kControlsShown + kBadShown + "\""));

  const auto info = run_terminal({"info", trace});
  CHECK(info.exit_code == 0);
  CHECK_THAT(info.out, Catch::Contains("  process      \"" + kTitleShown + "proc" + kControlsShown + kBadShown + "\""));

  const auto by_label = run_terminal({"summary", trace});
  CHECK(by_label.exit_code == 0);
  CHECK_THAT(by_label.out, Catch::Contains("  ctl;" + kControlsShown + "\n"));
  CHECK_THAT(by_label.out, Catch::Contains("  bad" + kBadShown + "\n"));
  CHECK_THAT(by_label.out, Catch::Contains("  " + kTitleShown + "x\\x0ay;z\n"));
  const auto by_site = run_terminal({"summary", trace, "--by", "site"});
  CHECK(by_site.exit_code == 0);
  CHECK_THAT(by_site.out, Catch::Contains("  fn" + kControlsShown + " (file" + kTitleShown + ".c:3)\n"));
  const auto longer = run_terminal({"summary", trace, "--duration", "0"});
  CHECK(longer.exit_code == 0);
  CHECK_THAT(longer.out, Catch::Contains("  task  ctl;" + kControlsShown + "\n"));
  CHECK_THAT(longer.out, Catch::Contains("  -  main" + kTitleShown + "\n"));

  const auto lint = run_terminal({"lint", trace});
  CHECK(lint.exit_code == 1);
  CHECK_THAT(lint.out, Catch::Contains("thread 2 \"bad" + kBadShown + "\""));
  CHECK_THAT(lint.out, Catch::Contains("boom" + kTitleShown + kBadShown));
  CHECK_THAT(lint.out, Catch::Contains("  fn" + kControlsShown + " (file" + kTitleShown + ".c:3)"));

  const auto why = run_terminal({"why", trace, "--thread", "3"});
  CHECK(why.exit_code == 0);
  CHECK_THAT(why.out, Catch::StartsWith("why thread 3 \"" + kTitleShown + "x\\x0ay;z\""));
  for (const char* thread : {"1", "2"}) {
    const auto other = run_terminal({"why", trace, "--thread", thread});
    CHECK((other.exit_code == 0 || other.exit_code == 1));
  }
  const auto finding = run_terminal({"why", trace, "--finding", "1"});
  CHECK((finding.exit_code == 0 || finding.exit_code == 1));
  CHECK_THAT(finding.out, Catch::Contains("bad" + kBadShown));

  const auto render = run_terminal({"render", trace, "-o", dir.file("t.png")});
  CHECK(render.exit_code == 0);
}

TEST_CASE("hostile: control bytes in diagnostics reach no terminal raw") {
  TempDir dir;
  const std::string trace = dir.file("broken.sexp");
  // A raw ESC and BEL after a backslash: an unknown escape, quoted in the
  // error message; a raw control byte inside a string.
  skein::test::write_file(trace, "(skein-trace 1)\n(label 0 0 \"\\\x1b]0;pwned\x07\")\n(label 0 0 \"a\x1b" "b\")\n");
  const auto check = run_terminal({"check", trace});
  CHECK(check.exit_code == 1);
  CHECK_THAT(check.err, Catch::Contains("broken.sexp:2:"));
  const auto info = run_terminal({"info", trace});
  CHECK(info.exit_code == 1);
}

TEST_CASE("hostile: control bytes in labels keep JSON valid") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, hostile_trace());
  const QString ctl = QString::fromStdString("ctl;" + kControls);

  const auto chrome = run_process({kSkein, "export", trace, "--format", "chrome"});
  INFO(chrome.err);
  REQUIRE(chrome.exit_code == 0);
  CHECK(raw_control_in(chrome.out, "\n") == "");
  QJsonParseError error{};
  const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(chrome.out), &error);
  INFO(error.errorString().toStdString());
  REQUIRE(error.error == QJsonParseError::NoError);
  QStringList thread_names;
  QString process_name;
  for (const auto& value : doc.object().value("traceEvents").toArray()) {
    const QJsonObject e = value.toObject();
    if (e.value("ph").toString() != "M") continue;
    const QString name = e.value("args").toObject().value("name").toString();
    if (e.value("name").toString() == "thread_name") thread_names << name;
    if (e.value("name").toString() == "process_name") process_name = name;
  }
  // Valid UTF-8 keeps its value, controls included; invalid bytes read as U+FFFD.
  CHECK(thread_names.contains(ctl));
  CHECK(thread_names.contains(QString::fromStdString(kTitle + "x\ny;z")));
  CHECK(thread_names.contains(QString::fromStdString(skein::test::replace_ill_formed_bytes("bad" + kBad))));
  CHECK(process_name == QString::fromStdString(skein::test::replace_ill_formed_bytes(kTitle + "proc" + kControls + kBad)));

  const auto lint = run_process({kSkein, "lint", trace, "--format", "json", "--no-store"});
  INFO(lint.err);
  CHECK(lint.exit_code == 1);
  CHECK(raw_control_in(lint.out, "\n") == "");
  const QJsonDocument findings = QJsonDocument::fromJson(QByteArray::fromStdString(lint.out), &error);
  REQUIRE(error.error == QJsonParseError::NoError);
  QStringList messages, groups;
  int sited = 0;
  for (const auto& value : findings.object().value("findings").toArray()) {
    const QJsonObject f = value.toObject();
    messages << f.value("message").toString();
    groups << f.value("group").toString();
    // Threads 1 and 3 were created at the hostile site; 1 is labelled "ctl;" + controls.
    const QJsonObject site = f.value("site").toObject();
    if (f.value("thread").toInt() == 1 || f.value("thread").toInt() == 3) {
      ++sited;
      CHECK(site.value("function").toString() == QString::fromStdString("fn" + kControls));
      CHECK(site.value("file").toString() == QString::fromStdString("file" + kTitle + ".c"));
      CHECK(site.value("line").toInt() == 3);
    }
    if (f.value("thread").toInt() == 1) CHECK(f.value("label").toString() == ctl);
  }
  CHECK(sited == 2);
  CHECK(messages.contains(QString::fromStdString(skein::test::replace_ill_formed_bytes(
      "thread 2 failed (boom" + kTitle + kBad + ") and no other thread read its outcome"))));
  const QString site = QString::fromStdString("fn" + kControls + " (file" + kTitle + ".c:3): ");
  CHECK(std::count_if(groups.begin(), groups.end(), [&](const QString& g) { return g.startsWith(site); }) == 2);
  // Ordinary text is laid out as QJsonDocument lays it out.
  const std::string plain = dir.file("plain.sexp");
  skein::test::write_file(plain,
                          "(skein-trace 1)\n(site 0 \"src/r.c\" 12 \"read_loop\")\n(spawn 0 1 0 task 0)\n"
                          "(label 0 1 \"r\xc3\xa9" "ader\")\n(switch 10 1)\n"
                          "(resolve 20 1 1 fail \"Not_found\")\n(switch 30 -1)\n(end 40)\n");
  const auto ordinary = run_process({kSkein, "lint", plain, "--format", "json", "--no-store"});
  const QJsonDocument reparsed = QJsonDocument::fromJson(QByteArray::fromStdString(ordinary.out), &error);
  REQUIRE(error.error == QJsonParseError::NoError);
  CHECK(reparsed.toJson(QJsonDocument::Indented).toStdString() == ordinary.out);
}

TEST_CASE("hostile: control bytes in labels keep the SVG well-formed") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, hostile_trace());
  const auto r = run_process({kSkein, "render", trace, "-o", dir.file("t.svg"), "--width", "1200"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string svg = read_file(dir.file("t.svg"));
  CHECK(raw_control_in(svg, "\n\t") == "");
  QXmlStreamReader reader(QByteArray::fromStdString(svg));
  QString text;
  while (!reader.atEnd()) {
    reader.readNext();
    if (reader.isCharacters()) text += reader.text();
  }
  INFO(reader.errorString().toStdString());
  CHECK_FALSE(reader.hasError());
  // The counter's name is drawn whole, in its visible form.
  CHECK(text.contains(QString::fromStdString("ctr" + kTitleShown + kBadShown)));
}

TEST_CASE("hostile: control bytes in labels make exact folded lines") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, hostile_trace());
  const auto r = run_process({kSkein, "export", trace, "--format", "folded"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(raw_control_in(r.out, "\n") == "");
  // Controls as spaces, ';' as ':', each invalid byte, the C1 control and
  // U+FFFE by the table of output_escape.hpp.
  const std::string main = "main ]0:pwned ";
  const std::string ctl = "ctl:" + std::string(32, ' ');
  const std::string r1 = "\xef\xbf\xbd", r2 = r1 + r1, r3 = r2 + r1;
  const std::string bad = "bad" + r1 + "|" + r2 + "|" + r1 + "|" + r2 + "|" + r3 + "|" + " " + "|" + r1;
  CHECK(r.out == main + "; ]0:pwned x y:z 3\n" + main + ";" + ctl + " 4\n" + main + ";" + ctl + ";" + bad + " 2\n");
}

TEST_CASE("hostile: the sexp export of hostile text is a valid trace that exports to itself") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, hostile_trace());
  const auto first = run_process({kSkein, "export", trace, "--format", "sexp", "-o", dir.file("re.sexp")});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  const std::string exported = read_file(dir.file("re.sexp"));
  CHECK(raw_control_in(exported, "\n") == "");
  CHECK_THAT(exported, Catch::Contains("(label 0 1 \"ctl;\\x01\\x02\\x03\\x04\\x05\\x06\\x07\\x08\\t\\n\\x0b\\x0c\\r"
                                       "\\x0e\\x0f\\x10\\x11\\x12\\x13\\x14\\x15\\x16\\x17\\x18\\x19\\x1a\\x1b\\x1c"
                                       "\\x1d\\x1e\\x1f\\x7f\")\n"));
  CHECK(run_process({kSkein, "check", dir.file("re.sexp")}).exit_code == 0);
  const auto second = run_process({kSkein, "export", dir.file("re.sexp"), "--format", "sexp"});
  REQUIRE(second.exit_code == 0);
  CHECK(second.out == exported);
}

TEST_CASE("hostile: folded stacks deeper than the cap are cut under a count, and merged when alike") {
  using skein::StoredThread;
  constexpr std::size_t kCap = skein::kFoldedMaxFrames;
  // Two chains of kCap + 3 threads, under roots "a" and "b", every thread
  // labelled "t<depth>" and running 1 µs.
  std::vector<StoredThread> threads;
  for (const char* root : {"a", "b"}) {
    for (std::size_t depth = 1; depth <= kCap + 3; ++depth) {
      StoredThread t;
      t.id = static_cast<skein::ThreadId>(threads.size() + 1);
      if (depth > 1) t.parent = t.id - 1;
      t.label = depth == 1 ? std::string(root) : "t" + std::to_string(depth);
      t.run_time = 1000;
      threads.push_back(t);
    }
  }
  std::reverse(threads.begin(), threads.end());  // deepest first: the walk needs no order
  const auto stacks = skein::folded_stacks(threads);
  // Expected: per root, the full stacks of depth 1..kCap, in byte order of
  // their text (each is a prefix of the next); then the cut ones of depth
  // kCap+1..kCap+3, which print alike for "a" and "b" and are one line each,
  // at their place under "a", with both run times.
  const auto frames_of = [](const std::string& root, std::size_t from, std::size_t to) {
    std::string s;
    for (std::size_t d = from; d <= to; ++d) s += (s.empty() ? "" : ";") + (d == 1 ? root : "t" + std::to_string(d));
    return s;
  };
  std::vector<std::pair<std::string, skein::TimeNs>> expected;
  for (const char* root_name : {"a", "b"}) {
    const std::string root = root_name;
    for (std::size_t depth = 1; depth <= kCap + 3; ++depth) {
      if (depth <= kCap) {
        expected.emplace_back(frames_of(root, 1, depth), 1000);
      } else if (root == "a") {
        const std::size_t cut = depth - kCap;
        expected.emplace_back("[... " + std::to_string(cut) + (cut == 1 ? " frame];" : " frames];") +
                                  frames_of(root, cut + 1, depth),
                              2000);
      }
    }
  }
  REQUIRE(stacks.size() == expected.size());
  for (std::size_t i = 0; i < stacks.size(); ++i) {
    INFO("line " << i);
    CHECK(stacks[i].frames == expected[i].first);
    CHECK(stacks[i].run_time == expected[i].second);
  }
  // The lines are in byte order of the full stacks: within each root they
  // are, and every "a" line comes before every "b" line.
  CHECK(stacks[kCap].frames.starts_with("[... 1 frame];t2;t3;"));
  CHECK(stacks[kCap + 3].frames == "b");
}

TEST_CASE("hostile: folded export of a 300,000-deep spawn chain") {
  // A chain of 300,000 threads, each spawned by the one before and labelled
  // "f"; the threads at every hundredth depth run 1 µs. Full stacks would
  // be 4.5 * 10^10 frames; cut, every line has at most kFoldedMaxFrames + 1.
  constexpr std::size_t kDepth = 300'000;
  TempDir dir;
  const std::string trace = dir.file("chain.sexp");
  {
    std::string text = "(skein-trace 1)\n(label 0 0 \"f\")\n";
    for (std::size_t i = 1; i < kDepth; ++i)
      text += "(spawn 0 " + std::to_string(i) + " " + std::to_string(i - 1) + " task)\n(label 0 " +
              std::to_string(i) + " \"f\")\n";
    text += "(switch 0 -1)\n";
    std::int64_t t = 0;
    for (std::size_t depth = 100; depth <= kDepth; depth += 100) {
      text += "(switch " + std::to_string(t += 1000) + " " + std::to_string(depth - 1) + ")\n";
      text += "(switch " + std::to_string(t += 1000) + " -1)\n";
    }
    text += "(end " + std::to_string(t + 1000) + ")\n";
    skein::test::write_file(trace, text);
  }
  const std::string db = dir.file("chain.db");
  const auto imported = run_process({kSkein, "import", trace, "-o", db});
  INFO(imported.err);
  REQUIRE(imported.exit_code == 0);

  // The export runs under a 1 GiB address-space limit (AddressSanitizer
  // reserves terabytes of address space: there it runs unlimited).
#if defined(__SANITIZE_ADDRESS__)
  const std::string limit;
#else
  const std::string limit = "ulimit -v 1048576; ";
#endif
  const std::string out = dir.file("chain.folded");
  const auto exported =
      run_process({"/bin/sh", "-c", limit + "exec \"$0\" export \"$1\" --format folded -o \"$2\"", kSkein, db, out});
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  std::string expected;
  const auto frames = [](std::size_t n) {
    std::string s = "f";
    for (std::size_t i = 1; i < n; ++i) s += ";f";
    return s;
  };
  const std::string cut_frames = frames(skein::kFoldedMaxFrames);
  for (std::size_t depth = 100; depth <= kDepth; depth += 100) {
    if (depth <= skein::kFoldedMaxFrames) expected += frames(depth) + " 1\n";
    else expected += "[... " + std::to_string(depth - skein::kFoldedMaxFrames) + " frames];" + cut_frames + " 1\n";
  }
  const std::string folded = read_file(out);
  CHECK(folded.size() == expected.size());
  CHECK(folded == expected);
}
