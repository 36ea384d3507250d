// The part every adapter in this folder shares: ioredis clients for the
// nodes of hello, and locksim's line protocol on stdin/stdout (one request
// at a time, in order; docs/process-designs.md).
'use strict';

const readline = require('readline');
const Redis = require('ioredis');

// connect returns one ioredis client per node address. A node's reply is a
// lost vote (or an error of unknown outcome) after the run's node timeout,
// as in adapter/node-redlock: one command, no retries, no queueing while
// disconnected.
function connect(nodes, options) {
  const timeout = options.node_timeout_ms || Math.max(Math.floor((options.ttl_ms || 500) / 10), 5);
  const clients = nodes.map((addr) => {
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
      // ready once connected, with no CLIENT SETINFO round first (ioredis
      // 4, which adapter/node-redlock runs, sends none): a client that
      // reconnects after a node's restart is back at once
      disableClientInfo: true,
    });
    c.on('error', () => {}); // each command reports its own
    return c;
  });
  // connected before the first request, or given up on after a second (a
  // node out of reach from the start costs its vote, as in any round)
  const ready = Promise.all(clients.map((c) => new Promise((resolve) => {
    if (c.status === 'ready') return resolve();
    c.once('ready', resolve);
    setTimeout(resolve, 1000).unref();
  })));
  return { clients, ready };
}

// serve answers the requests on stdin with ops[req.op](req), a promise of
// the reply; quit runs once stdin closes, before the process exits.
function serve(ops, quit) {
  let chain = Promise.resolve();
  const rl = readline.createInterface({ input: process.stdin });
  const answer = (msg) => process.stdout.write(JSON.stringify(msg) + '\n');
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
    chain.then(() => quit()).catch(() => {}).finally(() => process.exit(0));
    setTimeout(() => process.exit(0), 500).unref();
  });
}

// version reads an installed package's version from its folder (some
// packages' exports hide package.json from require).
function version(pkg) {
  const fs = require('fs');
  const path = require('path');
  return JSON.parse(fs.readFileSync(path.join(__dirname, 'node_modules', pkg, 'package.json'))).version;
}

module.exports = { connect, serve, version };
