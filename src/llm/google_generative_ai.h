// "google-generative-ai": the Google Gemini API (generativelanguage.googleapis.com), streamed (PV-1).
//
// Request: POST {baseUrl}/models/{model}:streamGenerateContent?alt=sse (baseUrl like
// https://generativelanguage.googleapis.com/v1beta; a model id given as "models/x" loses the
// prefix), header `x-goog-api-key` (the key never goes into the URL); body {contents,
// systemInstruction?, tools?, generationConfig}:
//   - contents: [{role:"user"|"model", parts:[...]}]; user text {text} (blank dropped), images
//     {inlineData:{mimeType, data}} when the model has "image";
//   - model turns: text {text}; thinking of the same model with a signature {thought:true, text,
//     thoughtSignature} (unsigned thinking becomes plain text); toolCall {functionCall:{name,
//     args}, thoughtSignature?};
//   - consecutive toolResults → one user content of {functionResponse:{name, response:{output}
//     | {error}}} (name from the result, else from the call with that id), then any result images
//     as inlineData parts;
//   - systemInstruction {parts:[{text}]}; tools [{functionDeclarations:[{name, description,
//     parametersJsonSchema}]}] (full JSON Schema, as pi-ai sends; `parameters` is an OpenAPI subset
//     that rejects additionalProperties and other keywords tool schemas use);
//   - generationConfig {maxOutputTokens = RequestOptions::max_tokens or model.max_tokens,
//     thinkingConfig (model.reasoning only, see thinking_config())}.
//
// Tool-call ids: Gemini gives none (or an `id` on newer models, used when present), so the decoder
// generates "call_…". A functionCall part's thoughtSignature (which Gemini 3 requires back with
// the call) is kept in the id as "<id>|<signature>" — the message model has no per-call signature
// field; other APIs already cut ids at '|' or rewrite them.
//
// Stream: SSE `data:` chunks, each a GenerateContentResponse {candidates:[{content:{parts},
// finishReason}], usageMetadata, responseId}. Parts: {text} (text), {text, thought:true} (thinking;
// a thoughtSignature is kept as the block's signature), {functionCall:{name, args, id?}} (a
// complete tool call). finishReason STOP → stop (toolUse when there are tool calls), MAX_TOKENS →
// length, anything else (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII,
// MALFORMED_FUNCTION_CALL, OTHER …) → error "Gemini stopped: <REASON> (<what it means>)";
// promptFeedback.blockReason with no candidate → error too. Usage: input = promptTokenCount −
// cachedContentTokenCount, output = candidatesTokenCount + thoughtsTokenCount, cacheRead =
// cachedContentTokenCount. There is no terminal event: a body that ends after a chunk with a
// finishReason is complete, else PROVIDER_STREAM_INCOMPLETE. A chunk {error:{code, message,
// status}} → PROVIDER_STREAM_ERROR "STATUS: message" (failover.cpp knows Google's status names).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "llm/provider.h"

namespace pincer::llm {

const ProviderApi& google_generative_ai_api();

/// generationConfig.thinkingConfig for `model` at `level` (AG-7), or nullopt to send none. Only
/// for model.reasoning; xhigh is treated as high. Numbers are pi-ai's google provider defaults
/// (Google's documented budget ranges, https://ai.google.dev/gemini-api/docs/thinking):
///   - Gemini 3 (id contains "gemini-3") takes thinkingLevel: "-pro" models LOW for
///     minimal/low and HIGH for medium/high; others MINIMAL/LOW/MEDIUM/HIGH. Off cannot disable
///     thinking there: pro LOW, others MINIMAL, without includeThoughts.
///   - Gemini 2.5 takes thinkingBudget (tokens): minimal 128 (flash-lite 512), low 2048,
///     medium 8192, high 32768 (pro) / 24576 (flash, flash-lite). Off: thinkingBudget 0, except
///     2.5-pro which cannot turn thinking off (nullopt: the model's default, thoughts hidden).
///   - Other models: thinkingBudget -1 (dynamic); off → thinkingBudget 0.
/// Every level but off adds includeThoughts:true.
std::optional<nlohmann::json> gemini_thinking_config(const ModelSpec& model, ThinkingLevel level);

}  // namespace pincer::llm
