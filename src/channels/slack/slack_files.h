// Slack files out (SPEC CH-1 "media out", Channel::send_media): the three steps of Slack's
// external upload (https://api.slack.com/methods/files.getUploadURLExternal) — getUploadURLExternal
// {filename, length} (form-encoded) → {upload_url, file_id}; POST the bytes to upload_url; then
// files.completeUploadExternal {files:[{id, title}], channel_id, thread_ts?, initial_comment?},
// which shares the file in the conversation (in a thread with thread_ts) with the caption as its
// message. Pure request shapes here; the calls in slack_channel_files.cpp.
//
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace pincer::channels::slack {

/// The largest file Pincer uploads to Slack, bytes: OpenClaw's `mediaMaxMb` default (20 MB).
inline constexpr std::size_t kSlackMediaMaxBytes = 20u * 1024 * 1024;

/// files.getUploadURLExternal's form fields: filename, length (decimal bytes).
std::vector<std::pair<std::string, std::string>> upload_url_fields(const std::string& file_name, std::size_t length);

/// files.completeUploadExternal {files:[{id: file_id, title: file_name}], channel_id, thread_ts
/// (when not ""), initial_comment (the caption, when not "")}.
nlohmann::json complete_upload_body(const std::string& file_id, const std::string& file_name, const std::string& channel_id,
                                    const std::string& thread_ts, const std::string& caption);

/// Whether `chat_id` names a Slack user ("U…" / "W…") rather than a conversation: a file for them
/// goes to their DM, opened with conversations.open first.
bool slack_is_user_id(const std::string& chat_id);

}  // namespace pincer::channels::slack
