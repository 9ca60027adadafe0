#include "channels/slack/slack_files.h"

namespace pincer::channels::slack {

std::vector<std::pair<std::string, std::string>> upload_url_fields(const std::string& file_name, std::size_t length) {
  return {{"filename", file_name}, {"length", std::to_string(length)}};
}

nlohmann::json complete_upload_body(const std::string& file_id, const std::string& file_name, const std::string& channel_id,
                                    const std::string& thread_ts, const std::string& caption) {
  nlohmann::json b = {{"files", nlohmann::json::array({{{"id", file_id}, {"title", file_name}}})}, {"channel_id", channel_id}};
  if (!thread_ts.empty()) b["thread_ts"] = thread_ts;
  if (!caption.empty()) b["initial_comment"] = caption;
  return b;
}

bool slack_is_user_id(const std::string& chat_id) {
  return chat_id.size() > 1 && (chat_id[0] == 'U' || chat_id[0] == 'W');
}

}  // namespace pincer::channels::slack
