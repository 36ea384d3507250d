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
import redis.cluster
import redis.connection
from redis.exceptions import LockError, LockNotOwnedError

client = None
options = {}


def answer(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()


def split(addr):
    host, port = addr.rsplit(":", 1)
    return host, int(port)


class ProxiedConnection(redis.connection.Connection):
    """A connection that dials a cluster node at the address hello's
    cluster map gives for it (the client's proxy): the cluster announces
    its nodes' own addresses in CLUSTER SLOTS, -MOVED and -ASK, and
    RedisCluster connects to those. redis-py 4.3.4 has no address_remap;
    its node pools take a connection class when the cluster is given by
    url, and this one maps the addresses, as locksim's own cluster client
    maps them in its dialer. An address that is neither a node's nor a
    proxy's is an error, never a direct connection."""

    dial = {}

    def _connect(self):
        addr = "%s:%d" % (self.host, self.port)
        via = self.dial.get(addr)
        if via is None:
            if addr not in self.dial.values():
                raise redis.ConnectionError("no proxy for cluster node %s" % addr)
            via = addr
        own = (self.host, self.port)
        self.host, self.port = split(via)
        try:
            return super()._connect()
        finally:
            self.host, self.port = own


def hello(req):
    global client, options
    options = req.get("options", {})
    cluster = req.get("cluster")
    if cluster:
        ProxiedConnection.dial = cluster["dial"]
        # RedisCluster follows MOVED and ASK itself; after a connection
        # error it tries the same node again (redis-py's own loop, up to 5
        # times), which locksim leaves as the library ships it. The
        # outer retry over a fresh slot table is cut to one attempt.
        # (given by url, RedisCluster builds each node's pool with
        # connection_class; given by host and port, it drops it)
        seeds = req["nodes"]
        client = redis.cluster.RedisCluster(
            url="redis://" + seeds[0],
            startup_nodes=[redis.cluster.ClusterNode(*split(a)) for a in seeds[1:]],
            connection_class=ProxiedConnection, cluster_error_retry_attempts=1,
            socket_timeout=1.0, socket_connect_timeout=1.0, retry_on_timeout=False)
    else:
        host, port = split(req["nodes"][0])
        # one command, no retries: a retried SET NX whose reply was lost
        # would be a command the lock never meant to send twice
        client = redis.Redis(host=host, port=port, socket_timeout=1.0,
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
            except (redis.RedisError, redis.exceptions.RedisClusterException, LockError, OSError) as e:
                msg = {"result": "error", "error": "%s: %s" % (type(e).__name__, e)}
        msg["id"] = rid
        answer(msg)


if __name__ == "__main__":
    main()
