// Shared by the fuzz targets of incremental parsers: chunk sizes derived from the input, so that a
// target can check its result does not depend on how the bytes arrive.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace pincer::fuzz {

/// 16 sizes in 1..13, deterministic per input (FNV-1a of the input seeds an LCG).
inline std::vector<std::size_t> chunk_sizes(std::string_view text) {
  uint32_t h = 2166136261u;
  for (unsigned char c : text) h = (h ^ c) * 16777619u;
  std::vector<std::size_t> sizes;
  for (int i = 0; i < 16; ++i) {
    h = h * 1103515245u + 12345u;
    sizes.push_back(1 + (h >> 16) % 13);
  }
  return sizes;
}

}  // namespace pincer::fuzz
