// multipart/form-data request bodies (RFC 7578) for uploads to chat platforms: Telegram's
// sendPhoto/sendDocument, Discord's message with files[n], Slack's and Matrix's uploads take a
// file this way. Text fields and file parts, in order; the boundary is random (never found in
// the parts: it is chosen again in the unlikely case it is). Pure apart from the random boundary;
// thread-safe.
#pragma once

#include <string>
#include <vector>

namespace pincer::net {

/// One part of a form.
struct FormPart {
  std::string name;          ///< the field name ("chat_id", "photo", "files[0]")
  std::string value;         ///< the text or the file's bytes
  std::string file_name{};   ///< non-empty: a file part (Content-Disposition filename=…)
  std::string mime_type{};   ///< a file part's Content-Type ("" = application/octet-stream)
};

/// A built body and the Content-Type header value that goes with it.
struct MultipartBody {
  std::string content_type;  ///< "multipart/form-data; boundary=…"
  std::string body;
};

/// Builds the body. Names and file names are quoted as RFC 7578 §4.2 allows for UTF-8 (a quote,
/// CR or LF in them is percent-encoded as browsers do: %22, %0D, %0A); bytes pass unchanged.
MultipartBody build_multipart_form(const std::vector<FormPart>& parts);

}  // namespace pincer::net
