#include "agent/time_zone.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace pincer::agent {
namespace {

int64_t be(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  if (n == 4) return static_cast<int32_t>(static_cast<uint32_t>(v));
  return static_cast<int64_t>(v);
}

}  // namespace

bool is_time_zone_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '/' || name.back() == '/') return false;
  std::size_t seg_start = 0;
  for (std::size_t i = 0; i <= name.size(); ++i) {
    if (i == name.size() || name[i] == '/') {
      if (i == seg_start || name[seg_start] == '.' || name[seg_start] == '-') return false;
      seg_start = i + 1;
      continue;
    }
    const char c = name[i];
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '-')) return false;
  }
  return true;
}

std::optional<int> time_zone_offset_minutes(std::string_view name, int64_t unix_ms) {
  if (!is_time_zone_name(name)) return std::nullopt;
  const std::string file = "/usr/share/zoneinfo/" + std::string(name);
  // "Europe" is a directory there: reading it would throw, and it is no zone.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (data.size() > (1u << 20)) return std::nullopt;
  const auto* b = reinterpret_cast<const unsigned char*>(data.data());
  std::size_t pos = 0;
  // Header: "TZif", version, 15 reserved, six big-endian counts.
  auto header = [&](int64_t counts[6]) -> bool {
    if (data.size() < pos + 44 || std::memcmp(b + pos, "TZif", 4) != 0) return false;
    for (int i = 0; i < 6; ++i) counts[i] = be(b + pos + 20 + 4 * i, 4);
    for (int i = 0; i < 6; ++i) if (counts[i] < 0 || counts[i] > 100000) return false;
    pos += 44;
    return true;
  };
  int64_t c[6];  // isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt
  if (!header(c)) return std::nullopt;
  const char version = data[4];
  int time_size = 4;
  if (version >= '2') {  // skip the 32-bit block; the 64-bit one follows with its own header
    pos += c[3] * 4 + c[3] + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (!header(c)) return std::nullopt;
    time_size = 8;
  }
  const int64_t timecnt = c[3], typecnt = c[4];
  const std::size_t need = pos + timecnt * time_size + timecnt + typecnt * 6;
  if (typecnt < 1 || data.size() < need) return std::nullopt;
  const unsigned char* times = b + pos;
  const unsigned char* idx = times + timecnt * time_size;
  const unsigned char* types = idx + timecnt;
  const int64_t t = unix_ms >= 0 ? unix_ms / 1000 : -((-unix_ms + 999) / 1000);
  int type = 0;
  // Before the first transition: the first standard-time type (RFC 8536 §3.2), else type 0.
  for (int i = 0; i < typecnt; ++i) {
    if (types[i * 6 + 4] == 0) {
      type = i;
      break;
    }
  }
  for (int64_t i = 0; i < timecnt; ++i) {
    if (be(times + i * time_size, time_size) > t) break;
    type = idx[i];
  }
  if (type >= typecnt) return std::nullopt;
  return static_cast<int>(be(types + type * 6, 4) / 60);
}

}  // namespace pincer::agent
