// libFuzzer target for the Chat Completions chunk scan (src/llm/openai_chunk_scan.h), our own code
// in place of a JSON library on the streaming hot path, so it is checked against the library:
// - every input the scan accepts is valid JSON to nlohmann and gives exactly the fields a full
//   parse gives (openai_chunk_reference.h);
// - the input is also tried wrapped as the first choice's delta content's neighbour, so mutations
//   reach the fields the decoder reads and not only the top level.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "openai_chunk_reference.h"

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void differential(std::string_view data) {
  auto scanned = pincer::llm::openai_chunk::scan(data);
  if (!scanned) return;  // left to the full parse: nothing to compare
  auto full = pincer::llm::openai_chunk::fields_from_full_parse(data);
  check(full.has_value());
  check(pincer::llm::openai_chunk::same_fields(*scanned, *full));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  const std::string_view data(reinterpret_cast<const char*>(bytes), size);
  differential(data);
  differential(R"({"id":"c","choices":[{"index":0,"delta":{"content":"x",)" + std::string(data) + "}}]}");
  differential(R"({"id":"c","choices":[],"usage":{)" + std::string(data) + "}}");
  return 0;
}
