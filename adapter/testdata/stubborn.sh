#!/bin/sh
# stubborn.sh MODE PIDFILE: an adapter that never gets the lock and
# ignores the end of its stdin (it keeps running until killed). With MODE
# sleepers, its hello also leaves two background processes behind, whose
# pids it appends to PIDFILE: one in its process group, one in a session
# of its own (setsid); both hold its stdout open.
mode=$1
pids=$2
trap '' TERM INT HUP
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case $line in
	*'"op":"hello"'*)
		if [ "$mode" = sleepers ]; then
			sleep 1000 &
			echo $! >>"$pids"
			setsid sleep 1000 &
			echo $! >>"$pids"
		fi
		printf '{"id":%s,"result":"ok","name":"stubborn"}\n' "$id"
		;;
	*)
		printf '{"id":%s,"result":"refused","error":"stubborn never grants"}\n' "$id"
		;;
	esac
done
while :; do
	sleep 1
done
