// "ollama": Ollama's native chat API, streamed as NDJSON (PV-1).
//
// Request: POST {baseUrl}/api/chat (baseUrl like http://127.0.0.1:11434), `Authorization: Bearer`
// only when an api_key is set (Ollama cloud); body {model, messages, stream:true, tools?, think?,
// options:{num_predict}}:
//   - system prompt → {role:"system", content};
//   - user → {role:"user", content: texts joined by "\n", images?: [base64 …]} (images only when the
//     model accepts them);
//   - assistant → {role:"assistant", content, thinking? (same model), tool_calls?:[{function:{name,
//     arguments (object)}}]};
//   - toolResult → {role:"tool", content, tool_name}, then a user message with the images when the
//     model accepts them;
//   - tools: [{type:"function", function:{name, description, parameters}}];
//   - think: true/false when model.reasoning (thinking != off), omitted otherwise (non-thinking
//     models reject it); options.num_predict = RequestOptions::max_tokens or model.max_tokens.
//
// Stream: one JSON object per line {message:{content, thinking?, tool_calls?:[{id?, function:{name,
// arguments (object, or JSON text)}}]}, done:false}, ending with {done:true, done_reason,
// prompt_eval_count, eval_count}. Tool calls arrive whole: ToolCallStart, one ToolCallDelta (the
// arguments' JSON) and ToolCallEnd are emitted together; ids are generated ("call_…") when Ollama
// gives none. done_reason stop → stop (toolUse when tool calls were made), length → length. A line
// {error:"…"} is an error event. Usage: input = prompt_eval_count, output = eval_count.
#pragma once

#include "llm/provider.h"

namespace pincer::llm {

const ProviderApi& ollama_api();

}  // namespace pincer::llm
