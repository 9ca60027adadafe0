// "openai-responses": the OpenAI Responses wire format, streamed (PV-1).
//
// Request: POST {baseUrl}/responses, `Authorization: Bearer <api_key>`, body {model, input,
// instructions?, stream:true, store:false, tools?, max_output_tokens, prompt_cache_key?,
// reasoning?:{effort, summary:"auto"}, include?:["reasoning.encrypted_content"]}:
//   - instructions = the system prompt;
//   - user → {role:"user", content:[{type:"input_text", text}, {type:"input_image", detail:"auto",
//     image_url:data-URL}]};
//   - assistant → in block order:
//       thinking (same model) → its reasoning item (the JSON kept in thinkingSignature), only when
//         that item carries encrypted_content (store is false, so the server cannot resolve it by id);
//       text → {type:"message", role:"assistant", content:[{type:"output_text", text,
//         annotations:[]}], status:"completed", id:"msg_<n>"} (n = position in the history;
//         "msg_<n>_<k>" for further text blocks of the same message);
//       toolCall "call_id|item_id" → {type:"function_call", call_id, name, arguments (JSON text),
//         id:item_id (same model only)};
//   - toolResult → {type:"function_call_output", call_id, output: text}, then a user message with
//     the images when the model accepts them;
//   - tools: [{type:"function", name, description, parameters}];
//   - reasoning/include only when model.reasoning and thinking != off.
//
// Stream: SSE events whose JSON `type` is one of response.created (id), response.output_item.added
// {output_index, item} (function_call → toolCall "call_id|id"), response.output_text.delta /
// response.refusal.delta (text), response.reasoning_summary_text.delta / response.reasoning_text.delta
// (thinking; summary parts separated by "\n\n"), response.function_call_arguments.delta / .done,
// response.output_item.done (reasoning item → thinkingSignature = its JSON), and the terminal
// response.completed / response.incomplete {response:{status, usage:{input_tokens,
// input_tokens_details.cached_tokens, output_tokens}, incomplete_details}}. Blocks are keyed by
// output_index. status completed → stop (toolUse when tool calls were made), incomplete →
// length (error for reason content_filter). Errors: `error` {code, message} and response.failed
// {response:{error:{code, message}}} → PROVIDER_STREAM_ERROR "code: message".
#pragma once

#include "llm/provider.h"

namespace pincer::llm {

const ProviderApi& openai_responses_api();

}  // namespace pincer::llm
