#!/bin/sh
# checks.sh: an adapter whose library has its own validity check (hello
# says "checks":true) and whose check says the lock is no longer valid.
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case $line in
	*'"op":"hello"'*) printf '{"id":%s,"result":"ok","name":"checks","checks":true}\n' "$id" ;;
	*'"op":"acquire"'*) printf '{"id":%s,"result":"ok","token":"t1"}\n' "$id" ;;
	*'"op":"check"'*) printf '{"id":%s,"result":"refused","error":"expired"}\n' "$id" ;;
	*) printf '{"id":%s,"result":"ok"}\n' "$id" ;;
	esac
done
