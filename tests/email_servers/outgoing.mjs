// Pincer's outgoing mail server for the e-mail test: npm smtp-server on 127.0.0.1 (a random
// port), AUTH PLAIN/LOGIN against one user, plain ("none"), implicit TLS ("tls") or STARTTLS
// ("starttls") with the given certificate. Every accepted message is kept raw and parsed with npm
// mailparser: { raw, parsed (mailparser's ParsedMail), envelope: {from, to[]}, user }.
// `refuseNext(code, text)` answers the next DATA with an error (e.g. 451 or 550).
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, '.cache/node_modules/'));

export function loadPeers() {
  const missing = ['smtp-server', 'mailparser', 'nodemailer'].filter((p) => !fs.existsSync(path.join(here, '.cache/node_modules', p)));
  if (missing.length) throw new Error(`${missing.join(', ')} not installed: run tests/email_servers/setup.sh`);
  return {
    SMTPServer: require('smtp-server').SMTPServer,
    simpleParser: require('mailparser').simpleParser,
    nodemailer: require('nodemailer'),
  };
}

export async function startOutgoing({ user, password, security = 'none', cert, key }) {
  const { SMTPServer, simpleParser } = loadPeers();
  const messages = [];
  const logins = [];
  let refusal = null;
  const server = new SMTPServer({
    secure: security === 'tls',
    disabledCommands: security === 'none' ? ['STARTTLS'] : [],
    hideSTARTTLS: security === 'none',
    key: cert ? fs.readFileSync(key) : undefined,
    cert: cert ? fs.readFileSync(cert) : undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: security === 'none',
    logger: false,
    disableReverseLookup: true,  // no DNS in the test (the greeting would wait for it)
    onAuth(auth, session, cb) {
      logins.push({ user: auth.username, ok: auth.username === user && auth.password === password, secure: session.secure });
      if (auth.username === user && auth.password === password) return cb(null, { user });
      return cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks = [];
      stream.on('data', (c) => chunks.push(c));
      stream.on('end', async () => {
        if (refusal) {
          const { code, text } = refusal;
          refusal = null;
          return cb(Object.assign(new Error(text), { responseCode: code }));
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const parsed = await simpleParser(raw);
        messages.push({
          raw, parsed, user: session.user,
          envelope: { from: session.envelope.mailFrom.address, to: session.envelope.rcptTo.map((r) => r.address) },
        });
        cb();
      });
    },
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.on('error', () => {});  // a client hanging up mid-session is not the test's failure
  return {
    port: server.server.address().port,
    messages, logins,
    refuseNext(code, text) { refusal = { code, text }; },
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}
