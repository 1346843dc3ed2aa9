// out_of_memory_exit.cpp — the terminate handler of out_of_memory_exit.hpp.
// Nothing here allocates: the message is written with write(2) in pieces,
// and the pending files are unlinked from pending_file.cpp's fixed table.
#include "recorder/output/out_of_memory_exit.hpp"

#include <unistd.h>

#include <cstring>
#include <exception>
#include <new>

#include "recorder/output/pending_file.hpp"

namespace skein {
namespace {

const char* g_program = "skein";
const char* g_doing = "running";
std::terminate_handler g_previous = nullptr;

void write_text(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

[[noreturn]] void on_terminate() {
  if (const std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const std::bad_alloc&) {
      exit_out_of_memory(g_program, g_doing);
    } catch (...) {
    }
  }
  if (g_previous != nullptr) g_previous();
  std::abort();
}

}  // namespace

void exit_cleanly_when_out_of_memory(const char* program, const char* doing) {
  g_program = program;
  g_doing = doing;
  g_previous = std::set_terminate(on_terminate);
}

void exit_out_of_memory(const char* program, const char* doing) {
  remove_pending_files_now();
  write_text(program);
  write_text(": out of memory while ");
  write_text(doing);
  write_text("\n");
  _exit(2);
}

}  // namespace skein
