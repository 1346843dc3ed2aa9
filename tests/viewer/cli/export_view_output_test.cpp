// export_view_output_test.cpp — where `skein-view --export-view FILE`
// writes, the same as every `-o` (recorder/output/output_file.hpp,
// viewer/render/timeline_image.hpp): never over the trace shown or the
// database it is read from, by any name; and atomically, so that a full
// disk (RLIMIT_FSIZE in the child) is an error and leaves the old file as
// it was, in SVG as in PNG. The `skein` commands' side is
// output_path_command_test.cpp.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "tests/support/store_query.hpp"
#include "tests/support/subprocess.hpp"

using skein::test::run_process;
using skein::test::TempDir;

namespace {

const std::string kSkein = SKEIN_CLI_PATH;
const std::string kView = SKEIN_VIEW_PATH;
const std::vector<std::string> kOffscreen = {
    "DISPLAY=", "WAYLAND_DISPLAY=", "QT_QPA_PLATFORM=offscreen"};

const std::string kTrace =
    "(skein-trace 1 (process \"t\") (pid 1))\n"
    "(spawn 100 1 0 task)\n"
    "(label 100 1 \"worker\")\n"
    "(resolve 2100 1 -1 ok)\n"
    "(end 1500000)\n";

std::string read_all(const std::string& path) {
  std::string out;
  const int fd = open(path.c_str(), O_RDONLY);
  char buf[4096];
  for (ssize_t n; fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  if (fd >= 0) close(fd);
  return out;
}

bool has_temporaries(const TempDir& dir) {
  for (const std::string& e : dir.entries())
    if (e.find(".tmp-") != std::string::npos) return true;
  return false;
}

// Files past `bytes` bytes fail to grow (EFBIG; SIGXFSZ ignored), as on a
// full disk.
std::function<void()> disk_full_after(rlim_t bytes) {
  return [bytes] {
    signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{bytes, bytes};
    if (setrlimit(RLIMIT_FSIZE, &limit) != 0) _exit(98);
  };
}

}  // namespace

TEST_CASE(
    "skein-view --export-view: a FILE that is the trace or its database by any name is refused") {
  TempDir dir;
  // A trace whose name is an image's, so that --export-view may name it.
  const std::string trace = dir.file("t.svg");
  skein::test::write_file(trace, kTrace);
  const std::string hard = dir.file("hard.png");
  REQUIRE(link(trace.c_str(), hard.c_str()) == 0);
  for (const std::string& output : {trace, dir.path() + "/./t.svg", hard}) {
    INFO(output);
    const auto r = run_process({kView, trace, "--export-view", output}, {}, kOffscreen);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("skein-view: " + output + ": is the input " + trace +
                                      " itself (the same file); choose another output\n"));
    CHECK(read_all(trace) == kTrace);
  }
  // The cache database the trace is read through, behind a link whose
  // name is an image's: found when the view is written.
  const std::string cache = trace + ".skein.db";
  const std::string cache_link = dir.file("cache.png");
  REQUIRE(symlink("t.svg.skein.db", cache_link.c_str()) == 0);
  const auto r = run_process({kView, trace, "--export-view", cache_link}, {}, kOffscreen);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("skein-view: " + cache_link + ": is the input " + cache +
                                    " itself (the same file); choose another output\n"));
  CHECK_THAT(read_all(cache), Catch::StartsWith("SQLite format 3"));
  CHECK(read_all(trace) == kTrace);
  CHECK_FALSE(has_temporaries(dir));
}

TEST_CASE(
    "skein-view --export-view: a write that fails midway on a full disk exits non-zero and keeps "
    "the old file") {
  TempDir dir;
  const std::string trace = dir.file("t.sexp");
  skein::test::write_file(trace, kTrace);
  const std::string db = dir.file("t.db");
  REQUIRE(run_process({kSkein, "import", trace, "-o", db}).exit_code == 0);
  // The findings stored beforehand: under the limit the viewer only reads.
  REQUIRE(run_process({kSkein, "lint", db}).exit_code <= 1);
  const std::string old_bytes = "an older picture, which must survive\n";
  for (const std::string name : {"view.svg", "view.png"}) {
    INFO(name);
    const std::string target = dir.file(name);
    // Without the limit the image is larger than it: the limit does bite.
    const std::string unlimited = dir.file("unlimited-" + name);
    REQUIRE(run_process({kView, db, "--export-view", unlimited}, {}, kOffscreen).exit_code == 0);
    struct stat st {};
    REQUIRE(stat(unlimited.c_str(), &st) == 0);
    REQUIRE(st.st_size > 2048);
    REQUIRE(unlink(unlimited.c_str()) == 0);

    skein::test::write_file(target, old_bytes);
    const auto r =
        run_process({kView, db, "--export-view", target}, {}, kOffscreen, disk_full_after(2048));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("skein-view: " + target + ": write failed: File too large"));
    CHECK(read_all(target) == old_bytes);
    CHECK_FALSE(has_temporaries(dir));
  }
}
