// Whole-file reads and writes with errors that name the file and the reason. A write
// replaces its destination only once it has fully succeeded.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "commpress/codec.hpp"

namespace commpress::cli {

Result<std::vector<std::byte>> read_file(const std::string& path);
Status write_file(const std::string& path, std::span<const std::byte> bytes);

// Reads a raw little-endian array of dtype d; its size must be a whole number of elements.
Result<std::vector<std::byte>> read_array(const std::string& path, codec::Dtype d);

}  // namespace commpress::cli
