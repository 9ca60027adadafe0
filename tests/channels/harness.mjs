// What every Telegram end-to-end test needs (tests/channels/telegram*.test.mjs): the command-line
// arguments (<pincer binary> <source dir>), the npm Bot API emulator `telegram-test-api` installed
// by tests/channels/setup.sh, the mock LLM, free loopback ports and small waits.
import { createRequire } from 'node:module';
import { existsSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, stop } from '../support/processes.mjs';
import { parseMultipart } from '../support/multipart.mjs';

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

/// The emulator's class (`new TelegramServer({port, host, storeTimeout})`), recording the
/// answerCallbackQuery calls it gets (`callbackAnswers`), and made to follow the Bot
/// API's getUpdates contract: an update is returned until a later call's `offset` passes it
/// (https://core.telegram.org/bots/api#getupdates). The emulator as published marks an update read
/// as soon as any getUpdates returns it, so an update in the answer to a poller that was just
/// stopped (an account restarted by a reload) was gone for its successor — a loss real Telegram
/// never causes, and a flaky telegram_reload test.
/// Some of the emoji the Bot API allows as reactions (ReactionTypeEmoji); "🦀" is not one of them.
const TELEGRAM_REACTIONS = new Set(['👍', '👎', '❤', '🔥', '🥰', '👏', '😁', '🤔', '🎉', '👀', '🙏', '👌', '✍']);

/// Reads a multipart/form-data request into {fields, files} (tests/support/multipart.mjs); null
/// when the request is not multipart.
export function parseMultipartForm(req) {
  if (!/multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return null;
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('error', reject);
    req.on('end', () => resolve(parseMultipart(Buffer.concat(chunks), req.headers['content-type'])));
  });
}

export function telegramServerClass() {
  const Emulator = createRequire(path.join(here, '.cache/package.json'))('telegram-test-api');
  return class BotApiTelegramServer extends Emulator {
    constructor(config) {
      super(config);
      this.offsets = new Map();  // bot token -> the offset of its latest getUpdates
      this.callbackAnswers = [];  // bodies of answerCallbackQuery calls, in order (the emulator keeps none)
      this.files = new Map();  // file_id -> {path, bytes}: served by getFile and /file/bot<token>/<path> (addFile)
      this.fileDownloads = [];  // paths downloaded, in order
      this.reactions = [];  // setMessageReaction bodies that were accepted, in order (the emulator has no such method)
      this.uploads = [];  // sendPhoto/sendDocument multipart uploads: {method, fields, file: {field, filename, contentType, bytes}}
      this.commandMenus = new Map();  // bot token -> its command menu (setMyCommands; the emulator has none)
      this.commandMenuCalls = [];  // getMyCommands / setMyCommands / deleteMyCommands, in order
      const app = this.webServer;
      app.use((req, res, next) => {
        const upload = /^\/bot[^/]+\/(sendPhoto|sendDocument)$/.exec(req.path);
        if (upload) {
          // As the Bot API: a new file arrives as multipart/form-data (the emulator has neither method).
          const parsed = parseMultipartForm(req);
          if (!parsed) return res.status(400).json({ ok: false, error_code: 400, description: 'Bad Request: expected multipart/form-data' });
          return parsed.then(({ fields, files }) => {
            const field = upload[1] === 'sendPhoto' ? 'photo' : 'document';
            const file = files.find((f) => f.field === field);
            if (!fields.chat_id || !file) {
              return res.status(400).json({ ok: false, error_code: 400, description: `Bad Request: there is no ${field} in the request` });
            }
            if ((fields.caption ?? '').length > 1024) {
              return res.status(400).json({ ok: false, error_code: 400, description: 'Bad Request: message caption is too long' });
            }
            this.uploads.push({ method: upload[1], fields, file });
            const messageId = 900000 + this.uploads.length;
            return res.json({ ok: true, result: { message_id: messageId, date: Math.floor(Date.now() / 1000),
              chat: { id: Number(fields.chat_id) }, caption: fields.caption,
              [field]: field === 'photo' ? [{ file_id: `up-${messageId}`, file_size: file.bytes.length }]
                : { file_id: `up-${messageId}`, file_name: file.filename, mime_type: file.contentType, file_size: file.bytes.length } } });
          });
        }
        if (/^\/bot[^/]+\/setMessageReaction$/.test(req.path)) {
          // As the Bot API: a bot may only use the reactions Telegram lists; others are refused.
          const body = { ...req.query, ...req.body };
          const reaction = Array.isArray(body.reaction) ? body.reaction : [];
          if (reaction.some((r) => r.type !== 'emoji' || !TELEGRAM_REACTIONS.has(r.emoji))) {
            return res.status(400).json({ ok: false, error_code: 400, description: 'Bad Request: REACTION_INVALID' });
          }
          this.reactions.push({ chat_id: body.chat_id, message_id: body.message_id, reaction });
          return res.json({ ok: true, result: true });
        }
        const menu = /^\/bot([^/]+)\/(getMyCommands|setMyCommands|deleteMyCommands)$/.exec(req.path);
        if (menu) {
          this.commandMenuCalls.push(menu[2]);
          if (menu[2] === 'getMyCommands') return res.json({ ok: true, result: this.commandMenus.get(menu[1]) ?? [] });
          if (menu[2] === 'deleteMyCommands') return this.commandMenus.delete(menu[1]), res.json({ ok: true, result: true });
          // As the Bot API: at most 100 commands of 1-32 a-z, 0-9, _; descriptions of 1-256 characters.
          let { commands } = { ...req.query, ...req.body };
          if (typeof commands === 'string') commands = JSON.parse(commands);
          const valid = Array.isArray(commands) && commands.length <= 100 && commands.every((c) =>
            /^[a-z0-9_]{1,32}$/.test(c?.command ?? '') && typeof c.description === 'string' &&
            c.description.length >= 1 && c.description.length <= 256);
          if (!valid) return res.status(400).json({ ok: false, error_code: 400, description: 'Bad Request: BOT_COMMAND_INVALID' });
          this.commandMenus.set(menu[1], commands.map((c) => ({ command: c.command, description: c.description })));
          return res.json({ ok: true, result: true });
        }
        if (/^\/bot[^/]+\/getFile$/.test(req.path)) {
          const id = (req.body && req.body.file_id) || (req.query && req.query.file_id);
          const f = this.files.get(id);
          if (!f) return res.status(400).json({ ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
          return res.json({ ok: true, result: { file_id: id, file_unique_id: id, file_size: f.bytes.length, file_path: f.path } });
        }
        const dl = /^\/file\/bot[^/]+\/(.+)$/.exec(req.path);
        if (dl) {
          const f = [...this.files.values()].find((x) => x.path === dl[1]);
          if (!f) return res.status(404).end();
          this.fileDownloads.push(dl[1]);
          return res.type('application/octet-stream').send(f.bytes);
        }
        const m = /^\/bot([^/]+)\/getUpdates$/.exec(req.path);
        if (m) this.offsets.set(m[1], Number((req.body && req.body.offset) || (req.query && req.query.offset) || 0));
        if (/^\/bot[^/]+\/answerCallbackQuery$/.test(req.path)) this.callbackAnswers.push({ ...req.query, ...req.body });
        next();
      });
      // Move that middleware before the routes: right after the body parsers and request logger.
      const stack = app._router.stack;
      const layer = stack.pop();
      const afterParsers = stack.findIndex((l) => l.name === 'requestLogger') + 1;
      if (afterParsers <= 0) throw new Error('telegram-test-api changed: no requestLogger middleware to insert after');
      stack.splice(afterParsers, 0, layer);
    }
    /// A file the Bot API serves (getFile → file_path → download); returns its file_id.
    addFile(fileId, bytes, filePath) {
      this.files.set(fileId, { path: filePath, bytes: Buffer.from(bytes) });
      return fileId;
    }
    getUpdates(token) {
      const offset = this.offsets.get(token) ?? 0;
      const mine = this.storage.userMessages.filter((u) => u.botToken === token);
      for (const u of mine) if (u.updateId < offset) u.isRead = true;  // confirmed by the offset
      return mine.filter((u) => !u.isRead).map((u) => Emulator.formatUpdate(u));
    }
  };
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The texts the bot `token` sent to chat `chat` on the emulator `server`, oldest first. */
export function botTextsIn(server, token, chat) {
  return server.getUpdatesHistory(token)
    .filter((u) => u.message && String(u.message.chat_id) === String(chat))
    .map((u) => String(u.message.text));
}

/** Polls `predicate` every 50 ms; after `ms`, fails with `what` and `context()` (e.g. chats, logs). */
export async function waitUntil(predicate, what, context, ms = 40000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await predicate()) return;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}; ${context()}`);
}

/** How many of `texts` contain `needle`. */
export const countContaining = (texts, needle) => texts.filter((t) => t.includes(needle)).length;

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
