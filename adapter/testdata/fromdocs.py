#!/usr/bin/env python3
"""A single-node lock adapter written from the protocol in adapter/doc.go
alone: SET NX PX to acquire, compare-and-delete to release,
compare-and-pexpire to extend, on the first node hello names. Every reply
echoes its request's id, hello's too."""
import json
import sys
import uuid

import redis

RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"
EXTEND = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"


def handle(req, state):
    op = req["op"]
    if op == "hello":
        host, port = req["nodes"][0].rsplit(":", 1)
        timeout = req["options"].get("node_timeout_ms", 0) / 1000 or None
        state["r"] = redis.Redis(host=host.strip("[]"), port=int(port), socket_timeout=timeout)
        return {"result": "ok", "name": "fromdocs", "version": "1"}
    r = state["r"]
    if op == "acquire":
        token = uuid.uuid4().hex
        if r.set(req["key"], token, nx=True, px=req["ttl_ms"]):
            return {"result": "ok", "token": token}
        return {"result": "refused", "error": "held by another owner"}
    if op == "extend":
        if r.eval(EXTEND, 1, req["key"], req["token"], req["ttl_ms"]):
            return {"result": "ok"}
        return {"result": "refused", "error": "no longer held"}
    if op == "release":
        if r.eval(RELEASE, 1, req["key"], req["token"]):
            return {"result": "ok"}
        return {"result": "refused", "error": "no longer held"}
    return {"result": "error", "error": "unknown op " + op}


def main():
    state = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            rep = handle(req, state)
        except Exception as e:  # the outcome is unknown
            rep = {"result": "error", "error": str(e)}
        rep["id"] = req["id"]
        sys.stdout.write(json.dumps(rep) + "\n")
        sys.stdout.flush()


main()
