#!/bin/sh
# longline.sh: an adapter that answers hello and then replies to every
# request with a line longer than the protocol's 1 MiB.
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case $line in
	*'"op":"hello"'*)
		printf '{"id":%s,"result":"ok","name":"longline"}\n' "$id"
		;;
	*)
		printf '{"id":%s,"result":"ok","token":"' "$id"
		head -c 1100000 /dev/zero | tr '\0' x
		printf '"}\n'
		;;
	esac
done
