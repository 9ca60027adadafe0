// "openai-completions": the OpenAI Chat Completions wire format, streamed (PV-1). Also spoken by
// OpenRouter, DeepSeek, Groq, vLLM, llama.cpp, LM Studio and Ollama's /v1 endpoint.
//
// Request: POST {baseUrl}/chat/completions, `Authorization: Bearer <api_key>` (omitted when the key
// is empty), body {model, messages, stream:true, stream_options:{include_usage:true}, tools?,
// reasoning_effort?, max_completion_tokens|max_tokens, store?}:
//   - system prompt: first message, role "developer" for reasoning models on api.openai.com, else
//     "system";
//   - user: content string, or parts [{type:"text"}, {type:"image_url", image_url:{url:data-URL}}]
//     (images dropped when the model's input lacks "image");
//   - assistant: {content: text blocks joined by "\n" | null, tool_calls:[{id, type:"function",
//     function:{name, arguments: JSON text}}]}; thinking of the same model is replayed under the
//     field it came from (thinkingSignature "reasoning_content" or "reasoning");
//   - toolResult: {role:"tool", tool_call_id, content: text ("(see attached image)" when only
//     images)}, followed by a user message carrying the images when the model accepts them;
//   - tool-call ids: the part before '|' (Responses ids are "call|item"), at most 40 characters;
//   - tools: [{type:"function", function:{name, description, parameters}}];
//   - reasoning_effort = thinking level when model.reasoning and thinking != off;
//   - max tokens = RequestOptions::max_tokens or model.max_tokens (`maxTokens` of the model's
//     config entry): `max_completion_tokens` on api.openai.com, `max_tokens` elsewhere;
//     `store:false` on api.openai.com.
//
// Stream: SSE `data:` chunks {id, choices:[{delta:{content, reasoning_content | reasoning,
// tool_calls:[{index, id?, function:{name?, arguments?}}]}, finish_reason}], usage?}, then
// `data: [DONE]`. Tool calls are keyed by `index` (parallel calls may interleave). finish_reason:
// stop → stop, length → length, tool_calls/function_call → toolUse, content_filter and others →
// error (message kept in errorMessage; finish() still returns the message). A "stop" with tool
// calls becomes toolUse. Usage: input = prompt_tokens − cached, cacheRead = cached
// (prompt_tokens_details.cached_tokens), output = completion_tokens. A chunk {error:{message,
// code?}} is an error event. The terminal event is [DONE]; a body that ends after a finish_reason
// without [DONE] is accepted.
#pragma once

#include "llm/provider.h"

namespace pincer::llm {

const ProviderApi& openai_completions_api();

}  // namespace pincer::llm
