// What the tests of `pincer mcp serve` and `pincer acp` share: the command-line arguments
// (<pincer binary> <source dir>), the SDKs installed by setup.sh, a real gateway (`pincer gateway
// run`) on a free port with the mock LLM as its model, and raw stdio children for the bad-input
// tests (lines written to stdin, replies read line by line from stdout).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { launchGateway, startMockLlm, tearDown } from '../channels/harness.mjs';
import { cleanEnv } from '../support/processes.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const TOKEN = 'interop-servers-gateway-token-0123456789';

/// {pincer, srcDir} from argv; exits 2 with a usage line, or 77 (skipped) when the SDKs are missing.
export function testArguments(script) {
  const [binArg, srcArg] = process.argv.slice(2);
  const pincer = binArg || process.env.PINCER_BINARY;
  const srcDir = srcArg || path.resolve(here, '../..');
  if (!pincer || !existsSync(pincer)) {
    console.error(`usage: node tests/interop_servers/${script} <pincer binary> <source dir>`);
    process.exit(2);
  }
  if (!existsSync(sdkPath('@modelcontextprotocol/sdk/package.json')) || !existsSync(sdkPath('@agentclientprotocol/sdk/package.json'))) {
    console.error('the MCP/ACP SDKs are not installed: run tests/interop_servers/setup.sh');
    process.exit(77);
  }
  return { pincer, srcDir };
}

export function sdkPath(rel) {
  return path.join(here, '.cache/node_modules', rel);
}
export const importSdk = (rel) => import(pathToFileURL(sdkPath(rel)).href);

/// A gateway with the mock LLM: {gateway, mock, mockPort, port, home, env (for the stdio children)}.
/// `extraConfig`: more top-level JSON5 members of pincer.json.
export async function startGateway(srcDir, pincer, extraConfig = '') {
  const base = cleanEnv();
  const home = mkdtempSync(path.join(os.tmpdir(), 'pincer-interop-servers-'));
  const { mock, port: mockPort } = await startMockLlm(srcDir, base);
  writeFileSync(path.join(home, 'pincer.json'), `{
  gateway: { auth: { token: '${TOKEN}' } },
  models: { providers: { mock: { baseUrl: 'http://127.0.0.1:${mockPort}/v1', apiKey: 'k', api: 'openai-completions',
    models: [ { id: 'mock-model' } ] } } },
  agents: { defaults: { model: { primary: 'mock/mock-model' } } },
  ${extraConfig}
}\n`);
  mkdirSync(path.join(home, 'workspace'), { recursive: true });
  const gateway = launchGateway(pincer, base, home);
  const port = Number((await gateway.ready)[1]);
  // The stdio children find the gateway as an editor's would: an explicit URL and token.
  const env = { ...base, PINCER_HOME: home, PINCER_GATEWAY_TOKEN: TOKEN };
  return { gateway, mock, mockPort, port, home, env, url: `ws://127.0.0.1:${port}` };
}

export const stopGateway = (g) => tearDown({ gateway: g?.gateway, mock: g?.mock, home: g?.home });

export async function mockCall(mockPort, pathname, body) {
  const res = await fetch(`http://127.0.0.1:${mockPort}${pathname}`, body === undefined ? {} : { method: 'POST', body: JSON.stringify(body) });
  if (res.status !== 200) throw new Error(`${pathname}: HTTP ${res.status}`);
  return res.json();
}

/// A raw stdio child: send(obj|string) writes a line, next() resolves with the next stdout line
/// parsed as JSON, exited resolves with {code, signal}; stderr() is what it logged.
export function rawChild(pincer, args, env) {
  const child = spawn(pincer, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const lines = [];
  const waiting = [];
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else lines.push(line);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    exited,
    stderr: () => err,
    send(message) {
      child.stdin.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    },
    async next() {
      const line = lines.length ? lines.shift() : await new Promise((resolve) => waiting.push(resolve));
      return JSON.parse(line);
    },
    /// The next line that is a response (skips notifications such as session/update).
    async nextResponse() {
      for (;;) {
        const m = await this.next();
        if (m.method === undefined) return m;
      }
    },
    pendingLines: () => lines.length,
  };
}
