#!/usr/bin/python3
"""locksim adapter for redis-py's Lock (redis/lock.py), one process per client.

Speaks locksim's line-delimited JSON on stdin/stdout (see the README's
"Process designs" section). Runs under Debian's /usr/bin/python3 with
python3-redis. Every call is redis-py's own: Lock.acquire (SET NX PX),
Lock.release (Lua compare-and-delete) and Lock.extend (Lua, replace_ttl).
"""
import json
import sys

import redis
from redis.exceptions import LockError, LockNotOwnedError

client = None
options = {}


def answer(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def hello(req):
    global client, options
    host, port = req["nodes"][0].rsplit(":", 1)
    options = req.get("options", {})
    # one command, no retries: a retried SET NX whose reply was lost would
    # be a command the lock never meant to send twice
    client = redis.Redis(host=host, port=int(port), socket_timeout=1.0,
                         socket_connect_timeout=1.0, retry_on_timeout=False)
    return {"result": "ok", "name": "redis-py", "version": redis.__version__}


def new_lock(req):
    ttl = req.get("ttl_ms", options.get("ttl_ms", 500)) / 1000.0
    return client.lock(req["key"], timeout=ttl,
                       sleep=options.get("retry_delay_ms", 50) / 1000.0,
                       thread_local=False)


def acquire(req):
    lk = new_lock(req)
    wait = req.get("wait_ms", 0) / 1000.0
    # blocking_timeout 0: one SET NX PX, then give up; locksim's loop retries
    if lk.acquire(blocking=wait > 0, blocking_timeout=wait):
        return {"result": "ok", "token": lk.local.token.decode()}
    return {"result": "refused", "error": "lock held by another owner"}


def release(req):
    lk = new_lock(req)
    lk.local.token = req["token"].encode()
    lk.release()
    return {"result": "ok"}


def extend(req):
    lk = new_lock(req)
    lk.local.token = req["token"].encode()
    lk.extend(req.get("ttl_ms", options.get("ttl_ms", 500)) / 1000.0, replace_ttl=True)
    return {"result": "ok"}


OPS = {"hello": hello, "acquire": acquire, "release": release, "extend": extend}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        rid = req.get("id", 0)
        op = OPS.get(req.get("op"))
        if op is None:
            msg = {"result": "error", "error": "unknown op %r" % req.get("op")}
        else:
            try:
                msg = op(req)
            except LockNotOwnedError as e:
                msg = {"result": "refused", "error": str(e)}
            except (redis.RedisError, LockError, OSError) as e:
                msg = {"result": "error", "error": "%s: %s" % (type(e).__name__, e)}
        msg["id"] = rid
        answer(msg)


if __name__ == "__main__":
    main()
