// The OAuth 2.0 token endpoint of the mock LLM (RFC 6749 §6, refresh_token grant), as the real
// ones speak it: a form-encoded (OpenAI, xAI) or JSON (Anthropic) body in, a JSON token answer or
// a JSON error ({error, error_description}) out. Used by the gateway's OAuth refresh tests.
//
//   POST /oauth/token (also /v1/oauth/token)
//   POST /__mock/oauth  configures it (merged): {refreshToken?: the refresh token it accepts (else
//        any), accessToken?: the next access token issued (else generated), nextRefreshToken?,
//        expiresIn? (s, default 3600), error?: "invalid_grant" | … answered instead (status?,
//        default 400), hold?: a hold name (released with /__mock/release?name=…)}; {"reset": true}
//        clears calls and configuration
//   GET  /__mock/oauth  {calls: [{n, format, grantType, clientId, refreshMatched, status}], issued: [access tokens]}

export function createOAuthState() {
  return { config: {}, calls: [], issued: [] };
}

function parseTokenBody(contentType, raw) {
  if (/application\/json/i.test(contentType)) {
    const j = JSON.parse(raw || "{}");
    if (!j || typeof j !== "object" || Array.isArray(j)) throw new Error("the body must be a JSON object");
    return { format: "json", params: j };
  }
  if (/application\/x-www-form-urlencoded/i.test(contentType)) {
    return { format: "form", params: Object.fromEntries(new URLSearchParams(raw)) };
  }
  throw new Error(`unsupported content type ${contentType || "(none)"}`);
}

/** Handles the OAuth routes; returns false for other paths. */
export async function handleOAuth(oauth, req, res, path, method, { readBody, sendJson, holdGate }) {
  if (path === "/__mock/oauth") {
    if (method === "POST") {
      let cfg;
      try {
        cfg = JSON.parse((await readBody(req)) || "{}");
      } catch (e) {
        sendJson(res, 400, { error: `invalid JSON: ${e.message}` });
        return true;
      }
      if (cfg.reset) Object.assign(oauth, createOAuthState());
      delete cfg.reset;
      Object.assign(oauth.config, cfg);
    }
    sendJson(res, 200, { calls: oauth.calls, issued: oauth.issued, config: { ...oauth.config, refreshToken: undefined } });
    return true;
  }
  if (path !== "/oauth/token" && path !== "/v1/oauth/token") return false;
  if (method !== "POST") {
    sendJson(res, 405, { error: "invalid_request", error_description: "use POST" });
    return true;
  }
  const raw = await readBody(req);
  const call = { n: oauth.calls.length + 1, format: null, grantType: null, clientId: null, refreshMatched: null, status: 0 };
  oauth.calls.push(call);
  const answer = (status, body) => {
    call.status = status;
    sendJson(res, status, body, { "Cache-Control": "no-store", Pragma: "no-cache" });
  };
  let parsed;
  try {
    parsed = parseTokenBody(req.headers["content-type"] ?? "", raw);
  } catch (e) {
    answer(400, { error: "invalid_request", error_description: e.message });
    return true;
  }
  const { format, params } = parsed;
  call.format = format;
  call.grantType = params.grant_type ?? null;
  call.clientId = params.client_id ?? null;
  if (oauth.config.hold) await holdGate(oauth.config.hold, res);
  if (params.grant_type !== "refresh_token") {
    answer(400, { error: "unsupported_grant_type", error_description: `grant_type ${params.grant_type ?? "(missing)"} is not supported` });
    return true;
  }
  if (typeof params.refresh_token !== "string" || !params.refresh_token) {
    answer(400, { error: "invalid_request", error_description: "refresh_token is required" });
    return true;
  }
  call.refreshMatched = !oauth.config.refreshToken || params.refresh_token === oauth.config.refreshToken;
  if (oauth.config.error) {
    answer(Number(oauth.config.status ?? 400), { error: oauth.config.error, error_description: `mock: ${oauth.config.error}` });
    return true;
  }
  if (!call.refreshMatched) {
    answer(400, { error: "invalid_grant", error_description: "Invalid refresh token" });
    return true;
  }
  const n = oauth.issued.length + 1;
  const access = oauth.config.accessToken ?? `MockOAuthAccess${n}x${Math.random().toString(36).slice(2, 12)}`;
  const refresh = oauth.config.nextRefreshToken ?? `MockOAuthRefresh${n}x${Math.random().toString(36).slice(2, 12)}`;
  delete oauth.config.accessToken;
  delete oauth.config.nextRefreshToken;
  oauth.issued.push(access);
  oauth.config.refreshToken = refresh;  // refresh tokens rotate: the old one is spent
  answer(200, { access_token: access, token_type: "Bearer", expires_in: Number(oauth.config.expiresIn ?? 3600), refresh_token: refresh, scope: "openid" });
  return true;
}
