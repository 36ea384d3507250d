#!/usr/bin/env node
// locksim adapter for npm's redis-semaphore, one process per client:
// `semaphore.js mutex` runs its Mutex (SET NX PX on the first node),
// `semaphore.js redlock` its RedlockMutex (SET NX PX on every node,
// a quorum). Every lock call is the library's own: tryAcquire with one
// attempt (locksim's loop retries), release, and the refresh its
// refreshInterval timer runs (_refresh, the same function), which locksim's
// watchdog calls through extend in place of the library's timer. The
// library prefixes the key with "mutex:". Its release answers nothing and
// its refresh folds a node's error into a no, so the adapter reads the
// nodes' replies to the library's scripts off the clients it hands it.
//
// A second argument names the installed package to run: an npm alias of
// another version (redis-semaphore-5.3.0), redis-semaphore (5.8.0) when
// left out.
'use strict';

const { connect, serve, version } = require('./serve');

const kind = process.argv[2];
const pkg = process.argv[3] || 'redis-semaphore';
if ((kind !== 'mutex' && kind !== 'redlock') || !/^redis-semaphore(-[0-9]+\.[0-9]+\.[0-9]+)?$/.test(pkg) || process.argv.length > 4) {
  process.stderr.write('usage: semaphore.js mutex|redlock [redis-semaphore[-VERSION]]\n');
  process.exit(2);
}
const { Mutex, RedlockMutex } = require(pkg);

let clients = [];
let options = {};
const held = new Map(); // token -> the Mutex that holds it
let seen = []; // clients as handed to the library
let replies = []; // per node, the last reply to a script since the request began

// observed is client as the library sees it, with the replies to its
// scripts (EVALSHA, or EVAL after NOSCRIPT) kept in replies[i].
function observed(client, i) {
  return new Proxy(client, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (typeof v !== 'function') return v;
      if (prop !== 'evalsha' && prop !== 'eval') return v.bind(target);
      return (...args) => v.apply(target, args).then((r) => {
        replies[i] = { value: r };
        return r;
      }, (e) => {
        if (!(prop === 'evalsha' && String(e && e.message).includes('NOSCRIPT'))) replies[i] = { error: e };
        throw e;
      });
    },
  });
}

// answered is the reply to a release or a refused refresh from what the
// nodes answered the library's script (1: done; 0: the key is not this
// owner's): ok with a quorum of 1s (the one node's 1 for the Mutex), a
// refusal when every node answered and too few said 1, else unknown.
function answered(what) {
  const n = kind === 'mutex' ? 1 : clients.length;
  const need = Math.floor(n / 2) + 1;
  let ones = 0;
  let errors = 0;
  for (let i = 0; i < n; i++) {
    const r = replies[i];
    if (!r || r.error) errors++;
    else if (+r.value === 1) ones++;
  }
  if (ones >= need) return { result: 'ok' };
  if (errors === 0) return { result: 'refused', error: `${what}: the key was not this owner's on ${n - ones} of ${n} node(s)` };
  return { result: 'error', error: `${what}: ${errors} of ${n} node(s) did not answer` };
}

function hello(req) {
  options = req.options || {};
  const c = connect(kind === 'mutex' ? req.nodes.slice(0, 1) : req.nodes, options);
  clients = c.clients;
  seen = clients.map(observed);
  return c.ready.then(() => ({ result: 'ok', name: kind === 'mutex' ? 'redis-semaphore' : 'redis-semaphore-redlock', version: version(pkg) }));
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
  return kind === 'mutex' ? new Mutex(seen[0], key, o) : new RedlockMutex(seen, key, o);
}

// The Mutex's one attempt throws on a node error (its outcome unknown);
// RedlockMutex counts a node error as a lost vote and, short of a quorum,
// deletes its key on every node before it answers false: a definite no.
function acquire(req) {
  const m = mutex(req.key, req.ttl_ms || options.ttl_ms || 500);
  return m.tryAcquire().then((ok) => {
    if (!ok) return { result: 'refused', error: kind === 'mutex' ? 'lock held by another owner' : 'short of a quorum: the key held elsewhere, or nodes that did not answer' };
    held.set(m.identifier, m);
    return { result: 'ok', token: m.identifier };
  });
}

function release(req) {
  const m = held.get(req.token);
  if (!m) return Promise.resolve({ result: 'error', error: 'unknown token' });
  held.delete(req.token);
  replies = [];
  return m.release().then(() => answered('release'));
}

function extend(req) {
  const m = held.get(req.token);
  if (!m) return Promise.resolve({ result: 'error', error: 'unknown token' });
  replies = [];
  return m._refresh().then((ok) => (ok ? { result: 'ok' } : answered('refresh')));
}

serve({ hello, acquire, release, extend }, () => Promise.all(clients.map((c) => c.quit().catch(() => {}))));
