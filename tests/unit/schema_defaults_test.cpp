// The defaults the schema declares for memory.* and agents.defaults.sandbox.* (what `config get`
// and docs/configuration.md show) are the ones the code uses: the member initialisers of
// memory::MemorySettings and tools::sandbox::Settings. An agent's own section has no defaults,
// so that it overrides only the keys it gives.
#include <gtest/gtest.h>

#include "core/config.h"
#include "memory/memory_config.h"
#include "tools/sandbox/sandbox.h"

namespace pincer {
namespace {

using nlohmann::json;

TEST(SchemaDefaults, MemoryDefaultsAreTheSettingsDefaults) {
  const json filled = config::with_defaults(json::object());
  ASSERT_TRUE(filled.contains("memory")) << filled.dump();
  EXPECT_EQ(filled["memory"]["search"]["query"]["maxResults"], 6);
  const memory::MemorySettings code;
  const memory::MemorySettings schema = memory::resolve_memory_settings(filled, "main", "/ws", "/state", {});
  EXPECT_EQ(schema.enabled, code.enabled);
  EXPECT_EQ(schema.backend, code.backend);
  EXPECT_EQ(schema.citations, code.citations);
  EXPECT_EQ(schema.provider, code.provider);
  EXPECT_EQ(schema.batch_size, code.batch_size);
  EXPECT_EQ(schema.embed_timeout_ms, code.embed_timeout_ms);
  EXPECT_EQ(schema.chunking.tokens, code.chunking.tokens);
  EXPECT_EQ(schema.chunking.overlap, code.chunking.overlap);
  EXPECT_EQ(schema.max_results, code.max_results);
  EXPECT_DOUBLE_EQ(schema.min_score, code.min_score);
  EXPECT_EQ(schema.query_timeout_ms, code.query_timeout_ms);
  EXPECT_DOUBLE_EQ(schema.hybrid.vector_weight, code.hybrid.vector_weight);
  EXPECT_DOUBLE_EQ(schema.hybrid.text_weight, code.hybrid.text_weight);
  EXPECT_EQ(schema.hybrid.candidate_multiplier, code.hybrid.candidate_multiplier);
  EXPECT_EQ(schema.hybrid.mmr, code.hybrid.mmr);
  EXPECT_DOUBLE_EQ(schema.hybrid.mmr_lambda, code.hybrid.mmr_lambda);
  EXPECT_EQ(schema.hybrid.decay, code.hybrid.decay);
  EXPECT_DOUBLE_EQ(schema.hybrid.half_life_days, code.hybrid.half_life_days);
  EXPECT_EQ(schema.watch, code.watch);
  EXPECT_EQ(schema.watch_debounce_ms, code.watch_debounce_ms);
}

TEST(SchemaDefaults, AnAgentsMemoryOverrideKeepsTheSharedSettings) {
  const json filled = config::with_defaults(json::parse(R"({"memory": {"search": {"query": {"maxResults": 9}}},
      "agents": {"list": [{"id": "main"}, {"id": "work", "memory": {"search": {"chunking": {"tokens": 200}}}}]}})"));
  const auto work = memory::resolve_memory_settings(filled, "work", "/ws", "/state", {});
  EXPECT_EQ(work.max_results, 9);
  EXPECT_EQ(work.chunking.tokens, 200);
  EXPECT_EQ(memory::resolve_memory_settings(filled, "main", "/ws", "/state", {}).chunking.tokens, 400);
}

TEST(SchemaDefaults, SandboxDefaultsAreTheSettingsDefaults) {
  const json filled = config::with_defaults(json::object());
  EXPECT_EQ(filled["agents"]["defaults"]["sandbox"]["mode"], "off") << filled.dump();
  const tools::sandbox::Settings code;
  auto schema = tools::sandbox::settings_for_agent(filled, "main");
  ASSERT_TRUE(schema) << schema.error().message;
  EXPECT_EQ(schema->mode, code.mode);
  EXPECT_EQ(schema->backend, code.backend);
  EXPECT_EQ(schema->command, code.command);
  EXPECT_EQ(schema->workspace_access, code.workspace_access);
  EXPECT_EQ(schema->network, code.network);
  // An agent's entry overrides only what it gives.
  const json mixed = config::with_defaults(json::parse(R"({"agents": {"defaults": {"sandbox": {"mode": "all",
      "workspaceAccess": "ro"}}, "list": [{"id": "main"}, {"id": "work", "sandbox": {"network": "on"}}]}})"));
  auto work = tools::sandbox::settings_for_agent(mixed, "work");
  ASSERT_TRUE(work) << work.error().message;
  EXPECT_EQ(work->mode, tools::sandbox::Mode::kAll);
  EXPECT_EQ(work->workspace_access, tools::sandbox::WorkspaceAccess::kRo);
  EXPECT_TRUE(work->network);
}

}  // namespace
}  // namespace pincer
