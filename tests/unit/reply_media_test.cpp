// Files in an agent's reply (SPEC CH-1 "media out"): the `MEDIA:` directive parser
// (delivery/media_directives.h), the roots a file may come from (channels/reply_media.h), and the
// reply delivery sending text then files through the outbox — with a notice, never a silent drop,
// when a file cannot go. Real files in a temporary workspace, a real event loop and outbox; the
// channel is a recording stand-in for a platform. And the multipart/form-data bodies uploads use.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "channels/outbox.h"
#include "channels/reply_delivery.h"
#include "channels/reply_media.h"
#include "core/ids.h"
#include "core/multipart_form.h"
#include "delivery/media_directives.h"

namespace pincer::channels {
namespace {

using delivery::split_media_directives;
using Refs = std::vector<std::string>;

TEST(MediaDirectives, ALineOfItsOwnIsADirectiveAndLeavesTheText) {
  auto s = split_media_directives("Here is the chart.\nMEDIA: ./out/chart.png\n");
  EXPECT_EQ(s.text, "Here is the chart.");
  EXPECT_EQ(s.references, Refs{"./out/chart.png"});
  s = split_media_directives("  media:/tmp/a.png\nafter");
  EXPECT_EQ(s.text, "after");
  EXPECT_EQ(s.references, Refs{"/tmp/a.png"});
}

TEST(MediaDirectives, ProseAndCodeAreText) {
  const std::string prose = "The MEDIA: tag fails to deliver";
  auto s = split_media_directives(prose);
  EXPECT_EQ(s.text, prose);
  EXPECT_TRUE(s.references.empty());
  const std::string code = "Use it like this:\n```\nMEDIA: ./x.png\n```\n";
  s = split_media_directives(code);
  EXPECT_EQ(s.text, code);
  EXPECT_TRUE(s.references.empty());
  s = split_media_directives("MEDIA:\nrest");  // nothing named: kept as written
  EXPECT_EQ(s.text, "MEDIA:\nrest");
}

TEST(MediaDirectives, QuotesSpacesAndSeveralReferences) {
  auto s = split_media_directives("MEDIA: \"reports/Q3 summary.pdf\"");
  EXPECT_EQ(s.references, Refs{"reports/Q3 summary.pdf"});
  s = split_media_directives("MEDIA: /home/me/My File.png");
  EXPECT_EQ(s.references, Refs{"/home/me/My File.png"});
  s = split_media_directives("MEDIA: /a.png ./b.pdf 'c d.txt' `e.csv`");
  EXPECT_EQ(s.references, (Refs{"/a.png", "./b.pdf", "c d.txt", "e.csv"}));
  s = split_media_directives("MEDIA: file:///tmp/x.png");
  EXPECT_EQ(s.references, Refs{"/tmp/x.png"});
  s = split_media_directives("MEDIA: \"unclosed.png");
  EXPECT_EQ(s.references, Refs{"\"unclosed.png"});
}

TEST(MediaDirectives, AtMostTenPerReply) {
  std::string text;
  for (int i = 0; i < 12; ++i) text += "MEDIA: f" + std::to_string(i) + ".png\n";
  text += "MEDIA: ./" + std::string(5000, 'x') + ".png\n";
  auto s = split_media_directives(text);
  EXPECT_EQ(s.references.size(), delivery::kMaxMediaDirectives);
  EXPECT_EQ(s.dropped, 3u);
  EXPECT_EQ(s.text, "");
}

class ReplyMediaFiles : public ::testing::Test {
 protected:
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("pincer-replymedia-" + ids::uuid_v4());
  std::filesystem::path workspace = dir / "workspace";
  std::filesystem::path media = dir / "media";
  std::filesystem::path outside = dir / "outside";
  MediaRoots roots{workspace, {media}};

  void SetUp() override {
    for (const auto& d : {workspace, media, outside, workspace / "out"}) std::filesystem::create_directories(d);
    write(workspace / "out" / "chart.png", png());
    write(workspace / "notes.pdf", "%PDF-1.4 fake");
    write(workspace / "data.weird", "abc");
    write(media / "in.png", png());
    write(outside / "secret.txt", "secret");
    std::filesystem::create_symlink(outside / "secret.txt", workspace / "link.txt");
  }
  void TearDown() override { std::filesystem::remove_all(dir); }

  static std::string png() { return std::string("\x89PNG\r\n\x1a\n", 8) + std::string(32, '\0'); }
  static void write(const std::filesystem::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
  }
};

TEST_F(ReplyMediaFiles, FilesBeneathTheRootsAreAccepted) {
  auto r = resolve_reply_media(roots, "out/chart.png", 1000);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->relative, "out/chart.png");
  EXPECT_EQ(r->file_name, "chart.png");
  r = resolve_reply_media(roots, (workspace / "notes.pdf").string(), 1000);
  ASSERT_TRUE(r) << r.error().message;
  r = resolve_reply_media(roots, (media / "in.png").string(), 1000);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(std::filesystem::path(r->root), std::filesystem::canonical(media));

  auto image = load_reply_media(*resolve_reply_media(roots, "./out/chart.png", 1000), 1000);
  ASSERT_TRUE(image) << image.error().message;
  EXPECT_EQ(image->kind, "image");
  EXPECT_EQ(image->mime_type, "image/png");
  EXPECT_EQ(image->bytes, png());
  auto pdf = load_reply_media(*resolve_reply_media(roots, "notes.pdf", 1000), 1000);
  ASSERT_TRUE(pdf);
  EXPECT_EQ(pdf->kind, "file");
  EXPECT_EQ(pdf->mime_type, "application/pdf");
  auto other = load_reply_media(*resolve_reply_media(roots, "data.weird", 1000), 1000);
  ASSERT_TRUE(other);
  EXPECT_EQ(other->mime_type, "application/octet-stream");
}

TEST_F(ReplyMediaFiles, NothingOutsideTheRootsIsRead) {
  for (const std::string& ref : {std::string("/etc/passwd"), std::string("../outside/secret.txt"),
                                (outside / "secret.txt").string(), std::string("link.txt")}) {
    auto r = resolve_reply_media(roots, ref, 1000);
    ASSERT_FALSE(r) << ref;
    EXPECT_EQ(r.error().code, "MEDIA_REFUSED") << ref;
    EXPECT_EQ(r.error().message, "outside the workspace and the media folder") << ref;
  }
  auto url = resolve_reply_media(roots, "https://example.com/a.png", 1000);
  ASSERT_FALSE(url);
  EXPECT_EQ(url.error().message, "URLs are not fetched");
  auto missing = resolve_reply_media(roots, "nope.png", 1000);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "MEDIA_MISSING");
  auto directory = resolve_reply_media(roots, "out", 1000);
  ASSERT_FALSE(directory);
  EXPECT_EQ(directory.error().message, "not a regular file");
  auto big = resolve_reply_media(roots, "out/chart.png", 10);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message, "40 bytes, over the 10 bytes limit");
  EXPECT_FALSE(resolve_reply_media(MediaRoots{}, "out/chart.png", 1000));  // no roots: nothing
}

/// A platform stand-in that records texts and files; fails the calls listed in `fail_with`.
class MediaRecordingChannel final : public Channel {
 public:
  explicit MediaRecordingChannel(bool media_out) : media_out_(media_out) {}
  const std::string& id() const override { return id_; }
  const std::string& account_id() const override { return account_; }
  ChannelCapabilities capabilities() const override {
    ChannelCapabilities c;
    c.format = delivery::TextFormat::Plain;
    c.media_out = media_out_;
    c.media_max_bytes = 1000;
    return c;
  }
  void start(ChannelHost&, std::function<void(const std::string&)>) override {}
  void stop() override {}
  void send_text(const OutboundMessage& m, std::function<void(Result<std::string>)> done) override {
    const int call = calls++;
    if (auto f = fail_with.find(call); f != fail_with.end()) return done(f->second);
    log.push_back("text:" + m.text);
    done(std::to_string(call));
  }
  void send_media(const OutboundMedia& m, std::function<void(Result<std::string>)> done) override {
    const int call = calls++;
    if (auto f = fail_with.find(call); f != fail_with.end()) return done(f->second);
    log.push_back("media:" + m.media.file_name + ":" + m.media.mime_type + ":" + std::to_string(m.media.bytes.size()));
    done(std::to_string(call));
  }
  nlohmann::json status() const override { return nlohmann::json::object(); }

  std::vector<std::string> log;
  std::map<int, Error> fail_with;
  int calls = 0;

 private:
  bool media_out_;
  std::string id_ = "test", account_ = "default";
};

class ReplyMediaDelivery : public ReplyMediaFiles {
 protected:
  std::filesystem::path outbox_file = dir / "outbox.jsonl";

  /// Delivers `markdown` with the test roots and runs the loop until the reply is finished.
  void deliver(EventLoop& loop, ReplyDelivery& delivery, Channel& channel, const std::string& markdown) {
    loop.post([&] {
      DeliverOptions options;
      options.media_roots = roots;
      options.on_done = [&loop] { loop.stop(); };
      ASSERT_TRUE(delivery.deliver(channel, "run-m", "chat", "", markdown, std::move(options)));
    });
    loop.run();
  }
};

TEST_F(ReplyMediaDelivery, TextThenEachFileInOrder) {
  EventLoop loop;
  Outbox outbox(outbox_file);
  MediaRecordingChannel channel(true);
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  deliver(loop, delivery, channel, "Two files.\nMEDIA: out/chart.png\nMEDIA: notes.pdf\nMEDIA: /etc/passwd");
  EXPECT_EQ(channel.log, (Refs{"text:Two files.\n\n[file passwd not sent: outside the workspace and the media folder]",
                               "media:chart.png:image/png:40", "media:notes.pdf:application/pdf:13"}));
  EXPECT_TRUE(outbox.pending().empty());
}

TEST_F(ReplyMediaDelivery, AChannelWithoutFilesGetsANotice) {
  EventLoop loop;
  Outbox outbox(outbox_file);
  MediaRecordingChannel channel(false);
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  deliver(loop, delivery, channel, "MEDIA: out/chart.png");
  EXPECT_EQ(channel.log, Refs{"text:[file chart.png not sent: test cannot send files]"});
}

TEST_F(ReplyMediaDelivery, WordsAfterAPathContinueIt) {
  EventLoop loop;
  Outbox outbox(outbox_file);
  MediaRecordingChannel channel(true);
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  deliver(loop, delivery, channel, "Files:\nMEDIA: out/chart.png notes.pdf");
  // "notes.pdf" continues the first path (a name may hold spaces): two files need quotes or two lines.
  EXPECT_EQ(channel.log, (Refs{"text:Files:\n\n[file chart.png notes.pdf not sent: no such file]"}));
}

TEST_F(ReplyMediaDelivery, ARefusedUploadIsANoticeAndAnUnavailableOneIsRetried) {
  EventLoop loop;
  Outbox outbox(outbox_file);
  MediaRecordingChannel channel(true);
  channel.fail_with = {{1, Error{"REJECTED", "file type not allowed"}}, {3, Error{"UNAVAILABLE", "503"}}};
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  delivery.set_retry_timing(1, 1000);
  deliver(loop, delivery, channel, "Files:\nMEDIA: out/chart.png\nMEDIA: notes.pdf");
  // call 1 (chart) refused → a notice (call 2); call 3 (pdf) unavailable → retried (call 4).
  EXPECT_EQ(channel.log, (Refs{"text:Files:", "text:[file chart.png not sent: file type not allowed]",
                               "media:notes.pdf:application/pdf:13"}));
  EXPECT_EQ(channel.calls, 5);
}

TEST_F(ReplyMediaDelivery, ARestartSendsOnlyTheFilesNotYetSent) {
  {
    Outbox outbox(outbox_file);
    OutboxEntry e{"run-r", "test", "default", "chat", "", {"text"}, 0, "",
                  {*resolve_reply_media(roots, "out/chart.png", 1000), *resolve_reply_media(roots, "notes.pdf", 1000)}};
    ASSERT_TRUE(outbox.queue(e));
    ASSERT_TRUE(outbox.mark_sent("run-r", 0));
    ASSERT_TRUE(outbox.mark_sent("run-r", 1));  // the text and the chart went out, then the process died
  }
  EventLoop loop;
  Outbox outbox(outbox_file);
  auto left = outbox.load();
  ASSERT_TRUE(left) << left.error().message;
  ASSERT_EQ(left->size(), 1u);
  ASSERT_EQ((*left)[0].media.size(), 2u);
  MediaRecordingChannel channel(true);
  ReplyDelivery delivery(loop, outbox, [&](const std::string&, const std::string&) -> Channel* { return &channel; });
  delivery.resume();  // posts the send; this channel answers at once, so the reply is done a turn later
  loop.post([&loop] { loop.post([&loop] { loop.stop(); }); });
  loop.run();
  EXPECT_EQ(channel.log, Refs{"media:notes.pdf:application/pdf:13"});
}

}  // namespace
}  // namespace pincer::channels

namespace pincer::net {
namespace {

TEST(MultipartForm, FieldsAndFilesWithABoundaryFoundInNoPart) {
  const std::string bytes("\x00\x01--\r\n\xff", 7);
  const MultipartBody form = build_multipart_form({{"chat_id", "42"}, {"photo", bytes, "a \"b\".png", "image/png"}});
  const std::string prefix = "multipart/form-data; boundary=";
  ASSERT_TRUE(form.content_type.starts_with(prefix));
  const std::string boundary = form.content_type.substr(prefix.size());
  EXPECT_EQ(form.body, "--" + boundary + "\r\nContent-Disposition: form-data; name=\"chat_id\"\r\n\r\n42\r\n--" + boundary +
                           "\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a %22b%22.png\"\r\n"
                           "Content-Type: image/png\r\n\r\n" + bytes + "\r\n--" + boundary + "--\r\n");
  EXPECT_EQ(bytes.find(boundary), std::string::npos);
}

}  // namespace
}  // namespace pincer::net
