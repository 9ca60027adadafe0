#include "core/base64.h"

#include <sodium.h>

namespace pincer {

std::string base64_encode(std::string_view bytes) {
  // sodium_base64_encoded_len counts the terminating NUL, which the string does not keep.
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                    sodium_base64_VARIANT_ORIGINAL);
  out.pop_back();
  return out;
}

}  // namespace pincer
