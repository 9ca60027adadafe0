// docs/compatibility.md tells the truth about the method table (GW-7): checked against the
// methods a running gateway advertises in hello-ok (every one of them is implemented: see
// openclaw_surface_test.cpp), and against the deliberate error answers the Control UI pages test
// allows (tests/compat/control-ui-pages.test.mjs ALLOWED_ERRORS).
//
//   * every row marked supported, partial or empty names an advertised method; every row marked
//     missing names one that is not;
//   * every advertised method is in the table or in the list of Pincer's own methods;
//   * the "Totals:" line counts the table's rows by status;
//   * every method the pages test allows to fail with "unknown method" is not advertised (else the
//     allowance is stale), and the doc names each allowed error.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "gateway_process.h"
#include "ws_client.h"

namespace pincer::test {
namespace compatibility_doc_test {  // named: the unity build puts several test files in one unit
namespace {

using nlohmann::json;

constexpr const char* kToken = "compat-doc-token-0123456789abcdef";

std::string read_source(const std::string& rel) {
  std::ifstream in(std::string(PINCER_SOURCE_DIR) + "/" + rel);
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

std::set<std::string> advertised_methods() {
  TempDir home;
  home.write("pincer.json", std::string("{ gateway: { auth: { token: '") + kToken + "' } } }\n");
  Gateway gateway(home.path());
  WsClient c(gateway.port());
  EXPECT_TRUE(c.recv());
  auto params = connect_params(kToken);
  params["scopes"] = {"operator.admin"};
  c.send_json({{"type", "req"}, {"id", "c1"}, {"method", "connect"}, {"params", params}});
  auto res = c.recv_response("c1");
  std::set<std::string> out;
  if (!res || (*res)["ok"] != true) return out;
  for (const auto& m : (*res)["payload"]["features"]["methods"]) out.insert(m.get<std::string>());
  return out;
}

TEST(CompatibilityDoc, MethodTableMatchesTheGateway) {
  const std::set<std::string> advertised = advertised_methods();
  ASSERT_GT(advertised.size(), 80u);
  const std::string doc = read_source("docs/compatibility.md");
  ASSERT_FALSE(doc.empty());

  // Rows: | `method` | used by | status | notes |
  const std::regex row(R"(^\| `([^`]+)` \| ([^|]*) \| (supported|partial|empty|missing) \|)");
  std::map<std::string, int> counts;
  std::set<std::string> listed;
  std::istringstream lines(doc);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_search(line, m, row)) continue;
    const std::string method = m[1], status = m[3];
    EXPECT_TRUE(listed.insert(method).second) << method << " is listed twice";
    ++counts[status];
    const bool implemented = advertised.count(method) > 0;
    if (status == "missing") {
      EXPECT_FALSE(implemented) << method << " is implemented but the table says missing";
    } else {
      EXPECT_TRUE(implemented) << method << " is marked " << status << " but the gateway does not have it";
    }
  }
  ASSERT_GT(listed.size(), 100u) << "the method table was not found";

  // Pincer's own methods (not used by OpenClaw's clients) are named in one paragraph.
  const auto own_at = doc.find("Pincer's own methods");
  ASSERT_NE(own_at, std::string::npos) << "no \"Pincer's own methods\" paragraph";
  const std::string own = doc.substr(own_at, doc.find("\n\n", own_at) - own_at);
  for (const auto& method : advertised) {
    if (method == "connect" || listed.count(method)) continue;
    EXPECT_NE(own.find("`" + method + "`"), std::string::npos)
        << method << " is advertised but neither in the method table nor among Pincer's own methods";
  }

  // Totals: N methods used — a supported, b partial, c empty, d missing.
  std::smatch t;
  const std::regex totals(R"(Totals: (\d+) methods used — (\d+) supported, (\d+) partial, (\d+) empty, (\d+) missing\.)");
  ASSERT_TRUE(std::regex_search(doc, t, totals)) << "no Totals line";
  EXPECT_EQ(std::stoi(t[1]), static_cast<int>(listed.size()));
  EXPECT_EQ(std::stoi(t[2]), counts["supported"]);
  EXPECT_EQ(std::stoi(t[3]), counts["partial"]);
  EXPECT_EQ(std::stoi(t[4]), counts["empty"]);
  EXPECT_EQ(std::stoi(t[5]), counts["missing"]);
}

TEST(CompatibilityDoc, AllowedControlUiErrorsAreCurrentAndDocumented) {
  const std::set<std::string> advertised = advertised_methods();
  const std::string pages = read_source("tests/compat/control-ui-pages.test.mjs");
  const std::string doc = read_source("docs/compatibility.md");
  const std::regex entry(R"re(\["([A-Za-z0-9._-]+)", /([^/]*)/\])re");
  int n = 0;
  for (std::sregex_iterator it(pages.begin(), pages.end(), entry), end; it != end; ++it) {
    const std::string method = (*it)[1], pattern = (*it)[2];
    ++n;
    if (pattern == "unknown method") {
      EXPECT_EQ(advertised.count(method), 0u) << method << " is implemented now: drop it from ALLOWED_ERRORS";
    } else {
      EXPECT_EQ(advertised.count(method), 1u) << method << " answers a deliberate error, so it must exist";
    }
    EXPECT_NE(doc.find("`" + method + "`"), std::string::npos) << method << " (an allowed Control UI error) is not in the doc";
  }
  EXPECT_GT(n, 3) << "ALLOWED_ERRORS not found in control-ui-pages.test.mjs";
}

}  // namespace
}  // namespace compatibility_doc_test
}  // namespace pincer::test
