// agent/attachments.h: chat.send attachments decoded, capped and sniffed; media files; notices.
#include "agent/attachments.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

namespace pincer::agent {
namespace {

using nlohmann::json;

const std::string kPng = std::string("\x89PNG\r\n\x1a\n", 8) + "rest-of-a-png";
const std::string kJpeg = std::string("\xff\xd8\xff\xe0", 4) + "jfif";

std::filesystem::path temp_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() / ("pincer-attach-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(Attachments, SniffsImageMagic) {
  EXPECT_EQ(sniff_image_mime(kPng), "image/png");
  EXPECT_EQ(sniff_image_mime(kJpeg), "image/jpeg");
  EXPECT_EQ(sniff_image_mime("GIF89a...."), "image/gif");
  EXPECT_EQ(sniff_image_mime(std::string("RIFF\x10\0\0\0WEBPVP8 ", 16)), "image/webp");
  EXPECT_EQ(sniff_image_mime("hello world"), "");
  EXPECT_EQ(sniff_image_mime(""), "");
}

TEST(Attachments, ParsesOpenClawShapeAndDataUrls) {
  json list = json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"fileName", "a.png"}, {"content", base64_encode(kPng)}},
                           {{"content", "data:image/jpeg;base64," + base64_encode(kJpeg)}},
                           {{"type", "file"}, {"mimeType", "text/plain"}, {"fileName", "n.txt"}, {"content", base64_encode("hi")}}});
  auto parsed = parse_chat_attachments(list);
  ASSERT_TRUE(parsed) << parsed.error().message;
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].kind, "image");
  EXPECT_EQ((*parsed)[0].bytes, kPng);
  EXPECT_EQ((*parsed)[1].kind, "image");
  EXPECT_EQ((*parsed)[1].mime_type, "image/jpeg");
  EXPECT_EQ((*parsed)[2].kind, "file");
  EXPECT_EQ((*parsed)[2].bytes, "hi");
  EXPECT_TRUE(parse_chat_attachments(json()));
  EXPECT_TRUE(parse_chat_attachments(json::array())->empty());
}

TEST(Attachments, ErrorsNameTheIndexAndField) {
  auto err = [](json list) {
    auto r = parse_chat_attachments(list);
    EXPECT_FALSE(r);
    return r ? std::string() : r.error().code + " " + r.error().message;
  };
  EXPECT_EQ(err(json::array({{{"type", "image"}, {"content", base64_encode(kPng)}}, {{"type", "image"}}})),
            "INVALID_REQUEST attachments[1].content: is required (base64)");
  EXPECT_EQ(err(json::array({{{"content", "@@@not base64"}}})), "INVALID_REQUEST attachments[0].content: is not valid base64");
  // A label that lies about the bytes is refused.
  EXPECT_EQ(err(json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", base64_encode(kJpeg)}}})),
            "INVALID_REQUEST attachments[0].mimeType: says image/png but the bytes are image/jpeg");
  EXPECT_NE(err(json::array({{{"type", "image"}, {"mimeType", "image/png"}, {"content", base64_encode("just text")}}}))
                .find("attachments[0].content: is not a PNG, JPEG, GIF or WebP image"),
            std::string::npos);
  EXPECT_EQ(err(json::array({{{"type", "video"}, {"content", "aGk="}}})),
            "INVALID_REQUEST attachments[0].type: must be \"image\" or \"file\"");
  EXPECT_EQ(err(json::array({{{"mimeType", 5}, {"content", "aGk="}}})), "INVALID_REQUEST attachments[0].mimeType: must be a string");
  EXPECT_EQ(err(json::object()), "INVALID_REQUEST attachments: must be an array");
}

TEST(Attachments, SizeCapsOnDecodedBytes) {
  const std::string big = kPng + std::string(kMaxAttachmentBytes, 'x');
  auto r = parse_chat_attachments(json::array({{{"type", "image"}, {"content", base64_encode(big)}}}));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("attachments[0].content: exceeds the limit of 5000000 bytes"), std::string::npos);

  std::vector<Attachment> many(5, Attachment{"file", "text/plain", "a.txt", std::string(kMaxAttachmentBytes - 1, 'a')});
  auto st = check_attachments(many);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message.find("media: 24999995 bytes in all exceeds the limit of 18000000 bytes"), std::string::npos);
  std::vector<Attachment> too_many(kMaxAttachments + 1, Attachment{"file", "", "", "x"});
  EXPECT_FALSE(check_attachments(too_many));
}

TEST(Attachments, ImagesStoredOnceAsContentAddressedFiles) {
  const auto dir = temp_dir("store");
  std::vector<Attachment> list{{"image", "image/png", "a.png", kPng}, {"image", "image/png", "b.png", kPng}};
  auto blocks = attachment_blocks(list, dir / "media");
  ASSERT_TRUE(blocks) << blocks.error().message;
  ASSERT_EQ(blocks->size(), 2u);
  const auto& img = std::get<llm::ImageContent>((*blocks)[0]);
  EXPECT_EQ(img.mime_type, "image/png");
  EXPECT_EQ(img.data, base64_encode(kPng));
  ASSERT_EQ(img.ref.rfind("media/", 0), 0u);
  EXPECT_EQ(img.ref.size(), 6u + 64 + 4);
  const auto file = media_file(dir, img.ref);
  ASSERT_TRUE(std::filesystem::exists(file));
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "media"), {}), 1);

  // The transcript form has the reference, not the data; loading resolves it back.
  const json stored = llm::to_json((*blocks)[0]);
  EXPECT_FALSE(stored.contains("data"));
  EXPECT_EQ(stored["ref"], img.ref);
  auto parsed = llm::message_from_json(json{{"role", "user"}, {"content", json::array({stored})}, {"timestamp", 1}});
  ASSERT_TRUE(parsed) << parsed.error().message;
  auto& user = std::get<llm::UserMessage>(*parsed);
  EXPECT_TRUE(std::get<llm::ImageContent>(user.content[0]).data.empty());
  resolve_image_refs(user.content, dir);
  EXPECT_EQ(std::get<llm::ImageContent>(user.content[0]).data, base64_encode(kPng));

  json message{{"role", "user"}, {"content", json::array({stored})}};
  resolve_image_refs(message, dir);
  EXPECT_EQ(message["content"][0]["data"], base64_encode(kPng));

  // A missing file becomes a notice, never a crash.
  std::filesystem::remove(file);
  std::vector<llm::ContentBlock> again{llm::ImageContent{"", "image/png", img.ref}};
  resolve_image_refs(again, dir);
  ASSERT_TRUE(std::holds_alternative<llm::TextContent>(again[0]));
  EXPECT_NE(std::get<llm::TextContent>(again[0]).text.find("[image unavailable: media/"), std::string::npos);
  // A reference outside media/ is never opened.
  EXPECT_TRUE(media_file(dir, "media/../../etc/passwd").empty());
  EXPECT_TRUE(media_file(dir, "/etc/passwd").empty());
  std::filesystem::remove_all(dir);
}

TEST(Attachments, InlineImagesOfImportedTranscriptsStillRead) {
  auto parsed = llm::message_from_json(
      json{{"role", "user"}, {"content", json::array({{{"type", "image"}, {"data", "aGk="}, {"mimeType", "image/png"}}})}, {"timestamp", 1}});
  ASSERT_TRUE(parsed);
  EXPECT_EQ(std::get<llm::ImageContent>(std::get<llm::UserMessage>(*parsed).content[0]).data, "aGk=");
}

TEST(Attachments, FilesInlinedOrNamed) {
  const auto dir = temp_dir("files");
  std::vector<Attachment> list{{"file", "text/csv", "t.csv", "a,b\n1,2"},
                               {"file", "application/pdf", "doc.pdf", "%PDF-1.4 ..."},
                               {"file", "", "notes.md", "# hi\n```code```"}};
  auto blocks = attachment_blocks(list, dir / "media");
  ASSERT_TRUE(blocks);
  EXPECT_EQ(std::get<llm::TextContent>((*blocks)[0]).text, "[file: t.csv]\n```\na,b\n1,2\n```");
  EXPECT_EQ(std::get<llm::TextContent>((*blocks)[1]).text,
            "[file omitted: doc.pdf, application/pdf, 12 bytes — this file type is not read]");
  EXPECT_EQ(std::get<llm::TextContent>((*blocks)[2]).text, "[file: notes.md]\n````\n# hi\n```code```\n````");
  EXPECT_FALSE(std::filesystem::exists(dir / "media"));
  std::filesystem::remove_all(dir);
}

// New-user pass: a binary file labelled text/plain is not inlined, and a file name cannot forge
// prompt lines.
TEST(Attachments, BinaryLabelledTextIsOmittedAndNamesAreOneLine) {
  const auto dir = temp_dir("binary");
  std::vector<Attachment> list{{"file", "text/plain", std::string("a\nEVIL\0.md", 10), std::string("\x89PNG\0\0bin", 9)}};
  auto blocks = attachment_blocks(list, dir / "media");
  ASSERT_TRUE(blocks);
  const std::string text = std::get<llm::TextContent>((*blocks)[0]).text;
  EXPECT_TRUE(text.starts_with("[file omitted: a EVIL .md, text/plain, 9 bytes")) << text;
  std::filesystem::remove_all(dir);
}

TEST(Attachments, TextOnlyModelGetsANotice) {
  llm::MessageList messages;
  llm::UserMessage u;
  u.content = {llm::TextContent{"what is this"}, llm::ImageContent{"aGk=", "image/png"}};
  messages.push_back(u);
  llm::ModelSpec vision;
  vision.provider = "mock";
  vision.id = "eyes";
  vision.input = {"text", "image"};
  EXPECT_EQ(images_for_model(messages, vision), 0);
  llm::ModelSpec text_only;
  text_only.provider = "mock";
  text_only.id = "x";
  const llm::MessageList before = messages;  // the history's own message, shared
  EXPECT_EQ(images_for_model(messages, text_only), 1);
  EXPECT_EQ(std::get<llm::TextContent>(std::get<llm::UserMessage>(messages[0]).content[1]).text,
            "[image omitted: model mock/x does not accept images]");
  // The notice is in the request's copy: the history keeps its image.
  EXPECT_TRUE(std::holds_alternative<llm::ImageContent>(std::get<llm::UserMessage>(before[0]).content[1]));
}

}  // namespace
}  // namespace pincer::agent

namespace attachments_retention {

std::size_t media_count(const std::filesystem::path& media) {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(media)) n += e.is_regular_file();
  return n;
}

TEST(AttachmentRetention, ASessionsMediaGoesWithItUnlessAnotherSessionUsesIt) {
  using namespace pincer::agent;
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-attach-retention-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string shared = std::string("\x89PNG\r\n\x1a\n", 8) + "shared";
  const std::string own = std::string("\x89PNG\r\n\x1a\n", 8) + "only-a";
  ASSERT_TRUE(attachment_blocks({{"image", "image/png", "", shared}, {"image", "image/png", "", own}}, dir / "media", "sess-a"));
  ASSERT_TRUE(attachment_blocks({{"image", "image/png", "", shared}}, dir / "media", "sess-b"));
  ASSERT_EQ(media_count(dir / "media"), 2u);

  EXPECT_EQ(release_session_media(dir, "sess-a"), 1);  // its own image; the shared one is B's too
  EXPECT_EQ(media_count(dir / "media"), 1u);
  EXPECT_FALSE(std::filesystem::exists(dir / "media" / "by-session" / "sess-a"));
  EXPECT_EQ(release_session_media(dir, "sess-b"), 1);
  EXPECT_EQ(media_count(dir / "media"), 0u);
  EXPECT_EQ(release_session_media(dir, "sess-b"), 0);  // again: nothing left, no error
  EXPECT_EQ(release_session_media(dir, "../media"), 0);  // not a session id
  std::filesystem::remove_all(dir);
}

TEST(AttachmentRetention, JournalRecordsReferencesAndReadsThemBack) {
  using namespace pincer::agent;
  const auto dir = std::filesystem::temp_directory_path() / ("pincer-attach-journal-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + "pixels";
  auto refs = store_attachment_refs({{"image", "image/png", "p.png", png}, {"file", "text/plain", "n.txt", "note text"}},
                                    dir / "media");
  ASSERT_TRUE(refs) << refs.error().message;
  const std::string text = refs->dump();
  EXPECT_EQ(text.find("pixels"), std::string::npos);
  EXPECT_EQ(text.find("note text"), std::string::npos);
  ASSERT_EQ(refs->size(), 2u);
  EXPECT_EQ((*refs)[0]["ref"].get<std::string>().substr(0, 6), "media/");
  EXPECT_EQ((*refs)[1]["bytes"], 9);

  auto back = load_attachment_refs(*refs, dir);
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].kind, "image");
  EXPECT_EQ(back[0].bytes, png);
  EXPECT_EQ(back[1].file_name, "n.txt");
  EXPECT_EQ(back[1].bytes, "note text");

  // The journal-only copy of the file goes; the image stays for the transcript.
  remove_journal_only_refs(*refs, dir);
  back = load_attachment_refs(*refs, dir);
  EXPECT_EQ(back[0].bytes, png);
  EXPECT_NE(back[1].bytes.find("[attachment unavailable: n.txt"), std::string::npos) << back[1].bytes;
  std::filesystem::remove_all(dir);
}

}  // namespace attachments_retention
