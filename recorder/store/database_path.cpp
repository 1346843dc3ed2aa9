// database_path.cpp — the resolved path comes from the default VFS's
// xFullPathname with a PATH_MAX + 1 buffer (SQLITE_OK_SYMLINK, which it
// returns after following a link, is success: only the primary result code
// is looked at). The name is the path's last component as given (the name
// the file is created under), its limit pathconf(_PC_NAME_MAX) of its
// folder (NAME_MAX when that folder does not exist yet); it is checked
// first, since SQLite cannot resolve a path whose name passes NAME_MAX.
#include "recorder/store/database_path.hpp"

#include <limits.h>
#include <sqlite3.h>
#include <unistd.h>

#include <vector>

namespace skein {
namespace {

// SQLite's journal suffix, the longest companion of a database's name.
constexpr std::size_t kJournalSuffix = sizeof("-journal") - 1;

sqlite3_vfs* default_vfs() {
  return sqlite3_vfs_find(nullptr);
}

std::optional<std::string> resolved_by_sqlite(const std::string& path) {
  sqlite3_vfs* vfs = default_vfs();
  if (vfs == nullptr || vfs->xFullPathname == nullptr) return std::nullopt;
  std::vector<char> buffer(PATH_MAX + 1, '\0');
  const int rc =
      vfs->xFullPathname(vfs, path.c_str(), static_cast<int>(buffer.size()), buffer.data());
  if ((rc & 0xff) != SQLITE_OK) return std::nullopt;
  return std::string(buffer.data());
}

std::size_t name_max_of_folder(const std::string& folder) {
  const long n = pathconf(folder.c_str(), _PC_NAME_MAX);
  return n > 0 ? static_cast<std::size_t>(n) : std::size_t{NAME_MAX};
}

}  // namespace

std::size_t longest_database_path() {
  const sqlite3_vfs* vfs = default_vfs();
  const std::size_t max_pathname = vfs != nullptr ? static_cast<std::size_t>(vfs->mxPathname) : 512;
  return max_pathname > kJournalSuffix ? max_pathname - kJournalSuffix : 0;
}

std::optional<std::string> database_path_problem(const std::string& path, bool with_journal) {
  // The name first: SQLite's resolution fails on a name past NAME_MAX.
  if (with_journal) {
    const auto slash = path.rfind('/');
    const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    const std::string folder = slash == std::string::npos ? "."
                               : slash == 0               ? "/"
                                                          : path.substr(0, slash);
    const std::size_t name_max = name_max_of_folder(folder);
    if (name.size() + kJournalSuffix > name_max)
      return "has a name of " + std::to_string(name.size()) + " bytes, past the " +
             std::to_string(name_max - kJournalSuffix) +
             " a database's name may have (the folder's NAME_MAX, " + std::to_string(name_max) +
             " bytes, less 8 for SQLite's -journal beside it): choose a shorter name";
  }
  const auto resolved = resolved_by_sqlite(path);
  if (!resolved) return std::nullopt;
  const std::size_t limit = longest_database_path();
  if (resolved->size() > limit) {
    const sqlite3_vfs* vfs = default_vfs();
    return "is " + std::to_string(resolved->size()) + " bytes once made absolute, past the " +
           std::to_string(limit) + " bytes SQLite opens a database at (its path limit, " +
           std::to_string(vfs ? vfs->mxPathname : 512) +
           " bytes, less 8 for the -journal beside it): choose a shorter path";
  }
  return std::nullopt;
}

Status check_database_path(const std::string& path, bool with_journal) {
  if (auto problem = database_path_problem(path, with_journal))
    return file_error(path, std::move(*problem));
  return {};
}

}  // namespace skein
