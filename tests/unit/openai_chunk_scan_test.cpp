// Unit tests for the scan of simple Chat Completions chunks (src/llm/openai_chunk_scan.h): every
// chunk it accepts must give the fields a full nlohmann parse gives (read as the decoder reads
// them), it must refuse invalid JSON and the shapes it leaves to the full parse, and it must accept
// the chunks real servers send most.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../fuzz/openai_chunk_reference.h"
#include "llm/openai_chunk_scan.h"

namespace pincer::llm {
namespace {

using nlohmann::json;

/// The fields as openai_completions.cpp reads them from a full parse (shared with the fuzz target).
std::optional<openai_chunk::Fields> from_full_parse(std::string_view data) {
  return openai_chunk::fields_from_full_parse(data);
}

void expect_same(const openai_chunk::Fields& a, const openai_chunk::Fields& b, const std::string& data) {
  EXPECT_EQ(a.id, b.id) << data;
  EXPECT_EQ(a.has_usage, b.has_usage) << data;
  EXPECT_EQ(a.prompt_tokens, b.prompt_tokens) << data;
  EXPECT_EQ(a.completion_tokens, b.completion_tokens) << data;
  EXPECT_EQ(a.cached_tokens, b.cached_tokens) << data;
  EXPECT_EQ(a.has_choice, b.has_choice) << data;
  EXPECT_EQ(a.has_delta, b.has_delta) << data;
  EXPECT_EQ(a.reasoning_content, b.reasoning_content) << data;
  EXPECT_EQ(a.reasoning, b.reasoning) << data;
  EXPECT_EQ(a.content, b.content) << data;
  EXPECT_EQ(a.finish_reason, b.finish_reason) << data;
}

const std::vector<std::string> kAccepted = {
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1733400000,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]})",
    R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1733400000,"model":"m","choices":[{"index":0,"delta":{"content":"Hello "},"finish_reason":null}]})",
    R"({"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})",
    R"({"id":"c","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":7,"total_tokens":127,"prompt_tokens_details":{"cached_tokens":64}}})",
    R"({"id":"c","choices":[],"usage":{"prompt_tokens":-3,"completion_tokens":"7","prompt_tokens_details":null}})",
    R"({"id":"c","choices":[{"delta":{"content":null,"reasoning_content":"think \"hard\"\n\t\\/"},"logprobs":null,"finish_reason":null}],"usage":null})",
    R"( {"id" : 5 , "choices" : [ { "delta" : { "reasoning" : "r" , "content" : "x" } } , 7 , {"delta":{"content":"second"}} ] } )",
    R"({"choices":[3,{"delta":{"content":"not first"}}],"system_fingerprint":"fp","x":[true,false,null,{"a":[[]]},-0,0,12]})",
    R"({"choices":{"0":{"delta":{"content":"not an array"}}},"id":["x"]})",
    R"({"choices":[{"delta":"text","finish_reason":7}]})",
    R"({})",
    "{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"a\\r\\nb\\b\\f\"}}]}\r\n",
};

const std::vector<std::string> kRefused = {
    // invalid JSON
    "", "{", "[]", "\"x\"", "{\"id\":\"c\"", "{\"id\":\"c\"}x", "{\"id\":\"c\",}", "{\"id\" \"c\"}", "{'id':'c'}",
    "{\"a\":01}", "{\"a\":-}", "{\"a\":tru}", "{\"a\":[1,]}", "{\"a\":\"\\x\"}", "{\"a\":\"tab\there\"}",
    "{\"a\":1}{}",
    // left to the full parse
    R"({"error":{"message":"boom"}})", R"({"error":null,"id":"c"})",
    R"({"choices":[{"delta":{"tool_calls":[{"index":0,"id":"call_1","function":{"name":"f","arguments":""}}]}}]})",
    R"({"choices":[{"delta":{"content":"\u00e9"}}]})", "{\"choices\":[{\"delta\":{\"content\":\"caf\xc3\xa9\"}}]}",
    R"({"created":1.5})", R"({"created":1e3})", R"({"usage":{"prompt_tokens":1234567890123456}})",
    R"({"id":"a","id":"b"})", R"({"choices":[{"delta":{"content":"a","content":"b"}}]})",
    R"({"a":[[[[[[[[[1]]]]]]]]]})",
};

TEST(OpenAiChunkScan, AcceptedChunksGiveWhatAFullParseGives) {
  for (const auto& data : kAccepted) {
    auto scanned = openai_chunk::scan(data);
    auto full = from_full_parse(data);
    ASSERT_TRUE(scanned.has_value()) << data;
    ASSERT_TRUE(full.has_value()) << data;
    expect_same(*scanned, *full, data);
  }
}

TEST(OpenAiChunkScan, InvalidJsonAndOtherShapesAreLeftToTheFullParse) {
  for (const auto& data : kRefused) EXPECT_FALSE(openai_chunk::scan(data).has_value()) << data;
}

TEST(OpenAiChunkScan, ReadsTheFieldsOfAUsualStream) {
  auto f = openai_chunk::scan(kAccepted[1]);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->id, "chatcmpl-1");
  EXPECT_EQ(f->content, "Hello ");
  EXPECT_FALSE(f->finish_reason);
  f = openai_chunk::scan(kAccepted[3]);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->has_usage);
  EXPECT_EQ(f->prompt_tokens, 120);
  EXPECT_EQ(f->completion_tokens, 7);
  EXPECT_EQ(f->cached_tokens, 64);
  EXPECT_FALSE(f->has_choice);
  f = openai_chunk::scan(kAccepted[5]);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->reasoning_content, "think \"hard\"\n\t\\/");
}

}  // namespace
}  // namespace pincer::llm
