#!/usr/bin/env node
// locksim adapter for npm's redlock (Redlock over ioredis), one process per
// client. Speaks locksim's line-delimited JSON on stdin/stdout (see the
// README's "Process designs" section). Every lock call is redlock's own:
// lock (one round on every node, quorum, drift), unlock, extend.
'use strict';

const readline = require('readline');
const Redis = require('ioredis');
const Redlock = require('redlock');

let redlock = null;
let clients = [];
let options = {};
let clientErrors = 0; // node errors seen during the request in progress
const held = new Map(); // token -> redlock Lock, for extend and release

function answer(msg) {
  process.stdout.write(JSON.stringify(msg) + '\n');
}

function hostPort(addr) {
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i), port: Number(addr.slice(i + 1)) };
}

function hello(req) {
  options = req.options || {};
  // a node's reply is a lost vote after the run's node timeout (Redlock's
  // "small compared to the TTL"; locksim's redlock uses the same)
  const timeout = options.node_timeout_ms || Math.max(Math.floor((options.ttl_ms || 500) / 10), 5);
  const nodeOptions = {
    // one command, no retries, no queueing while disconnected: a node
    // that does not answer within the node timeout is a lost vote
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    commandTimeout: timeout,
    connectTimeout: 1000,
    retryStrategy: () => 20,
    enableReadyCheck: false,
  };
  if (req.cluster) {
    // One Redis Cluster, passed to redlock as its one client (its README:
    // "a single redis cluster ... by passing one preconfigured client").
    // The seeds are the client's proxies; natMap sends every address the
    // cluster announces (CLUSTER SLOTS, -MOVED, -ASK) to its proxy too.
    const natMap = {};
    for (const [own, via] of Object.entries(req.cluster.dial)) natMap[own] = hostPort(via);
    const c = new Redis.Cluster(req.nodes.map(hostPort), {
      natMap,
      redisOptions: nodeOptions,
      enableOfflineQueue: false,
      enableReadyCheck: false,
      // a redirect is followed; ioredis's defaults wait 100 ms before
      // following one after a failover or a CLUSTERDOWN
      clusterRetryStrategy: () => 20,
    });
    c.on('error', () => {}); // reported per command through clientError
    clients = [c];
  } else {
    clients = req.nodes.map((addr) => {
      const c = new Redis({ ...hostPort(addr), ...nodeOptions });
      c.on('error', () => {}); // reported per command through clientError
      return c;
    });
  }
  redlock = new Redlock(clients, {
    driftFactor: typeof options.drift === 'number' ? options.drift : 0.01,
    retryCount: 0, // one round per acquire: locksim's loop retries
    retryDelay: options.retry_delay_ms || 50,
  });
  redlock.on('clientError', () => { clientErrors++; });
  const version = require('redlock/package.json').version;
  // connected before the first round, or given up on after a second (a
  // node out of reach from the start is a lost vote, as in any round)
  const ready = clients.map((c) => new Promise((resolve) => {
    if (c.status === 'ready') return resolve();
    c.once('ready', resolve);
    setTimeout(resolve, 1000).unref();
  }));
  // load redlock's scripts, so that the first round is not also the one
  // that compiles them (EVALSHA, NOSCRIPT, EVAL) in a freshly started
  // runtime; a node that restarts later loses them, as in production
  // (a cluster's on every master it knows)
  const servers = () => clients.flatMap((c) => (c instanceof Redis.Cluster ? c.nodes('master') : [c]));
  const load = () => Promise.all(servers().map((c) => Promise.all(Object.values(redlock.scripts).map(
    (sc) => c.script('load', sc.value).catch(() => {})))));
  return Promise.all(ready).then(load).then(() => ({ result: 'ok', name: 'node-redlock', version }));
}

function failed(err) {
  // A LockError with every node answering is a definite no; a node that
  // did not answer may have taken the command: unknown.
  if (err instanceof Redlock.LockError && clientErrors === 0) {
    return { result: 'refused', error: err.message };
  }
  return { result: 'error', error: String(err && err.message || err) + (clientErrors ? ` (${clientErrors} node errors)` : '') };
}

// A failed round is a definite no even when some nodes did not answer:
// redlock does not act as the holder and sends the unlock to every node
// (a lost reply may hide a SET that took effect); what that misses expires
// within the TTL and nobody relies on it. Redlock's own rule, as locksim's
// redlock design applies it.
function acquire(req) {
  const t0 = Date.now();
  return redlock.lock(req.key, req.ttl_ms || options.ttl_ms || 500).then((lk) => {
    held.set(lk.value, lk);
    return { result: 'ok', token: lk.value, validity_ms: lk.expiration - t0 };
  }, (err) => {
    if (err instanceof Redlock.LockError) {
      return { result: 'refused', error: err.message + (clientErrors ? ` (${clientErrors} node errors)` : '') };
    }
    return failed(err);
  });
}

function known(req) {
  let lk = held.get(req.token);
  if (!lk) {
    // a lease this process did not take (it should not happen): rebuild it
    lk = new Redlock.Lock(redlock, req.key, req.token, Date.now() + (options.ttl_ms || 500), 0, 0);
  }
  return lk;
}

function release(req) {
  const lk = known(req);
  held.delete(req.token);
  return redlock.unlock(lk).then(() => ({ result: 'ok' }), failed);
}

function extend(req) {
  const t0 = Date.now();
  return redlock.extend(known(req), req.ttl_ms || options.ttl_ms || 500).then((lk) => {
    held.set(lk.value, lk);
    return { result: 'ok', validity_ms: lk.expiration - t0 };
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
    clientErrors = 0;
    const p = op ? Promise.resolve().then(() => op(req)) : Promise.resolve({ result: 'error', error: `unknown op ${req.op}` });
    return p.catch((e) => ({ result: 'error', error: String(e && e.message || e) }))
      .then((msg) => { msg.id = req.id || 0; answer(msg); });
  });
});
rl.on('close', () => {
  chain.then(() => Promise.all(clients.map((c) => c.quit().catch(() => {})))).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 500).unref();
});
