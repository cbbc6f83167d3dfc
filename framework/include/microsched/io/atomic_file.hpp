// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file atomic_file.hpp
//! The library's one way to write a file: whole or not at all, and never at the cost of what the
//! user owns. The bytes go to a temporary file with a unique name in the target's folder (created
//! exclusively, so no other file is ever overwritten or removed), which is flushed to the disk
//! (fsync), renamed over the target, and the folder flushed too. A reader sees the old file or the
//! new one; a failure leaves the old file as it was and no temporary behind.
//!
//! Rules for an existing target:
//! - read-only (no write bit in its mode, or not writable by this user): refused, one line naming
//!   the path; the file is left untouched. Making it writable is the user's decision.
//! - a symbolic link: followed; the file it points to is replaced and the link stays a link
//!   (as `echo > link` does). A dangling link makes its target.
//! - its mode (permission bits) and owner are kept; a new file gets 0666 less the umask, as any
//!   program's output does. An owner that cannot be kept is refused rather than changed.
//! - more than one hard link: refused, since a rename would split the links.
//! - a folder or anything but a regular file: refused.

#include <filesystem>
#include <string_view>

namespace microsched {

//! Writes `bytes` to `file` under the rules above. Throws std::runtime_error naming the path and
//! the reason (missing or unwritable folder, read-only target, full disk, ...).
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);

//! Throws std::runtime_error naming the path unless write_file_atomically(file, ...) can be
//! expected to succeed: the folder exists and is writable and the target, if any, is one the
//! rules accept. Creates nothing; a program checks its outputs with it before any device work.
void require_writable_file(const std::filesystem::path& file);

//! Throws std::runtime_error naming the folder unless it exists and is writable, or is missing
//! and can be made (its nearest existing ancestor is a writable folder, and the folders can be
//! made there: they are made and removed again). Leaves nothing behind.
void require_writable_folder(const std::filesystem::path& folder);

//! require_writable_folder(), then creates the folder and its parents when missing.
void ensure_writable_folder(const std::filesystem::path& folder);

}  // namespace microsched
