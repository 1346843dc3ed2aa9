// out_of_memory_exit.hpp — the last resort of a command that runs out of
// memory where nothing catches it (a worker thread, an event loop): the
// process ends with exit status 2 and "PROGRAM: out of memory while ...",
// after removing every pending temporary file (pending_file.hpp), instead
// of dying of std::terminate's abort and leaving `TARGET.tmp-PID` behind.
//
// The import catches std::bad_alloc itself (trace_import.hpp) and each
// main catches it on its own thread, where unwinding closes databases and
// removes temporary files in order; this handler is for the rest.
#pragma once

namespace skein {

// Installs the std::terminate handler. `program` and `doing` ("running
// 'skein import'") must live as long as the process (argv, literals).
// Terminations for any other reason go to the handler that was there.
void exit_cleanly_when_out_of_memory(const char* program, const char* doing);

// Writes "PROGRAM: out of memory while DOING\n" to standard error without
// allocating, removes every pending file, and exits with status 2.
[[noreturn]] void exit_out_of_memory(const char* program, const char* doing);

}  // namespace skein
