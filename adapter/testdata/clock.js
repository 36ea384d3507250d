// A test adapter that answers every acquire with its own clock readings:
// the token is Date.now() and process.hrtime in ms, "wall/mono".
'use strict';
const readline = require('readline');
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const req = JSON.parse(line);
  const msg = { result: 'ok' };
  if (req.op === 'acquire') {
    msg.token = `${Date.now()}/${Number(process.hrtime.bigint()) / 1e6}`;
  }
  msg.id = req.id || 0;
  process.stdout.write(JSON.stringify(msg) + '\n');
});
