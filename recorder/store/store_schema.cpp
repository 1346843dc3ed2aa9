// store_schema.cpp — the CREATE statements of the trace database and the
// check of a database made elsewhere; see store_schema.hpp and SCHEMA.md.
#include "recorder/store/store_schema.hpp"

#include <sys/stat.h>

#include <array>
#include <cstring>
#include <fstream>
#include <string>

namespace skein {
namespace {

struct SchemaObject {
  std::string_view type;  // as sqlite_schema.type says it
  std::string_view name;
  std::string_view columns;  // tables only
  std::string_view sql;      // stored by SQLite exactly as written here
};

// The order is the creation order. Keep SCHEMA.md in step with every line.
// In the WITHOUT ROWID tables the key's columns come first, in key order:
// SQLite 3.40's integrity_check wrongly reports NULLs in a NOT NULL column
// declared between key columns.
constexpr std::array<SchemaObject, 10> kObjects = {{
    {"table", "meta", "key,value",
     "CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID"},
    {"table", "heads", "id,name,records",
     "CREATE TABLE heads(id INTEGER PRIMARY KEY, name TEXT NOT NULL, records INTEGER NOT NULL)"},
    {"table", "event_blocks", "id,first_event,last_event,start,end,first_activation,last_activation,records",
     "CREATE TABLE event_blocks(id INTEGER PRIMARY KEY, first_event INTEGER NOT NULL, "
     "last_event INTEGER NOT NULL, start INTEGER, end INTEGER, first_activation INTEGER, "
     "last_activation INTEGER, records BLOB NOT NULL)"},
    {"table", "sites", "id,file,line,function",
     "CREATE TABLE sites(id INTEGER PRIMARY KEY, file TEXT NOT NULL, line INTEGER NOT NULL, "
     "function TEXT NOT NULL)"},
    {"table", "threads",
     "id,parent,kind,site,label,created,first_run,resolved,outcome,failure,merged_into,run_time,"
     "implicit,first_event,last_event,first_activation,last_activation",
     "CREATE TABLE threads(id INTEGER PRIMARY KEY, parent INTEGER, kind TEXT, site INTEGER, "
     "label TEXT, created INTEGER NOT NULL, first_run INTEGER, resolved INTEGER, outcome TEXT, "
     "failure TEXT, merged_into INTEGER, run_time INTEGER NOT NULL, implicit INTEGER NOT NULL, "
     "first_event INTEGER NOT NULL, last_event INTEGER NOT NULL, first_activation INTEGER, "
     "last_activation INTEGER)"},
    {"table", "thread_labels", "thread,position,label",
     "CREATE TABLE thread_labels(thread INTEGER NOT NULL, position INTEGER NOT NULL, label TEXT NOT NULL, "
     "PRIMARY KEY(thread, position)) WITHOUT ROWID"},
    {"table", "activation_blocks", "id,first_activation,last_activation,activations",
     "CREATE TABLE activation_blocks(id INTEGER PRIMARY KEY, first_activation INTEGER NOT NULL, "
     "last_activation INTEGER NOT NULL, activations BLOB NOT NULL)"},
    {"table", "counters", "name,time,value,event",
     "CREATE TABLE counters(name TEXT NOT NULL, time INTEGER NOT NULL, value INTEGER NOT NULL, "
     "event INTEGER NOT NULL, PRIMARY KEY(name, time, value, event)) WITHOUT ROWID"},
    {"table", "warnings", "id,kind,event,message",
     "CREATE TABLE warnings(id INTEGER PRIMARY KEY, kind TEXT NOT NULL, event INTEGER, "
     "message TEXT NOT NULL)"},
    {"table", "thread_spans", "id,start,end",
     "CREATE VIRTUAL TABLE thread_spans USING rtree(id, start, end)"},
}};

constexpr std::size_t count_tables() {
  std::size_t n = 0;
  for (const auto& o : kObjects) n += o.type == "table" ? 1 : 0;
  return n;
}
constexpr std::size_t kTableCount = count_tables();
constexpr std::array<StoreTable, kTableCount> make_tables() {
  std::array<StoreTable, kTableCount> tables{};
  std::size_t n = 0;
  for (const auto& o : kObjects)
    if (o.type == "table") tables[n++] = StoreTable{o.name, o.columns};
  return tables;
}
constexpr auto kTables = make_tables();

Diagnostic not_skein(const SqliteDatabase& db, const std::string& why) {
  return file_error(db.name(), "not a Skein database (" + why + ")");
}

// True when `path` starts with an SQLite header that says WAL mode: the magic
// "SQLite format 3\0", then bytes 18 and 19 (the write and read versions)
// both 2 (https://sqlite.org/fileformat2.html#the_database_header).
bool wal_mode_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[20] = {};
  if (!in.read(header, sizeof header)) return false;
  return std::memcmp(header, "SQLite format 3", 16) == 0 && header[18] == 2 && header[19] == 2;
}

// Why SQLite cannot read a WAL database it opened read-only: it reads one
// only through the PATH-shm and PATH-wal files beside it, and creates them
// when they are missing, which a folder that cannot be written refuses.
Diagnostic wal_unreadable(const SqliteDatabase& db, const std::string& sqlite_says) {
  const std::string& path = db.name();
  struct stat st {};
  const bool have_shm = stat((path + "-shm").c_str(), &st) == 0;
  std::string why = have_shm
                        ? "cannot read this database in WAL mode: SQLite cannot use its " + path + "-shm"
                        : "cannot read this database in WAL mode here: SQLite needs " + path +
                              "-shm and -wal beside it and cannot create them, its folder is not writable";
  why += " (" + sqlite_says + "); copy it to a folder that can be written, or make it a rollback-journal "
         "database where it can be written: sqlite3 " + path + " 'PRAGMA journal_mode=DELETE'";
  return file_error(path, std::move(why));
}

}  // namespace

std::span<const StoreTable> store_tables() { return kTables; }

Status create_store_schema(SqliteDatabase& db) {
  for (const auto& o : kObjects)
    if (Status s = db.exec(o.sql); !s.ok()) return s;
  auto insert = db.prepare("INSERT INTO heads(id, name, records) VALUES (?1, ?2, 0)");
  if (!insert) return insert.error();
  for (std::size_t i = 0; i < kRecordHeadCount; ++i) {
    insert.value().bind(1, static_cast<std::int64_t>(i));
    insert.value().bind(2, head_name(static_cast<RecordHead>(i)));
    if (Status s = insert.value().run(); !s.ok()) return s;
  }
  return {};
}

Status stamp_store_schema(SqliteDatabase& db) {
  // PRAGMA takes no parameters; the values are compile-time constants.
  return db.exec("PRAGMA application_id = " + std::to_string(kStoreApplicationId) +
                 "; PRAGMA user_version = " + std::to_string(kStoreSchemaVersion) + ";");
}

Status check_store_schema(SqliteDatabase& db) {
  auto version = db.query_int("PRAGMA user_version");
  if (!version) {
    // The first read of the file: SQLite says here when it is not a
    // database at all ("file is not a database"), or when it is one in WAL
    // mode that it cannot read where it lies.
    if (wal_mode_file(db.name())) return wal_unreadable(db, version.error().message);
    return not_skein(db, "not an SQLite database: " + version.error().message);
  }
  if (version.value() >= 1 && version.value() < kStoreSchemaVersion)
    return file_error(db.name(), "a database of an older Skein (schema " + std::to_string(version.value()) +
                                     ", this one reads schema " + std::to_string(kStoreSchemaVersion) +
                                     "): import its trace again");
  if (version.value() != kStoreSchemaVersion)
    return not_skein(db, "user_version " + std::to_string(version.value()) + ", expected " +
                             std::to_string(kStoreSchemaVersion));
  auto application = db.query_int("PRAGMA application_id");
  if (!application) return application.error();
  if (application.value() != kStoreApplicationId)
    return not_skein(db, "application_id " + std::to_string(application.value()) + ", expected " +
                             std::to_string(kStoreApplicationId));

  auto object = db.prepare("SELECT type, sql FROM sqlite_schema WHERE name = ?1");
  if (!object) return object.error();
  for (const auto& o : kObjects) {
    SqliteStatement& q = object.value();
    q.bind(1, o.name);
    auto row = q.step();
    if (!row) return row.error();
    if (!row.value()) {
      q.reset();
      return not_skein(db, "no " + std::string(o.type) + " '" + std::string(o.name) + "'");
    }
    const std::string type(q.text(0));
    const std::string sql(q.text(1));
    q.reset();
    if (type != o.type)
      return not_skein(db, "'" + std::string(o.name) + "' is a " + type + ", expected a " +
                               std::string(o.type));
    if (o.type == "table") {
      auto listed = db.column_names(o.name);
      if (!listed) return listed.error();
      const std::string& found = listed.value();
      if (found != o.columns)
        return not_skein(db, "table '" + std::string(o.name) + "' has columns (" + found +
                                 "), expected (" + std::string(o.columns) + ")");
    }
    if (sql != o.sql)
      return not_skein(db, std::string(o.type) + " '" + std::string(o.name) +
                               "' is defined differently from Skein's schema");
  }
  return {};
}

}  // namespace skein
