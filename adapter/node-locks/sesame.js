#!/usr/bin/env node
// locksim adapter for npm's @sesamecare-oss/redlock (a maintained fork of
// redlock 5) over ioredis 5, one process per client. Every lock call is the
// library's own: acquire, release, extend, each one round on every node
// (retryCount 0: locksim's loop retries), as adapter/node-redlock runs
// redlock 5.
'use strict';

const { connect, serve, version } = require('./serve');
const { ensureCommands } = require('@sesamecare-oss/redlock/build/scripts');
const { Redlock, ExecutionError, ResourceLockedError } = require('@sesamecare-oss/redlock');

let redlock = null;
let clients = [];
let options = {};
const held = new Map(); // token -> the library's Lock, for extend and release

function hello(req) {
  options = req.options || {};
  const c = connect(req.nodes, options);
  clients = c.clients;
  redlock = new Redlock(clients, {
    driftFactor: typeof options.drift === 'number' ? options.drift : 0.01,
    retryCount: 0,
    retryDelay: options.retry_delay_ms || 50,
    retryJitter: 0,
  });
  redlock.on('error', () => {}); // node errors are votes against, read below
  // load the scripts, so that the first round is not also the one that
  // compiles them (EVALSHA, NOSCRIPT, EVAL), as adapter/node-redlock does
  const load = () => Promise.all(clients.map((cl) => {
    ensureCommands(cl);
    return Promise.all(Object.values(cl.scriptsSet).map((sc) => cl.script('load', sc.lua).catch(() => {})));
  }));
  return c.ready.then(load).then(() => ({ result: 'ok', name: 'sesame-redlock', version: version('@sesamecare-oss/redlock') }));
}

// nodeErrors counts the votes against that were not a held lock: a node
// that did not answer may have taken the command. Each attempt's stats are
// a promise that settles once every node has voted.
function nodeErrors(err) {
  return Promise.all((err && err.attempts) || []).then((stats) => {
    let n = 0;
    for (const a of stats) {
      for (const e of ((a && a.votesAgainst) || new Map()).values()) {
        if (!(e instanceof ResourceLockedError)) n++;
      }
    }
    return n;
  }, () => 0);
}

// failed is the reply to a release or extend the library rejected: a
// refusal when every node answered, else an unknown outcome.
function failed(err) {
  return nodeErrors(err).then((errors) => {
    if (err instanceof ExecutionError && errors === 0) {
      return { result: 'refused', error: err.message };
    }
    return { result: 'error', error: String(err && err.message || err) + (errors ? ` (${errors} node errors)` : '') };
  });
}

// A failed round is a definite no: the library sends its release round
// to every node before it rejects (as adapter/node-redlock's adapter5.js).
function acquire(req) {
  const t0 = Date.now();
  return redlock.acquire([req.key], req.ttl_ms || options.ttl_ms || 500).then((lk) => {
    held.set(lk.value, lk);
    return { result: 'ok', token: lk.value, validity_ms: lk.expiration - t0 };
  }, (err) => {
    if (err instanceof ExecutionError) return { result: 'refused', error: err.message };
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

serve({ hello, acquire, release, extend }, () => Promise.all(clients.map((c) => c.quit().catch(() => {}))));
