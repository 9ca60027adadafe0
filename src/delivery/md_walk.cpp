#include "delivery/md_walk.h"

#include "delivery/entities.h"

namespace pincer::delivery::detail {

std::string md_attribute_text(const MD_ATTRIBUTE& attr) {
  std::string out;
  if (attr.text == nullptr) return out;
  for (unsigned i = 0; attr.substr_offsets[i] < attr.size; ++i) {
    const MD_OFFSET from = attr.substr_offsets[i];
    const std::string_view part(attr.text + from, attr.substr_offsets[i + 1] - from);
    switch (attr.substr_types[i]) {
      case MD_TEXT_NULLCHAR: out += "\xEF\xBF\xBD"; break;
      case MD_TEXT_ENTITY: {
        const auto decoded = decode_entity(part);
        out += decoded ? *decoded : std::string(part);
        break;
      }
      default: out += part; break;
    }
  }
  return out;
}

}  // namespace pincer::delivery::detail
