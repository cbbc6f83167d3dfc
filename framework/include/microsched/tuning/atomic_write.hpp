// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#pragma once
//! @file atomic_write.hpp
//! Writes a whole file or nothing: the bytes go to a temporary file in the same folder, which is
//! flushed to the disk (fsync) and then renamed over the target. A reader sees the old file or the
//! new one, never a half-written one, and a failed write leaves no temporary behind.

#include <filesystem>
#include <string_view>

namespace microsched::tuning {

//! Throws std::runtime_error naming the path and the system's reason when the folder does not
//! exist or is not writable, the disk is full, or the rename fails.
void write_file_atomically(const std::filesystem::path& file, std::string_view bytes);

//! Throws std::runtime_error naming the folder unless a file can be created in it (creates the
//! folder, and its parents, when missing). Lets a program refuse bad output paths before work.
void ensure_writable_folder(const std::filesystem::path& folder);

}  // namespace microsched::tuning
