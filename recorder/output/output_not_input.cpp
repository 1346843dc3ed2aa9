// output_not_input.cpp — one stat (or fstat, for "-") of each side; the
// output is looked at once and compared with every input in turn. A side
// that is not a regular file, or cannot be looked at, matches nothing.
#include "recorder/output/output_not_input.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <optional>

namespace skein {
namespace {

struct RegularFileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  bool operator==(const RegularFileIdentity&) const = default;
};

// What `path` names, links followed; `standard` is the descriptor "-"
// stands for, or -1 when "-" is a file's name.
std::optional<RegularFileIdentity> identity_of(const std::string& path, int standard) {
  struct stat st {};
  const int rc = path == "-" && standard >= 0 ? fstat(standard, &st) : stat(path.c_str(), &st);
  if (rc != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return RegularFileIdentity{st.st_dev, st.st_ino};
}

}  // namespace

Status check_output_is_not_an_input(const std::string& output, OutputContent content,
                                    const std::vector<std::string>& inputs) {
  const auto written = identity_of(output, content == OutputContent::stream ? STDOUT_FILENO : -1);
  if (!written) return {};
  for (const std::string& input : inputs) {
    if (identity_of(input, STDIN_FILENO) != written) continue;
    const std::string named = input == "-" ? "<stdin>" : input;
    return file_error(output == "-" ? "<stdout>" : output,
                      "is the input " + named + " itself (the same file); choose another output");
  }
  return {};
}

}  // namespace skein
