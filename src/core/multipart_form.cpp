#include "core/multipart_form.h"

#include "core/ids.h"

namespace pincer::net {

namespace {

std::string multipart_quoted(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"') out += "%22";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else out += c;
  }
  return out;
}

bool multipart_boundary_free(const std::vector<FormPart>& parts, const std::string& boundary) {
  for (const auto& p : parts) {
    if (p.value.find(boundary) != std::string::npos) return false;
  }
  return true;
}

}  // namespace

MultipartBody build_multipart_form(const std::vector<FormPart>& parts) {
  std::string boundary;
  do {
    boundary = "----pincer-" + ids::random_token(12);
  } while (!multipart_boundary_free(parts, boundary));
  MultipartBody out;
  out.content_type = "multipart/form-data; boundary=" + boundary;
  for (const auto& p : parts) {
    out.body += "--" + boundary + "\r\n";
    out.body += "Content-Disposition: form-data; name=\"" + multipart_quoted(p.name) + "\"";
    if (!p.file_name.empty()) {
      out.body += "; filename=\"" + multipart_quoted(p.file_name) + "\"\r\n";
      out.body += "Content-Type: " + (p.mime_type.empty() ? std::string("application/octet-stream") : p.mime_type);
    }
    out.body += "\r\n\r\n";
    out.body += p.value;
    out.body += "\r\n";
  }
  out.body += "--" + boundary + "--\r\n";
  return out;
}

}  // namespace pincer::net
