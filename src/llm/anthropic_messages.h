// "anthropic-messages": the Anthropic Messages wire format, streamed (PV-1).
//
// Request: POST {baseUrl}/v1/messages (baseUrl like https://api.anthropic.com; one ending in /v1
// gets only /messages), headers
// `x-api-key`, `anthropic-version: 2023-06-01`; body {model, max_tokens, stream:true, messages,
// system?, tools?, thinking?}:
//   - system: [{type:"text", text, cache_control:{type:"ephemeral"}}]; the last block of the last
//     user message also carries cache_control (prompt caching of the history);
//   - user: content string, or [{type:"text"}, {type:"image", source:{type:"base64", media_type,
//     data}}]; blank text is dropped (the API rejects it), images when the model lacks "image";
//   - assistant: text (non-blank), thinking {type:"thinking", thinking, signature} (same model,
//     signed; unsigned thinking becomes text), redacted thinking {type:"redacted_thinking", data},
//     toolCall → {type:"tool_use", id, name, input (object)};
//   - consecutive toolResults → one user message of {type:"tool_result", tool_use_id, content
//     (string, or text/image blocks when there are images), is_error};
//   - tool-call ids are rewritten to [a-zA-Z0-9_-]{1,64} (the API's pattern), results follow;
//   - tools: [{name, description, input_schema}];
//   - max_tokens = RequestOptions::max_tokens or model.max_tokens (required by the API);
//   - thinking {type:"enabled", budget_tokens} when model.reasoning and thinking != off, with
//     budgets minimal 1024, low 2048, medium 8192, high 16384 tokens, lowered to max_tokens − 1024
//     when max_tokens is too small (and omitted when that leaves less than 1024).
//
// Stream: SSE events message_start {message:{id, usage}}, content_block_start {index,
// content_block: text | thinking | redacted_thinking{data} | tool_use{id, name}},
// content_block_delta {index, delta: text_delta{text} | thinking_delta{thinking} |
// signature_delta{signature} | input_json_delta{partial_json}}, content_block_stop {index},
// message_delta {delta:{stop_reason}, usage}, message_stop (terminal), ping, error {error:{type,
// message}} → PROVIDER_STREAM_ERROR "type: message". Blocks are keyed by `index`. stop_reason:
// end_turn/stop_sequence/pause_turn → stop, max_tokens/model_context_window_exceeded → length,
// tool_use → toolUse, refusal → error. Usage: input_tokens, output_tokens,
// cache_read_input_tokens → cacheRead, cache_creation_input_tokens → cacheWrite (message_delta
// values override message_start ones when present).
#pragma once

#include "llm/provider.h"

namespace pincer::llm {

const ProviderApi& anthropic_messages_api();

}  // namespace pincer::llm
