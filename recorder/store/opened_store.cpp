// opened_store.cpp — open_store() decides in order: the path must stat as a
// regular file; one whose first 16 bytes are SQLite's header is opened as a
// database; otherwise the trace is stamped, its cache path chosen, and a
// cache that lstat finds to be a readable regular file, that opens and whose
// meta matches the stamp is reused; anything else is re-imported, then
// opened. The writable-folder test also creates and removes a probe file.
// HASH is FNV-1a 64 of the realpath; XDG_CACHE_HOME counts only if absolute.
// NAME in the cache folder is cut to a prefix of whole characters when the
// trace's name is too long for NAME-HASH.skein.db and its journal.
#include "recorder/store/opened_store.hpp"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "recorder/output/output_node.hpp"
#include "recorder/output/pending_file.hpp"
#include "recorder/store/database_path.hpp"

namespace skein {
namespace {

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// mkdir -p, for the cache folder.
bool make_directories(const std::string& dir) {
  std::string at;
  std::size_t i = 0;
  while (i <= dir.size()) {
    const std::size_t slash = dir.find('/', i);
    const std::size_t end = slash == std::string::npos ? dir.size() : slash;
    at = dir.substr(0, end);
    if (!at.empty() && mkdir(at.c_str(), 0700) != 0 && errno != EEXIST) return false;
    if (slash == std::string::npos) break;
    i = slash + 1;
  }
  struct stat st {};
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// Whether the cache may go in `dir`: the folder's mode must let this user
// write (for root, which passes every access() check, some write bit must
// be set: a folder no one may write to is meant to stay as it is, like a
// read-only copy of fixtures), and creating a file there must work (a
// read-only mount passes the mode check).
bool may_write_in(const std::string& dir) {
  struct stat st {};
  if (stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  if (geteuid() == 0 ? (st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 : access(dir.c_str(), W_OK) != 0)
    return false;
  const std::string probe = dir + "/.skein-probe-" + std::to_string(getpid());
  const int fd = open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  close(fd);
  unlink(probe.c_str());
  return true;
}

constexpr std::string_view kCacheSuffix = ".skein.db";

// Whether SQLite can keep the cache at `path`, and build it under its
// temporary name (database_path.hpp).
bool sqlite_can_keep(const std::string& path) {
  return !database_path_problem(path, /*with_journal=*/true) &&
         !database_path_problem(PendingFile::temp_path_for(path), /*with_journal=*/false);
}

// The trace's name as the start of its cache's name in the cache folder:
// whole, or its longest prefix of whole UTF-8 characters that leaves room
// in NAME_MAX (255) for "-HASH.skein.db" and SQLite's "-journal". The hash
// of the whole path keeps shortened names apart.
std::string cache_name_stem(const std::string& name) {
  constexpr std::size_t kRoom = 255 - (1 + 16) - kCacheSuffix.size() - (sizeof("-journal") - 1);
  if (name.size() <= kRoom) return name;
  std::size_t keep = kRoom;
  while (keep > 0 && (static_cast<unsigned char>(name[keep]) & 0xC0) == 0x80) --keep;
  return name.substr(0, keep);
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::string default_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/skein";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/skein";
  return {};
}

// True when the database at `db_path` was made from the trace as it is now.
bool cache_is_fresh(TraceStore& store, const SourceStamp& stamp) {
  const auto size = store.meta_int("source_size");
  const auto mtime = store.meta_int("source_mtime_ns");
  const auto crc = store.meta_int("source_head_crc32");
  return size && mtime && crc && static_cast<std::uint64_t>(*size) == stamp.size &&
         *mtime == stamp.mtime_ns && static_cast<std::uint32_t>(*crc) == stamp.head_crc32;
}

}  // namespace

bool is_sqlite_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char head[16] = {};
  const ssize_t n = read(fd, head, sizeof head);
  close(fd);
  return n == static_cast<ssize_t>(sizeof head) && std::memcmp(head, "SQLite format 3", 16) == 0;
}

Result<std::string> cache_path_for(const std::string& trace_path, const std::string& cache_dir) {
  if (cache_dir.empty()) {
    const std::string beside = trace_path + ".skein.db";
    if (may_write_in(directory_of(trace_path)) && sqlite_can_keep(beside)) return beside;
  }
  const std::string dir = cache_dir.empty() ? default_cache_dir() : cache_dir;
  if (dir.empty())
    return file_error(trace_path, "cannot place its cache database: its folder is not writable and "
                                  "neither XDG_CACHE_HOME nor HOME is set");
  if (!make_directories(dir))
    return file_error(trace_path, "cannot create the cache folder " + dir + ": " + std::strerror(errno));
  char absolute[PATH_MAX];
  const std::string key = realpath(trace_path.c_str(), absolute) != nullptr ? absolute : trace_path;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(key)));
  return dir + "/" + cache_name_stem(base_name(trace_path)) + "-" + hash + std::string(kCacheSuffix);
}

OpenedStore open_store(const std::string& path, const StoreOpenOptions& options) {
  OpenedStore out;
  const auto fail = [&](OpenedStore::Failure f, Diagnostic d) {
    out.failure = f;
    out.error = std::move(d);
    return std::move(out);
  };
  struct stat st {};
  if (stat(path.c_str(), &st) != 0)
    return fail(OpenedStore::Failure::unreadable,
                file_error(path, std::string("cannot open: ") + std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    return fail(OpenedStore::Failure::unreadable, file_error(path, "not a regular file"));

  if (is_sqlite_file(path)) {
    auto store = TraceStore::open(path);
    if (!store) return fail(OpenedStore::Failure::unreadable, store.error());
    out.store.emplace(std::move(store).value());
    out.database_path = path;
    return out;
  }

  auto stamp = stamp_source(path);
  if (!stamp) return fail(OpenedStore::Failure::unreadable, stamp.error());
  auto db_path = cache_path_for(path, options.cache_dir);
  if (!db_path) return fail(OpenedStore::Failure::database, db_path.error());
  out.database_path = db_path.value();

  // Only a regular file is read as a cache: opening a FIFO would wait for
  // a writer forever, and whatever else sits there is refused, not
  // replaced, by the import below (output_file.hpp).
  const auto cache_node = inspect_output_node(out.database_path);
  if (cache_node && cache_node.value().kind == OutputNodeKind::regular_file &&
      access(out.database_path.c_str(), R_OK) == 0) {
    auto cached = TraceStore::open(out.database_path);
    if (cached && cache_is_fresh(cached.value(), stamp.value())) {
      out.store.emplace(std::move(cached).value());
      return out;
    }
  }

  ImportResult imported = import_trace(path, out.database_path, options.import);
  switch (imported.failure) {
    case ImportResult::Failure::none: break;
    case ImportResult::Failure::unreadable: return fail(OpenedStore::Failure::unreadable, imported.error);
    case ImportResult::Failure::invalid: return fail(OpenedStore::Failure::invalid, imported.error);
    case ImportResult::Failure::database:
    case ImportResult::Failure::cancelled:
    case ImportResult::Failure::out_of_memory: return fail(OpenedStore::Failure::database, imported.error);
  }
  out.imported = true;
  out.import_report = std::move(imported.report);
  auto store = TraceStore::open(out.database_path);
  if (!store) return fail(OpenedStore::Failure::database, store.error());
  out.store.emplace(std::move(store).value());
  return out;
}

}  // namespace skein
