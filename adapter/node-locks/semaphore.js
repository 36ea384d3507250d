#!/usr/bin/env node
// locksim adapter for npm's redis-semaphore, one process per client:
// `semaphore.js mutex` runs its Mutex (SET NX PX on the first node),
// `semaphore.js redlock` its RedlockMutex (SET NX PX on every node,
// a quorum). Every lock call is the library's own: tryAcquire with one
// attempt (locksim's loop retries), release, and the refresh its
// refreshInterval timer runs (_refresh, the same function), which locksim's
// watchdog calls through extend in place of the library's timer. The
// library prefixes the key with "mutex:".
'use strict';

const { connect, serve, version } = require('./serve');
const { Mutex, RedlockMutex } = require('redis-semaphore');

const kind = process.argv[2];
if (kind !== 'mutex' && kind !== 'redlock') {
  process.stderr.write('usage: semaphore.js mutex|redlock\n');
  process.exit(2);
}

let clients = [];
let options = {};
const held = new Map(); // token -> the Mutex that holds it

function hello(req) {
  options = req.options || {};
  const c = connect(req.nodes, options);
  clients = c.clients;
  if (kind === 'mutex') clients.slice(1).forEach((x) => x.disconnect());
  return c.ready.then(() => ({ result: 'ok', name: kind === 'mutex' ? 'redis-semaphore' : 'redis-semaphore-redlock', version: version('redis-semaphore') }));
}

function mutex(key, ttl) {
  const o = {
    lockTimeout: ttl,
    acquireTimeout: Math.max(ttl, 1000), // a bound the one attempt never reaches
    acquireAttemptsLimit: 1,
    retryInterval: 0, // the pause after a failed attempt, before giving up
    refreshInterval: 0, // locksim's watchdog refreshes, through extend
    onLockLost: () => {}, // a failed refresh is extend's refusal
  };
  return kind === 'mutex' ? new Mutex(clients[0], key, o) : new RedlockMutex(clients, key, o);
}

// The Mutex's one attempt throws on a node error (its outcome unknown);
// RedlockMutex counts a node error as a lost vote and, short of a quorum,
// deletes its key on every node before it answers false: a definite no.
function acquire(req) {
  const m = mutex(req.key, req.ttl_ms || options.ttl_ms || 500);
  return m.tryAcquire().then((ok) => {
    if (!ok) return { result: 'refused', error: 'lock held by another owner' };
    held.set(m.identifier, m);
    return { result: 'ok', token: m.identifier };
  });
}

function release(req) {
  const m = held.get(req.token);
  if (!m) return Promise.resolve({ result: 'error', error: 'unknown token' });
  held.delete(req.token);
  // the library answers nothing about whether the key was still its own
  return m.release().then(() => ({ result: 'ok' }));
}

function extend(req) {
  const m = held.get(req.token);
  if (!m) return Promise.resolve({ result: 'error', error: 'unknown token' });
  return m._refresh().then((ok) => (ok ? { result: 'ok' } : { result: 'refused', error: 'lock lost' }));
}

serve({ hello, acquire, release, extend }, () => Promise.all(clients.map((c) => c.quit().catch(() => {}))));
