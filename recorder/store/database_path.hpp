// database_path.hpp — the paths SQLite can keep a database at, asked before
// a database is opened or its place chosen, so that a path too long is
// refused with a message that says so instead of SQLite's "unable to open
// database file".
//
// SQLite's unix VFS resolves a database's path itself (absolute, symbolic
// links followed) into a buffer of mxPathname bytes (MAX_PATHNAME, 512 in
// SQLite 3.40's os_unix.c), and its pager refuses any database whose
// resolved path leaves no room for `-journal` (8 bytes) within that: the
// longest database path is mxPathname - 8, 504 bytes. The rollback journal
// and the WAL are files beside the database, so its own name must also
// leave 8 bytes of the folder's NAME_MAX (255 on Linux) for `-journal`, or
// the first write that needs a journal fails.
//
// Invariants:
//   1. The length measured is the one SQLite measures: the VFS's own
//      xFullPathname, asked with room for any path, so a relative path, a
//      `..` or a link in a folder count as SQLite counts them.
//   2. The limits are read from the SQLite linked in (its VFS's
//      mxPathname) and from the folder (pathconf), never assumed.
//   3. A path that SQLite cannot resolve at all is left to the open, which
//      reports SQLite's own error.
//   4. The name asked about is the one given (the name a file is created
//      under), and it is checked before the path is resolved: SQLite
//      cannot resolve a name past NAME_MAX.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "recorder/format/diagnostic.hpp"

namespace skein {

// The longest resolved path SQLite opens a database at (504 with 3.40).
[[nodiscard]] std::size_t longest_database_path();

// What is wrong with keeping a database at `path`, as the end of a
// sentence about it ("is 517 bytes once made absolute, ..."), or nullopt
// when SQLite can open it. `with_journal` also asks that the file's name
// leave room for `-journal` (a database that will be written in place).
[[nodiscard]] std::optional<std::string> database_path_problem(const std::string& path,
                                                               bool with_journal);

// The same as a Status naming `path`.
[[nodiscard]] Status check_database_path(const std::string& path, bool with_journal);

}  // namespace skein
