#!/usr/bin/env node
// locksim adapter for npm's redlock 5.0.0-beta.2 (installed as redlock-5)
// over ioredis, one process per client. Speaks locksim's line-delimited
// JSON on stdin/stdout (docs/process-designs.md). Every lock call is
// redlock's own: acquire (one round on every node), release, extend.
'use strict';

const readline = require('readline');
const Redis = require('ioredis');
const { default: Redlock, ExecutionError, ResourceLockedError } = require('redlock-5');

let redlock = null;
let clients = [];
let options = {};
const held = new Map(); // token -> redlock Lock, for extend and release

function answer(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function hello(req) {
  options = req.options || {};
  // a node's reply is a lost vote after the run's node timeout, as in
  // adapter.js
  const timeout = options.node_timeout_ms || Math.max(Math.floor((options.ttl_ms || 500) / 10), 5);
  clients = req.nodes.map((addr) => {
    const i = addr.lastIndexOf(':');
    const c = new Redis({
      host: addr.slice(0, i),
      port: Number(addr.slice(i + 1)),
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      commandTimeout: timeout,
      connectTimeout: 1000,
      retryStrategy: () => 20,
      enableReadyCheck: false,
    });
    c.on('error', () => {}); // counted per request from the attempts' votes
    return c;
  });
  redlock = new Redlock(clients, {
    driftFactor: typeof options.drift === 'number' ? options.drift : 0.01,
    retryCount: 0, // one round per acquire: locksim's loop retries
    retryDelay: options.retry_delay_ms || 50,
    retryJitter: 0,
  });
  redlock.on('error', () => {}); // node errors are votes against, read below
  // the package's exports hide its package.json; read it from the folder
  const version = JSON.parse(require('fs').readFileSync(require('path').join(__dirname, 'node_modules', 'redlock-5', 'package.json'))).version;
  const ready = clients.map((c) => new Promise((resolve) => {
    if (c.status === 'ready') return resolve();
    c.once('ready', resolve);
    setTimeout(resolve, 1000).unref();
  }));
  // load redlock's scripts, so that the first round is not also the one
  // that compiles them (EVALSHA, NOSCRIPT, EVAL), as adapter.js does
  const load = () => Promise.all(clients.map((c) => Promise.all(Object.values(redlock.scripts).map(
    (sc) => c.script('load', sc.value).catch(() => {})))));
  return Promise.all(ready).then(load).then(() => ({ result: 'ok', name: 'node-redlock', version }));
}

// nodeErrors counts the votes against that were not a held lock: a node
// that did not answer may have taken the command.
function nodeErrors(err) {
  let n = 0;
  for (const a of (err && err.attempts) || []) {
    for (const e of (a.votesAgainst || new Map()).values()) {
      if (!(e instanceof ResourceLockedError)) n++;
    }
  }
  return n;
}

function failed(err) {
  const errors = nodeErrors(err);
  if (err instanceof ExecutionError && errors === 0) {
    return { result: 'refused', error: err.message };
  }
  return { result: 'error', error: String(err && err.message || err) + (errors ? ` (${errors} node errors)` : '') };
}

// A failed round is a definite no, as in adapter.js: redlock sends its
// release round to every node before it rejects.
function acquire(req) {
  const t0 = Date.now();
  return redlock.acquire([req.key], req.ttl_ms || options.ttl_ms || 500).then((lk) => {
    held.set(lk.value, lk);
    return { result: 'ok', token: lk.value, validity_ms: lk.expiration - t0 };
  }, (err) => {
    if (err instanceof ExecutionError) {
      return { result: 'refused', error: err.message };
    }
    return failed(err);
  });
}

function release(req) {
  const lk = held.get(req.token);
  if (!lk) return Promise.resolve({ result: 'error', error: 'unknown token' });
  held.delete(req.token);
  return redlock.release(lk).then(() => ({ result: 'ok' }), failed);
}

function extend(req) {
  const t0 = Date.now();
  const lk = held.get(req.token);
  if (!lk) return Promise.resolve({ result: 'error', error: 'unknown token' });
  return redlock.extend(lk, req.ttl_ms || options.ttl_ms || 500).then((nl) => {
    held.set(nl.value, nl);
    return { result: 'ok', validity_ms: nl.expiration - t0 };
  }, failed);
}

const ops = { hello, acquire, release, extend };

// one request at a time, in order
let chain = Promise.resolve();
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  if (!line.trim()) return;
  chain = chain.then(() => {
    let req;
    try {
      req = JSON.parse(line);
    } catch (e) {
      answer({ id: 0, result: 'error', error: 'bad request: ' + e.message });
      return;
    }
    const op = ops[req.op];
    const p = op ? Promise.resolve().then(() => op(req)) : Promise.resolve({ result: 'error', error: `unknown op ${req.op}` });
    return p.catch((e) => ({ result: 'error', error: String(e && e.message || e) }))
      .then((msg) => { msg.id = req.id || 0; answer(msg); });
  });
});
rl.on('close', () => {
  chain.then(() => Promise.all(clients.map((c) => c.quit().catch(() => {})))).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
});
