// The Google Gemini API ("google-generative-ai") for the mock LLM (mock-llm.mjs), in its real wire
// format (https://ai.google.dev/api/generate-content):
//
//   POST /v1beta/models/{model}:streamGenerateContent?alt=sse   SSE of GenerateContentResponse
//   POST /v1beta/models/{model}:generateContent                 one GenerateContentResponse
//   (also without the /v1beta prefix, for a baseUrl that already ends in it)
//
// Auth: `x-goog-api-key` (or ?key=, which the SDKs no longer use); a wrong key gets Google's real
// 400 INVALID_ARGUMENT / API_KEY_INVALID body, a missing one 403 PERMISSION_DENIED. Errors are
// {error:{code, message, status}} with Google's status names (RESOURCE_EXHAUSTED, UNAVAILABLE,
// INTERNAL, INVALID_ARGUMENT …); in-stream errors are an SSE chunk of that body. The stream has no
// terminal event: the last chunk carries finishReason and usageMetadata.
//
// mock-llm.mjs calls geminiApi(helpers) once and plugs the returned object into its tables; the
// keyword logic (plain reply, ECHO:, MOCK_TOOL:, MOCK_TOOLS2, MOCK_REASON, MOCK_429 …) is shared.

export const GEMINI_API = "google-generative-ai";

const ROUTE = /^(?:\/v1beta|\/v1)?\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;

/** {model, stream} for a Gemini generate path, else null. */
export function geminiRoute(path, search) {
  const m = ROUTE.exec(path);
  if (!m) return null;
  return { model: decodeURIComponent(m[1]), stream: m[2] === "streamGenerateContent", sse: search.get("alt") === "sse" };
}

const STATUS = { 400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED" };

export function geminiApi({ chunkText, argsObject, rid }) {
  const sse = (obj) => `data: ${JSON.stringify(obj)}\r\n\r\n`;
  const partsText = (parts) => (Array.isArray(parts) ? parts : []).filter((p) => typeof p?.text === "string" && !p.thought).map((p) => p.text).join("");

  function errorBody(kind, status, ctx, message) {
    const map = {
      auth: status === 403
        ? "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
        : "API key not valid. Please pass a valid API key.",
      not_found: `models/${ctx.model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`,
      rate_limit: "Resource has been exhausted (e.g. check quota).",
      billing: "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
      server: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
      overloaded: "The model is overloaded. Please try again later.",
      overflow: `The input token count (${1048576 + (ctx.inputTokens ?? 0)}) exceeds the maximum number of tokens allowed (1048576).`,
      invalid_request: "Request contains an invalid argument.",
    };
    const code = kind === "overloaded" ? 503 : kind === "billing" ? 429 : status;
    const error = { code, message: message ?? map[kind] ?? map.server, status: STATUS[code] ?? (code >= 500 ? "INTERNAL" : "INVALID_ARGUMENT") };
    if (kind === "auth" && status === 400) {
      error.details = [
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "API_KEY_INVALID", domain: "googleapis.com", metadata: { service: "generativelanguage.googleapis.com" } },
        { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", locale: "en-US", message: "API key not valid. Please pass a valid API key." },
      ];
    }
    return { error };
  }

  /** null when authorised, else {status, message}: 403 without a key, 400 API_KEY_INVALID with a wrong one. */
  function checkAuth(req, apiKey) {
    if (!apiKey) return null;
    const key = req.headers["x-goog-api-key"] ?? new URL(req.url, "http://x").searchParams.get("key");
    if (key === apiKey) return null;
    return key ? { status: 400, message: null } : { status: 403, message: null };
  }

  function normalise(body) {
    const events = [];
    for (const c of Array.isArray(body.contents) ? body.contents : []) {
      const parts = Array.isArray(c?.parts) ? c.parts : [];
      if (c?.role === "model") {
        events.push({ kind: "assistant", text: partsText(parts) });
        continue;
      }
      for (const p of parts) {
        if (p?.functionResponse) {
          const r = p.functionResponse.response ?? {};
          events.push({ kind: "tool", text: typeof r.output === "string" ? r.output : typeof r.error === "string" ? r.error : JSON.stringify(r) });
        }
      }
      const text = partsText(parts);
      if (text || !parts.some((p) => p?.functionResponse)) events.push({ kind: "user", text });
    }
    const toolNames = (body.tools ?? []).flatMap((t) => (t?.functionDeclarations ?? []).map((d) => d?.name)).filter(Boolean);
    return { events, toolNames, promptChars: JSON.stringify([body.systemInstruction ?? "", body.contents, body.tools ?? []]).length };
  }

  /** The checks Google makes that gateways trip over; an error message or null. */
  function validate(body) {
    if (!Array.isArray(body.contents) || body.contents.length === 0) return "* GenerateContentRequest.contents: contents is not specified";
    const contents = body.contents;
    for (let i = 0; i < contents.length; i++) {
      const c = contents[i];
      if (c?.role !== "user" && c?.role !== "model") return `Please use a valid role: user, model.`;
      if (!Array.isArray(c.parts) || c.parts.length === 0) return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty.`;
      for (const [j, p] of c.parts.entries()) {
        const kinds = ["text", "inlineData", "functionCall", "functionResponse"].filter((k) => p?.[k] !== undefined);
        if (kinds.length !== 1) return `* GenerateContentRequest.contents[${i}].parts[${j}].data: required oneof field 'data' must have one initialized field`;
        if (p.inlineData && (typeof p.inlineData.mimeType !== "string" || typeof p.inlineData.data !== "string")) return `* GenerateContentRequest.contents[${i}].parts[${j}].inline_data: mimeType and data are required`;
        if (p.functionResponse && !p.functionResponse.name) return `* GenerateContentRequest.contents[${i}].parts[${j}].function_response.name: Name cannot be empty.`;
      }
      // Every function call must be answered by the next content, one response per call.
      const calls = c.parts.filter((p) => p?.functionCall).length;
      if (c.role === "model" && calls && i + 1 < contents.length) {
        const answers = (contents[i + 1]?.parts ?? []).filter((p) => p?.functionResponse).length;
        if (contents[i + 1]?.role !== "user" || answers !== calls) {
          return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.";
        }
      }
      if (c.parts.some((p) => p?.functionResponse) && !(contents[i - 1]?.role === "model" && contents[i - 1].parts?.some((p) => p?.functionCall))) {
        return "Please ensure that function response turn comes immediately after a function call turn.";
      }
    }
    const decls = (body.tools ?? []).flatMap((t) => t?.functionDeclarations ?? []);
    for (const [i, d] of decls.entries()) {
      if (!/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(d?.name ?? "")) return `* GenerateContentRequest.tools[0].function_declarations[${i}].name: Invalid function name.`;
      if (d.parameters !== undefined && d.parametersJsonSchema !== undefined) return `* GenerateContentRequest.tools[0].function_declarations[${i}]: parameters and parameters_json_schema are mutually exclusive`;
      // `parameters` is an OpenAPI subset: JSON Schema keywords outside it are unknown fields.
      const unknown = /"(additionalProperties|\$schema|const|patternProperties|\$ref|\$defs)":/.exec(JSON.stringify(d.parameters ?? {}));
      if (unknown) return `Invalid JSON payload received. Unknown name "${unknown[1]}" at 'tools[0].function_declarations[${i}].parameters': Cannot find field.`;
    }
    return null;
  }

  function usageMetadata(usage) {
    const meta = { promptTokenCount: usage.input, candidatesTokenCount: Math.max(1, usage.output - usage.reasoning), totalTokenCount: usage.total };
    if (usage.reasoning) meta.thoughtsTokenCount = usage.reasoning;
    return meta;
  }

  const finishOf = (plan) => (plan.finish === "length" && !plan.toolCalls.length ? "MAX_TOKENS" : "STOP");
  const signature = (what) => Buffer.from(`mock-signature:${what}:${rid(8)}`).toString("base64");
  const callPart = (c, i) => {
    const part = { functionCall: { name: c.name, args: argsObject(c.arguments) } };
    if (i === 0) part.thoughtSignature = signature("call");  // Gemini 3 signs the first call of a turn
    return part;
  };
  const response = (parts, extra = {}) => ({ candidates: [{ content: { parts, role: "model" }, index: 0, ...extra }], modelVersion: "mock", responseId: extra.responseId });

  return {
    isStream: (body, route) => route.stream,
    normalise,
    validate,
    errorBody,
    checkAuth,
    json(plan, usage, ctx) {
      const parts = [];
      if (plan.reasoning) parts.push({ text: plan.reasoning, thought: true, thoughtSignature: signature("thought") });
      if (plan.text) parts.push({ text: plan.text });
      plan.toolCalls.forEach((c, i) => parts.push(callPart(c, i)));
      return { ...response(parts, { finishReason: finishOf(plan) }), usageMetadata: usageMetadata(usage), responseId: rid(20) };
    },
    async stream(s, plan, usage, ctx) {
      const responseId = rid(20);
      const chunk = (parts, extra = {}) => sse({ ...response(parts, extra), responseId, usageMetadata: { promptTokenCount: usage.input, totalTokenCount: usage.input } });
      s.writeStreamError = (err) => s.send(sse(errorBody(err.kind, err.status, ctx, err.message)));
      if (plan.reasoning) {
        const pieces = chunkText(plan.reasoning);
        for (const [i, p] of pieces.entries()) {
          const part = { text: p, thought: true };
          if (i === pieces.length - 1) part.thoughtSignature = signature("thought");
          await s.delta(() => chunk([part]));
        }
      }
      if (plan.text) for (const p of chunkText(plan.text)) await s.delta(() => chunk([{ text: p }]));
      // Gemini sends each function call whole, in one part.
      for (const [i, c] of plan.toolCalls.entries()) await s.delta(() => chunk([callPart(c, i)]));
      await s.beforeEnd();
      s.end(sse({ ...response([{ text: "" }], { finishReason: finishOf(plan) }), responseId, usageMetadata: usageMetadata(usage) }));
    },
  };
}
