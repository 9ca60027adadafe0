// Child processes for the Node-driven tests (web chat, channels): start one and wait for a line
// of its stdout, stop it gracefully, and an environment without proxies or gateway overrides.
import { spawn } from 'node:child_process';

export const WAIT_MS = 20000;

/// Starts `cmd args` and returns {child, ready, output}: `ready` resolves with the RegExp match
/// once stdout matches `pattern`, and rejects when the process exits first or WAIT_MS passes.
export function launch(cmd, args, env, pattern) {
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start: ${out}\n${err}`)), WAIT_MS);
    child.stdout.on('data', (d) => {
      out += d;
      const m = pattern.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m);
      }
    });
    child.on('exit', (code) => reject(new Error(`${cmd} exited with ${code}: ${out}\n${err}`)));
  });
  return { child, ready, output: () => out + err };
}

/// SIGTERM, then SIGKILL after 5 s; resolves when the process is gone.
export function stop(child, signal = 'SIGTERM') {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/// process.env without proxies (tests talk to loopback) and without PINCER_GATEWAY_* overrides.
export function cleanEnv() {
  const env = { ...process.env };
  for (const k of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy', 'ALL_PROXY', 'all_proxy',
    'PINCER_GATEWAY_TOKEN', 'PINCER_GATEWAY_PASSWORD', 'PINCER_GATEWAY_PORT', 'PINCER_GATEWAY_URL']) delete env[k];
  return env;
}
