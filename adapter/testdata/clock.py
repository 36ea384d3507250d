#!/usr/bin/python3
"""A test adapter that answers every acquire with its own clock readings:
the token is time.time() and time.monotonic() in ms, "wall/mono"."""
import json
import sys
import time

for line in sys.stdin:
    req = json.loads(line)
    msg = {"result": "ok"}
    if req["op"] == "acquire":
        msg["token"] = "%.3f/%.3f" % (time.time() * 1000, time.monotonic() * 1000)
    msg["id"] = req.get("id", 0)
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()
