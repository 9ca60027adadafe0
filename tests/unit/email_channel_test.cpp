// The e-mail channel's pure parts (src/channels/email/email_settings.h, email_channel.h): the
// account settings with errors naming the key, what an inbound e-mail becomes (chat = sender,
// thread = root Message-ID, "Subject:" for a new thread, machine mail and the bot's own mail not
// handed on) and the state file's shape.
#include <gtest/gtest.h>

#include "channels/channel_checks.h"
#include "channels/email/email_channel.h"
#include "channels/email/email_settings.h"

using namespace pincer::channels::email;
using nlohmann::json;
using pincer::channels::ChannelAccount;

namespace {

json email_test_config() {
  return {{"address", "Pincer@Example.org"},
          {"imap", {{"host", "imap.example.org"}, {"password", "secret"}}},
          {"smtp", {{"host", "smtp.example.org"}, {"security", "starttls"}}}};
}

std::string email_test_error(const json& config) {
  auto s = email_settings_of(ChannelAccount{"email", "default", "channels.email", config}, {});
  return s ? std::string() : s.error().message;
}

}  // namespace

TEST(EmailSettings, DefaultsFollowSecurity) {
  auto s = email_settings_of(ChannelAccount{"email", "work", "channels.email.accounts.work", email_test_config()}, "/state");
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->address, "pincer@example.org");
  EXPECT_EQ(s->name, "Pincer");
  EXPECT_EQ(s->imap.port, 993);
  EXPECT_EQ(s->imap.security, "tls");
  EXPECT_EQ(s->imap.user, "pincer@example.org");
  EXPECT_EQ(s->mailbox, "INBOX");
  EXPECT_EQ(s->smtp.port, 587);
  EXPECT_EQ(s->smtp.user, "pincer@example.org");  // imap's login …
  EXPECT_EQ(s->smtp.password, "secret");         // … and password
  EXPECT_EQ(s->state_file, std::filesystem::path("/state/channels/email/work.json"));
}

TEST(EmailSettings, ErrorsNameTheKey) {
  json c = email_test_config();
  c.erase("address");
  EXPECT_EQ(email_test_error(c).rfind("channels.email.address: required", 0), 0u) << email_test_error(c);
  c = email_test_config();
  c["address"] = "Pincer <p@x.org>";
  EXPECT_EQ(email_test_error(c).rfind("channels.email.address: must be a bare e-mail address", 0), 0u);
  c = email_test_config();
  c["imap"].erase("host");
  EXPECT_EQ(email_test_error(c).rfind("channels.email.imap.host: required", 0), 0u);
  c = email_test_config();
  c["imap"].erase("password");
  EXPECT_EQ(email_test_error(c).rfind("channels.email.imap.password: required", 0), 0u);
  c = email_test_config();
  c["smtp"]["security"] = "ssl";
  EXPECT_EQ(email_test_error(c).rfind("channels.email.smtp.security: must be", 0), 0u);
  c = email_test_config();
  c["imap"]["port"] = 70000;
  EXPECT_EQ(email_test_error(c).rfind("channels.email.imap.port", 0), 0u);
}

TEST(EmailSettings, PlainTextOnlyToLoopbackUnlessAllowed) {
  json c = email_test_config();
  c["imap"]["security"] = "none";
  EXPECT_NE(email_test_error(c).find("channels.email.imap.security: \"none\" would send the password unencrypted"), std::string::npos);
  c["allowInsecure"] = true;
  EXPECT_EQ(email_test_error(c), "");
  c = email_test_config();
  c["imap"] = {{"host", "127.0.0.1"}, {"security", "none"}, {"password", "p"}};
  c["smtp"] = {{"host", "localhost"}, {"security", "none"}};
  auto s = email_settings_of(ChannelAccount{"email", "default", "channels.email", c}, {});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->imap.port, 143);
  EXPECT_EQ(s->smtp.port, 25);
  auto checked = pincer::channels::check_account(ChannelAccount{"email", "default", "channels.email", c});
  ASSERT_TRUE(checked) << checked.error().message;
  EXPECT_EQ(*checked, "");
}

TEST(EmailChannel, InboundOfANewThreadCarriesTheSubject) {
  auto settings = email_settings_of(ChannelAccount{"email", "default", "channels.email", email_test_config()}, {});
  ASSERT_TRUE(settings);
  const ParsedEmail mail = parse_email(
      "From: Jane <Jane@Example.net>\nSubject: Dinner plans\nMessage-ID: <m1@example.net>\n"
      "Date: Sun, 6 Dec 2026 01:43:39 +0000\n\nWhere shall we eat?\n");
  std::string why;
  auto in = email_inbound_of(mail, *settings, "<fallback>", 5, why);
  ASSERT_TRUE(in) << why;
  EXPECT_EQ(in->channel, "email");
  EXPECT_FALSE(in->is_group);
  EXPECT_EQ(in->chat_id, "jane@example.net");
  EXPECT_EQ(in->sender_id, "jane@example.net");
  EXPECT_EQ(in->sender_name, "Jane");
  EXPECT_EQ(in->thread_id, "<m1@example.net>");
  EXPECT_EQ(in->message_id, "<m1@example.net>");
  EXPECT_EQ(in->text, "Subject: Dinner plans\n\nWhere shall we eat?");
  EXPECT_EQ(in->ts_ms, 1796521419000);
}

TEST(EmailChannel, InboundOfAReplyIsTheStrippedBodyInTheRootThread) {
  auto settings = email_settings_of(ChannelAccount{"email", "default", "channels.email", email_test_config()}, {});
  ASSERT_TRUE(settings);
  const ParsedEmail reply = parse_email(
      "From: jane@example.net\nSubject: Re: Dinner plans\nReferences: <m1@example.net> <bot1@example.org>\n"
      "In-Reply-To: <bot1@example.org>\n\nThe Thai place.\n\nOn Sun, Pincer wrote:\n> Where?\n");
  std::string why;
  auto in = email_inbound_of(reply, *settings, "<7.1@pincer.invalid>", 5, why);
  ASSERT_TRUE(in) << why;
  EXPECT_EQ(in->thread_id, "<m1@example.net>");
  EXPECT_EQ(in->message_id, "<7.1@pincer.invalid>");  // no Message-ID: the fallback
  EXPECT_EQ(in->text, "The Thai place.");
  EXPECT_EQ(in->ts_ms, 5);
}

TEST(EmailChannel, MachineOwnAndEmptyMailIsNotHandedOn) {
  auto settings = email_settings_of(ChannelAccount{"email", "default", "channels.email", email_test_config()}, {});
  ASSERT_TRUE(settings);
  std::string why;
  EXPECT_FALSE(email_inbound_of(parse_email("From: MAILER-DAEMON@mx.example\n\nbounce\n"), *settings, "<f>", 0, why));
  EXPECT_NE(why.find("machine"), std::string::npos);
  EXPECT_FALSE(email_inbound_of(parse_email("From: pincer@example.org\n\nloop\n"), *settings, "<f>", 0, why));
  EXPECT_EQ(why, "sent from the bot's own address");
  EXPECT_FALSE(email_inbound_of(parse_email("From: a@b.example\nIn-Reply-To: <x@y>\n\n> only a quote\n"), *settings, "<f>", 0, why));
  EXPECT_NE(why.find("no text"), std::string::npos);
}

TEST(EmailChannel, AttachmentsGoOnAsMediaAndTheRefusedOnesAreNamedWithWhy) {
  auto settings = email_settings_of(ChannelAccount{"email", "default", "channels.email", email_test_config()}, {});
  ASSERT_TRUE(settings);
  ParsedEmail mail = parse_email("From: jane@example.net\nSubject: scans\nMessage-ID: <s@example.net>\n\n");
  const std::string jpeg = std::string("\xff\xd8\xff\xe0", 4) + "JFIF rest";
  mail.attachments = {{"scan.jpg", "image/jpeg", jpeg.size(), jpeg},
                      {"notes.txt", "text/plain", 5, "hello"},
                      {"big.zip", "application/zip", 6'000'000, ""},  // over the cap: the parser kept no bytes
                      {"fake.png", "image/png", 9, "not a png"}};
  std::string why;
  auto in = email_inbound_of(mail, *settings, "<f>", 0, why);
  ASSERT_TRUE(in) << why;
  ASSERT_EQ(in->media.size(), 2u);
  EXPECT_EQ(in->media[0].kind, "image");
  EXPECT_EQ(in->media[0].mime_type, "image/jpeg");
  EXPECT_EQ(in->media[0].file_name, "scan.jpg");
  EXPECT_EQ(in->media[0].bytes, jpeg);
  EXPECT_EQ(in->media[1].kind, "file");
  EXPECT_EQ(in->media[1].bytes, "hello");
  EXPECT_EQ(in->text,
            "Subject: scans\n\n"
            "[attachment big.zip (application/zip, 5.7 MB): not passed on — over the limit of 5000000 bytes per file]\n"
            "[attachment fake.png (image/png, 9 bytes): not passed on — is not a PNG, JPEG, GIF or WebP image (labelled "
            "image/png)]");

  // A reply that is only an image: handed on with no text, the image its message.
  ParsedEmail reply = parse_email("From: jane@example.net\nIn-Reply-To: <m1@x>\n\n");
  reply.attachments = {{"photo.jpg", "image/jpeg", jpeg.size(), jpeg}};
  auto only = email_inbound_of(reply, *settings, "<g>", 0, why);
  ASSERT_TRUE(only) << why;
  EXPECT_EQ(only->text, "");
  EXPECT_EQ(only->media.size(), 1u);

  // More files than a message may carry: the rest are named.
  std::vector<EmailAttachment> many(pincer::agent::kMaxAttachments + 1, EmailAttachment{"f.txt", "text/plain", 1, "x"});
  const EmailMedia m = email_media_of(many);
  EXPECT_EQ(m.media.size(), pincer::agent::kMaxAttachments);
  EXPECT_EQ(m.note, "[attachment f.txt (text/plain, 1 bytes): not passed on — over the limit of 10 files per message]");
}

TEST(EmailChannel, StateRoundTrip) {
  EmailState s;
  s.uid_validity = 1733450000;
  s.last_uid = 42;
  s.threads["<m1@x>"] = EmailThread{"Dinner", "<m3@x>", {"<m1@x>", "<b2@y>", "<m3@x>"}, 99};
  const EmailState back = email_state_from_json(json::parse(email_state_to_json(s).dump()));
  EXPECT_EQ(back.uid_validity, 1733450000u);
  EXPECT_EQ(back.last_uid, 42u);
  ASSERT_EQ(back.threads.count("<m1@x>"), 1u);
  EXPECT_EQ(back.threads.at("<m1@x>").last_message_id, "<m3@x>");
  EXPECT_EQ(back.threads.at("<m1@x>").references.size(), 3u);
  EXPECT_EQ(email_state_from_json(json::parse("{\"lastUid\":\"x\",\"threads\":[1]}")).last_uid, 0u);
}
