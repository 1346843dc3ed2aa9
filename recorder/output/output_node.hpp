// output_node.hpp — what an output path names right now, as lstat(2) sees
// it: nothing, a regular file, or a node that is not a file to replace (a
// symbolic link, a device, a FIFO, a folder, a socket). The one question
// output_file.hpp asks before deciding how `-o` is written, and the one
// pending_file.hpp asks again just before its rename.
//
// Invariants:
//   - The final component is never followed: a symbolic link is reported as
//     a link, whatever it points to (or whether it points anywhere).
//   - `device` and `inode` identify the node that was looked at, so that a
//     later open or rename can check that it meets that very node.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "recorder/format/diagnostic.hpp"

namespace skein {

enum class OutputNodeKind : std::uint8_t {
  absent,
  unknown,  // a kind this code does not know (none on Linux today)
  regular_file,
  symbolic_link,
  character_device,
  block_device,
  fifo,
  directory,
  socket,
};

struct OutputNode {
  OutputNodeKind kind = OutputNodeKind::absent;
  dev_t device = 0;  // both 0 when absent
  ino_t inode = 0;

  [[nodiscard]] bool same_node(const OutputNode& other) const {
    return kind == other.kind && device == other.device && inode == other.inode;
  }
};

// lstat(path): the node, `absent` when nothing is there (ENOENT), an error
// naming the path otherwise (a folder on the way that cannot be searched).
[[nodiscard]] Result<OutputNode> inspect_output_node(const std::string& path);

// The kind of node a stat mode (st_mode) describes.
[[nodiscard]] OutputNodeKind output_node_kind(mode_t mode);

// "a character device", "a symbolic link", ...: for messages.
[[nodiscard]] std::string_view describe_output_node(OutputNodeKind kind);

// "PATH: became a FIFO while it was being written; left as it is": the one
// message for a target found changed, into something that is not replaced,
// between the first look and the rename.
[[nodiscard]] Diagnostic output_node_changed(const std::string& path, OutputNodeKind now);

}  // namespace skein
