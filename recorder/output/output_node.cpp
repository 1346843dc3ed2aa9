// output_node.cpp — one lstat(2) per look, so the final component is never
// followed; ENOENT reads as absent and any other failure as an error naming
// the path. The kind comes from st_mode's S_IFMT bits alone, and st_dev and
// st_ino are kept for same_node(). Also the fixed wording of node kinds for
// messages.
#include "recorder/output/output_node.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace skein {

Result<OutputNode> inspect_output_node(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return OutputNode{};
    return file_error(path, std::string("cannot look at it: ") + std::strerror(errno));
  }
  return OutputNode{output_node_kind(st.st_mode), st.st_dev, st.st_ino};
}

OutputNodeKind output_node_kind(mode_t mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return OutputNodeKind::regular_file;
    case S_IFLNK: return OutputNodeKind::symbolic_link;
    case S_IFCHR: return OutputNodeKind::character_device;
    case S_IFBLK: return OutputNodeKind::block_device;
    case S_IFIFO: return OutputNodeKind::fifo;
    case S_IFDIR: return OutputNodeKind::directory;
    case S_IFSOCK: return OutputNodeKind::socket;
    default: return OutputNodeKind::unknown;
  }
}

std::string_view describe_output_node(OutputNodeKind kind) {
  switch (kind) {
    case OutputNodeKind::absent: return "missing";
    case OutputNodeKind::unknown: return "a node of an unknown kind";
    case OutputNodeKind::regular_file: return "a regular file";
    case OutputNodeKind::symbolic_link: return "a symbolic link";
    case OutputNodeKind::character_device: return "a character device";
    case OutputNodeKind::block_device: return "a block device";
    case OutputNodeKind::fifo: return "a FIFO";
    case OutputNodeKind::directory: return "a folder";
    case OutputNodeKind::socket: return "a socket";
  }
  return "a node of an unknown kind";
}

Diagnostic output_node_changed(const std::string& path, OutputNodeKind now) {
  return file_error(path, "became " + std::string(describe_output_node(now)) +
                              " while it was being written; left as it is");
}

}  // namespace skein
