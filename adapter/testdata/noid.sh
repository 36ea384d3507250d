#!/bin/sh
# noid.sh: an adapter whose replies carry no id, against the protocol.
while IFS= read -r line; do
	printf '{"result":"ok","name":"noid"}\n'
done
