#!/bin/sh
# extends.sh: an adapter whose library extends its locks on its own and
# says so in extended events. Acquiring key k: an event extending t1 to
# 5 s after the acquire (sent 40 ms after it), written before the reply
# that grants t1; the reply; an event for t9, which nobody holds; an
# event saying t1's key was gone. Releasing t1: the reply, then an event
# extending t1 again. Acquiring any other key writes an ok event without
# validity_ms, against the protocol, before the reply granting t2.
while IFS= read -r line; do
	id=$(printf '%s\n' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case $line in
	*'"op":"hello"'*) printf '{"id":%s,"result":"ok","name":"extends"}\n' "$id" ;;
	*'"op":"acquire"'*'"key":"k"'*)
		printf '{"event":"extended","token":"t1","result":"ok","validity_ms":5000,"sent_ms":40}\n'
		printf '{"id":%s,"result":"ok","token":"t1","validity_ms":200}\n' "$id"
		printf '{"event":"extended","token":"t9","result":"ok","validity_ms":7000}\n'
		printf '{"event":"extended","token":"t1","result":"refused","error":"the key is gone"}\n'
		;;
	*'"op":"acquire"'*)
		printf '{"event":"extended","token":"t2","result":"ok"}\n'
		printf '{"id":%s,"result":"ok","token":"t2"}\n' "$id"
		;;
	*'"op":"release"'*'"token":"t1"'*)
		printf '{"id":%s,"result":"ok"}\n' "$id"
		printf '{"event":"extended","token":"t1","result":"ok","validity_ms":9000}\n'
		;;
	*) printf '{"id":%s,"result":"ok"}\n' "$id" ;;
	esac
done
