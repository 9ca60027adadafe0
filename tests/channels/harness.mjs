// What every Telegram end-to-end test needs (tests/channels/telegram*.test.mjs): the command-line
// arguments (<pincer binary> <source dir>), the npm Bot API emulator `telegram-test-api` installed
// by tests/channels/setup.sh, the mock LLM, free loopback ports and small waits.
import { createRequire } from 'node:module';
import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop } from '../support/processes.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/// {pincer, srcDir} from argv (or PINCER_BINARY); exits 2 with a usage line, or 1 when the
/// emulator is not installed.
export function testArguments(script) {
  const [binArg, srcArg] = process.argv.slice(2);
  const pincer = binArg || process.env.PINCER_BINARY;
  const srcDir = srcArg || path.resolve(here, '../..');
  if (!pincer || !existsSync(pincer)) {
    console.error(`usage: node tests/channels/${script} <pincer binary> <source dir>`);
    process.exit(2);
  }
  if (!existsSync(path.join(here, '.cache/node_modules/telegram-test-api'))) {
    console.error('telegram-test-api is not installed: run tests/channels/setup.sh');
    process.exit(1);
  }
  return { pincer, srcDir };
}

/// The emulator's class (`new TelegramServer({port, host, storeTimeout})`).
export function telegramServerClass() {
  return createRequire(path.join(here, '.cache/package.json'))('telegram-test-api');
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/// Starts tests/mock_llm/mock-llm.mjs on a free port: {mock (launch handle), port}.
export async function startMockLlm(srcDir, env) {
  const mock = launch(process.execPath, [path.join(srcDir, 'tests/mock_llm/mock-llm.mjs'), '--port', '0'], env,
    /mock-llm listening on http:\/\/127\.0\.0\.1:(\d+)/);
  return { mock, port: Number((await mock.ready)[1]) };
}

/// `pincer gateway run --port <port>` with PINCER_HOME=<home> (launch handle; `ready` matches the
/// port of the first "listening on" line). `port` null: no flag (gateway.port from the config).
export function launchGateway(pincer, env, home, port = 0) {
  const args = port === null ? ['gateway', 'run'] : ['gateway', 'run', '--port', String(port)];
  return launch(pincer, args, { ...env, PINCER_HOME: home }, /listening on ws:\/\/127\.0\.0\.1:(\d+)/);
}

/// Stops the gateway and the mock (SIGTERM), the emulator, and removes the home dir.
export async function tearDown({ gateway, mock, server, home }) {
  await stop(gateway?.child);
  await stop(mock?.child);
  await server?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
}
