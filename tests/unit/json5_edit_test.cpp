// json5_edit: comment-preserving set/unset on JSON5 text (src/core/json5_edit.h). Each table row
// gives the input text, the edit and the exact expected text; every row is also checked to
// re-parse to the expected document.
#include <gtest/gtest.h>

#include "core/json5.h"
#include "core/json5_edit.h"

namespace pincer::json5 {
namespace {

using nlohmann::json;

struct SetCase {
  const char* name;
  const char* text;
  const char* path;
  const char* value;  // JSON5
  const char* expected;
};

const SetCase kSetCases[] = {
    {"replace scalar keeps comments", "// top\n{\n  a: 1, // one\n  b: 'x', /* two */\n}\n", "a", "2",
     "// top\n{\n  a: 2, // one\n  b: 'x', /* two */\n}\n"},
    {"replace nested string, single-quote style", "{\n  gateway: {\n    auth: { token: 'old' },\n  },\n}\n",
     "gateway.auth.token", "'new'", "{\n  gateway: {\n    auth: { token: 'new' },\n  },\n}\n"},
    {"insert after last member with trailing comma", "{\n  a: 1, // keep\n  b: 2,\n}\n", "c", "3",
     "{\n  a: 1, // keep\n  b: 2,\n  c: 3,\n}\n"},
    {"insert without trailing comma (strict JSON)", "{\n    \"a\": 1,\n    \"b\": 2\n}\n", "c", "\"x\"",
     "{\n    \"a\": 1,\n    \"b\": 2,\n    \"c\": \"x\"\n}\n"},
    {"insert after a line comment", "{\n  a: 1 // note\n}\n", "b", "true", "{\n  a: 1, // note\n  b: true\n}\n"},
    {"insert creates intermediate objects", "{\n  gateway: {\n    port: 1,\n  },\n}\n", "gateway.auth.token", "'t'",
     "{\n  gateway: {\n    port: 1,\n    auth: {\n      token: \"t\",\n    },\n  },\n}\n"},
    {"insert into empty object opens it", "{\n  models: {\n    providers: {},\n  },\n}\n", "models.providers.x.baseUrl",
     "'u'", "{\n  models: {\n    providers: {\n      x: {\n        baseUrl: \"u\",\n      },\n    },\n  },\n}\n"},
    {"insert into inline object", "{ a: 1, b: 2 }", "c", "3", "{ a: 1, b: 2, c: 3 }"},
    {"insert into inline object with trailing comma", "{ a: 1, }", "c", "3", "{ a: 1, c: 3, }"},
    {"insert into root {}", "{}", "a", "1", "{\n  \"a\": 1\n}"},
    {"insert into empty object holding a comment", "{\n  // nothing yet\n}\n", "a", "1",
     "{\n  // nothing yet\n  a: 1\n}\n"},
    {"quoted keys when the file quotes keys", "{\"a\": {}}", "a.b-c", "1", "{\"a\": {\n  \"b-c\": 1\n}}"},
    {"key needing quotes in an unquoted file", "{\n  a: 1,\n}\n", "[\"x.y\"]", "1",
     "{\n  a: 1,\n  \"x.y\": 1,\n}\n"},
    {"tab indentation is copied", "{\n\ta: {\n\t\tb: 1\n\t}\n}\n", "a.c", "{d: 2}",
     "{\n\ta: {\n\t\tb: 1,\n\t\tc: {\n\t\t\td: 2\n\t\t}\n\t}\n}\n"},
    {"array index replaces", "{ list: [1, 2, 3] }", "list[1]", "'two'", "{ list: [1, \"two\", 3] }"},
    {"array index == size appends", "{\n  list: [\n    'a',\n  ],\n}\n", "list[1]", "'b'",
     "{\n  list: [\n    'a',\n    'b',\n  ],\n}\n"},
    {"index into missing array creates it", "{\n  agents: {},\n}\n", "agents.list[0].id", "'main'",
     "{\n  agents: {\n    list: [\n      {\n        id: \"main\",\n      },\n    ],\n  },\n}\n"},
    {"object value replaces, multi-line", "{\n  a: 1,\n  b: { old: true }, // c\n}\n", "b", "{x: 1, y: [1, 2]}",
     "{\n  a: 1,\n  b: {\n    x: 1,\n    y: [1, 2],\n  }, // c\n}\n"},
    {"duplicate keys: the last one is edited", "{ a: 1, a: 2 }", "a", "3", "{ a: 1, a: 3 }"},
    {"CRLF line endings kept", "{\r\n  a: 1\r\n}\r\n", "b", "2", "{\r\n  a: 1,\r\n  b: 2\r\n}\r\n"},
    {"special numbers", "{ a: 1 }", "a", "-Infinity", "{ a: -Infinity }"},
    {"string escapes", "{ a: 1 }", "a", "'line\\nbreak \"q\" \\u2028'",
     "{ a: \"line\\nbreak \\\"q\\\" \\u2028\" }"},
    {"root array", "[1]", "[1]", "2", "[1, 2]"},
};

class SetTable : public ::testing::TestWithParam<SetCase> {};

TEST_P(SetTable, ProducesExactText) {
  const SetCase& c = GetParam();
  auto value = parse(c.value);
  ASSERT_TRUE(value) << value.error().message;
  auto out = set(c.text, c.path, *value);
  ASSERT_TRUE(out) << out.error().code << ": " << out.error().message;
  EXPECT_EQ(*out, c.expected);
  auto expected_doc = apply_set(*parse(c.text), *parse_path(c.path), *value);
  ASSERT_TRUE(expected_doc);
  EXPECT_TRUE(same_json(*parse(*out), *expected_doc));
}

INSTANTIATE_TEST_SUITE_P(Json5Edit, SetTable, ::testing::ValuesIn(kSetCases),
                         [](const auto& info) {
                           std::string name;
                           for (const char* p = info.param.name; *p; ++p) name += std::isalnum(*p) ? *p : '_';
                           return name;
                         });

struct UnsetCase {
  const char* name;
  const char* text;
  const char* path;
  const char* expected;
};

const UnsetCase kUnsetCases[] = {
    {"member with its comment lines", "{\n  a: 1,\n  // about b\n  // more\n  b: 2, // trailing\n  c: 3,\n}\n", "b",
     "{\n  a: 1,\n  c: 3,\n}\n"},
    {"blank line stops the comment block", "{\n  // section\n\n  // about b\n  b: 2,\n  c: 3,\n}\n", "b",
     "{\n  // section\n\n  c: 3,\n}\n"},
    {"last member without trailing comma drops the previous comma", "{\n  \"a\": 1,\n  \"b\": 2\n}", "b",
     "{\n  \"a\": 1\n}"},
    {"last member with trailing comma", "{\n  a: 1,\n  b: 2,\n}", "b", "{\n  a: 1,\n}"},
    {"only member closes the object", "{\n  gateway: {\n    port: 1,\n  },\n}\n", "gateway.port",
     "{\n  gateway: {},\n}\n"},
    {"inline first", "{ a: 1, b: 2 }", "a", "{ b: 2 }"},
    {"inline last", "{ a: 1, b: 2 }", "b", "{ a: 1 }"},
    {"inline last with trailing comma", "{ a: 1, b: 2, }", "b", "{ a: 1, }"},
    {"inline only", "{ a: 1 }", "a", "{}"},
    {"array element", "{ list: [1, 2, 3] }", "list[1]", "{ list: [1, 3] }"},
    {"multi-line array element", "{\n  list: [\n    'a',\n    'b',\n  ],\n}\n", "list[0]",
     "{\n  list: [\n    'b',\n  ],\n}\n"},
    {"duplicate keys all removed", "{\n  a: 1,\n  b: 2,\n  a: 3,\n}\n", "a", "{\n  b: 2,\n}\n"},
    {"nested key, other comments kept", "// head\n{\n  gateway: {\n    // the port\n    port: 1,\n    bind: 'lan', // x\n  },\n}\n",
     "gateway.port", "// head\n{\n  gateway: {\n    bind: 'lan', // x\n  },\n}\n"},
    {"comment of the previous member stays", "{\n  a: 1, // about a\n  b: 2\n}", "b", "{\n  a: 1 // about a\n}"},
};

class UnsetTable : public ::testing::TestWithParam<UnsetCase> {};

TEST_P(UnsetTable, ProducesExactText) {
  const UnsetCase& c = GetParam();
  auto out = unset(c.text, c.path);
  ASSERT_TRUE(out) << out.error().code << ": " << out.error().message;
  EXPECT_EQ(*out, c.expected);
  auto expected_doc = apply_unset(*parse(c.text), *parse_path(c.path));
  ASSERT_TRUE(expected_doc);
  EXPECT_TRUE(same_json(*parse(*out), *expected_doc));
}

INSTANTIATE_TEST_SUITE_P(Json5Edit, UnsetTable, ::testing::ValuesIn(kUnsetCases),
                         [](const auto& info) {
                           std::string name;
                           for (const char* p = info.param.name; *p; ++p) name += std::isalnum(*p) ? *p : '_';
                           return name;
                         });

struct PathCase {
  const char* text;
  const char* canonical;  // nullptr: invalid
};

const PathCase kPathCases[] = {
    {"gateway.auth.token", "gateway.auth.token"},
    {"agents.list[0].id", "agents.list[0].id"},
    {"models.providers[\"my.lab\"].baseUrl", "models.providers[\"my.lab\"].baseUrl"},
    {"a['b']", "a.b"},
    {"[0]", "[0]"},
    {"a[10][2]", "a[10][2]"},
    {"my-provider.x_y", "my-provider.x_y"},
    {"", nullptr},
    {".a", nullptr},
    {"a.", nullptr},
    {"a..b", nullptr},
    {"a[", nullptr},
    {"a[01]", nullptr},
    {"a[x]", nullptr},
    {"a[0]b", nullptr},
    {"a]", nullptr},
    {"a[\"b]", nullptr},
    {"a[1234567890]", nullptr},
};

TEST(Json5EditPath, ParsesAndFormats) {
  for (const auto& c : kPathCases) {
    auto p = parse_path(c.text);
    if (c.canonical == nullptr) {
      EXPECT_FALSE(p) << c.text;
      if (!p) {
        EXPECT_EQ(p.error().code, "PATH_INVALID");
      }
      continue;
    }
    ASSERT_TRUE(p) << c.text << ": " << p.error().message;
    EXPECT_EQ(format_path(*p), c.canonical);
    auto again = parse_path(format_path(*p));
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *p);
  }
}

TEST(Json5EditErrors, NameThePathAndTheReason) {
  auto conflict = set("{ gateway: { port: 1 } }", "gateway.port.x", 1);
  ASSERT_FALSE(conflict);
  EXPECT_EQ(conflict.error().code, "PATH_CONFLICT");
  EXPECT_EQ(conflict.error().message, "gateway.port.x: gateway.port is a number, not an object");

  auto past = set("{ l: [1] }", "l[3]", 1);
  ASSERT_FALSE(past);
  EXPECT_EQ(past.error().message, "l[3]: index 3 is past the end of l (1 elements; use [1] to append)");

  auto new_array = set("{}", "l[2]", 1);
  ASSERT_FALSE(new_array);
  EXPECT_EQ(new_array.error().code, "PATH_CONFLICT");

  auto missing = unset("{ a: 1 }", "b.c");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, "PATH_NOT_FOUND");
  EXPECT_EQ(missing.error().message, "b.c: not set");

  auto syntax = set("{ a: ", "a", 1);
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().code, "JSON5_PARSE");

  auto bad_utf8 = set("{}", "a", json(std::string("\xff")));
  ASSERT_FALSE(bad_utf8);
  EXPECT_EQ(bad_utf8.error().code, "INVALID_VALUE");
}

TEST(Json5EditNumbers, KeepTheirKind) {
  auto out = set("{}", "a", json::array({json(5u), json(1.0), json(-0.0), json(18446744073709551615u)}));
  ASSERT_TRUE(out) << out.error().message;
  auto doc = parse(*out);
  ASSERT_TRUE(doc);
  EXPECT_TRUE((*doc)["a"][0].is_number_integer());
  EXPECT_TRUE((*doc)["a"][1].is_number_float());
  EXPECT_TRUE((*doc)["a"][3].is_number_unsigned());
}

TEST(Json5EditRoundTrip, ManyEditsKeepEveryComment) {
  std::string text =
      "// Pincer configuration\n{\n  // The gateway\n  gateway: {\n    port: 18789, // default\n  },\n  /* models */\n"
      "  models: { providers: {} },\n}\n";
  for (const auto& [path, value] : std::vector<std::pair<std::string, json>>{
           {"gateway.auth.mode", "token"},
           {"gateway.auth.token", "abc"},
           {"models.providers.ollama.baseUrl", "http://127.0.0.1:11434"},
           {"models.providers.ollama.models", json::array({{{"id", "llama3.2"}}})},
           {"agents.defaults.model.primary", "ollama/llama3.2"},
           {"gateway.port", 9000}}) {
    auto out = set(text, path, value);
    ASSERT_TRUE(out) << path << ": " << out.error().message;
    text = *out;
  }
  for (const char* comment : {"// Pincer configuration", "// The gateway", "// default", "/* models */"}) {
    EXPECT_NE(text.find(comment), std::string::npos) << comment << "\n" << text;
  }
  auto doc = parse(text);
  ASSERT_TRUE(doc);
  EXPECT_EQ((*doc)["gateway"]["port"], 9000);
  EXPECT_EQ((*doc)["agents"]["defaults"]["model"]["primary"], "ollama/llama3.2");
  auto removed = unset(text, "models");
  ASSERT_TRUE(removed) << removed.error().message;
  EXPECT_EQ(removed->find("/* models */"), std::string::npos) << *removed;
  EXPECT_NE(removed->find("// default"), std::string::npos);
}

}  // namespace
}  // namespace pincer::json5
