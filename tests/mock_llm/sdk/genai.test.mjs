#!/usr/bin/env node
// Google's official Gemini SDK (@google/genai, pinned; installed by setup.sh) against the mock LLM's
// Gemini endpoint (../gemini.mjs): the SDK pointed at the mock's base URL streams a text reply
// with thoughts, a function call, a function-response round trip, and gets Google's error shapes.
// If the SDK talks to it as to Google, the mock's wire format is the real one.
// Exit 0 = pass, 1 = fail, 77 = skipped (SDK not installed).
//
//   tests/mock_llm/sdk/setup.sh && node tests/mock_llm/sdk/genai.test.mjs
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { createMockLlm, DEFAULT_REPLY } from "../mock-llm.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SDK = path.join(HERE, ".cache/node_modules/@google/genai/dist/node/index.mjs");
if (!fs.existsSync(SDK)) {
  console.log(`genai.test: skipped, ${SDK} missing (run tests/mock_llm/sdk/setup.sh)`);
  process.exit(77);
}
const { GoogleGenAI } = await import(pathToFileURL(SDK).href);

const KEY = "AIza-sdk-test-key";
const mock = createMockLlm({ apiKey: KEY });
const port = await mock.listen(0);
const baseUrl = `http://127.0.0.1:${port}`;
// apiVersion as in the baseUrl Pincer documents (…/v1beta); this SDK version defaults to v1.
const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl, apiVersion: "v1beta" } });
const tools = [{ functionDeclarations: [{ name: "get_weather", description: "Weather for a city", parameters: { type: "object", properties: { city: { type: "string" } } } }] }];

let failed = 0;
async function test(name, fn) {
  try {
    await fn();
    console.log(`ok   ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}\n     ${String(e?.stack ?? e).split("\n").slice(0, 6).join("\n     ")}`);
  }
}

await test("streams text with thoughts (x-goog-api-key, ?alt=sse)", async () => {
  const stream = await ai.models.generateContentStream({
    model: "gemini-2.5-flash",
    contents: "hello MOCK_REASON ECHO:sdk",
    config: { systemInstruction: "Be brief.", thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } },
  });
  let text = "";
  let thoughts = "";
  let chunks = 0;
  let finish;
  let usage;
  for await (const chunk of stream) {
    chunks++;
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.thought) thoughts += part.text ?? "";
      else text += part.text ?? "";
    }
    finish = chunk.candidates?.[0]?.finishReason ?? finish;
    usage = chunk.usageMetadata ?? usage;
  }
  assert.equal(text, `${DEFAULT_REPLY} [sdk]`);
  assert.ok(thoughts.length > 10, "thought parts");
  assert.ok(chunks > 3, `${chunks} chunks`);
  assert.equal(finish, "STOP");
  assert.ok(usage.promptTokenCount > 0 && usage.thoughtsTokenCount > 0);
  const rec = mock.state.requests.at(-1);
  assert.equal(rec.api, "google-generative-ai");
  assert.equal(rec.path, "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  assert.equal(rec.gemini.sse, true);
  assert.equal(rec.headers["x-goog-api-key"], "[redacted]");
  assert.equal(rec.body.contents[0].role, "user");
  assert.equal(rec.body.systemInstruction.parts[0].text, "Be brief.");
});

await test("streams a function call, then answers its function response", async () => {
  const prompt = 'MOCK_TOOL:get_weather:{"city":"Paris"}';
  const stream = await ai.models.generateContentStream({ model: "gemini-2.5-flash", contents: prompt, config: { tools } });
  const calls = [];
  let signature;
  for await (const chunk of stream) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.functionCall) calls.push(part.functionCall);
      if (part.functionCall && part.thoughtSignature) signature = part.thoughtSignature;
    }
  }
  assert.equal(calls.length, 1);
  assert.equal(calls[0].name, "get_weather");
  assert.deepEqual(calls[0].args, { city: "Paris" });
  assert.ok(signature, "thoughtSignature on the call");
  const second = await ai.models.generateContent({
    model: "gemini-2.5-flash",
    contents: [
      { role: "user", parts: [{ text: prompt }] },
      { role: "model", parts: [{ functionCall: calls[0], thoughtSignature: signature }] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { output: "sunny" } } }] },
    ],
    config: { tools },
  });
  assert.equal(second.text, "Tool said: sunny");
  assert.equal(mock.state.requests.at(-1).path, "/v1beta/models/gemini-2.5-flash:generateContent");
});

await test("errors arrive as the SDK's ApiError with Google's status", async () => {
  for (const [kw, status] of [["MOCK_429", 429], ["MOCK_OVERFLOW", 400], ["MOCK_ERR:503", 503]]) {
    const err = await ai.models.generateContent({ model: "gemini-2.5-flash", contents: kw }).then(() => null, (e) => e);
    assert.ok(err, `${kw} must fail`);
    assert.equal(err.status, status, `${kw}: ${err}`);
    assert.match(err.message, status === 429 ? /RESOURCE_EXHAUSTED/ : status === 400 ? /INVALID_ARGUMENT/ : /UNAVAILABLE/);
  }
  const wrong = new GoogleGenAI({ apiKey: "nope", httpOptions: { baseUrl } });
  const err = await wrong.models.generateContent({ model: "gemini-2.5-flash", contents: "hi" }).then(() => null, (e) => e);
  assert.equal(err?.status, 400);
  assert.match(err.message, /API key not valid/);
});

await mock.close();
console.log(`genai.test: ${failed ? "FAILED" : "passed"}`);
process.exit(failed ? 1 : 0);
