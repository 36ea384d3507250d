#!/bin/sh
# refusehello.sh: an adapter whose library cannot run on these servers.
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	printf '{"id":%s,"result":"refused","error":"the server lacks what the library needs"}\n' "$id"
done
