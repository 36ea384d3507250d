// Package adapter puts locks written in any language under locksim: a
// process design runs one child process per simulated client and speaks
// line-delimited JSON with it on the child's stdin and stdout. locksim's
// client loop keeps driving the cycle (validity check, enter, hold, exit,
// release), so the loop's points, the resource, the checks and the charts
// work as for a Go design; the child reaches the nodes through the
// client's proxies, so network and node faults reach it too.
//
// The protocol, one JSON object per line each way, one request at a time.
// Every request carries an id, hello included (1, then 2, 3, ... for the
// child's life), and its reply must echo it. A reply without an id (or
// with id 0) fails the request at once, naming the rule; one with an
// earlier id is taken for a late answer to a request locksim gave up on,
// and skipped.
//
//	-> {"op":"hello","id":1,"owner":"client-0","nodes":["127.0.0.1:40001"],"options":{"ttl_ms":500,"drift":0.01,"retry_delay_ms":50,"node_timeout_ms":250}}
//	<- {"id":1,"result":"ok","name":"redis-py","version":"4.3.4"}
//	-> {"op":"acquire","id":2,"key":"locksim:0","ttl_ms":500,"wait_ms":0}
//	<- {"id":2,"result":"ok","token":"9c4e..."}
//	-> {"op":"extend","id":3,"key":"locksim:0","token":"9c4e...","ttl_ms":500}
//	<- {"id":3,"result":"ok"}
//	-> {"op":"release","id":4,"key":"locksim:0","token":"9c4e..."}
//	<- {"id":4,"result":"refused","error":"cannot release a lock that's no longer owned"}
//
// A reply is one line of at most 1 MiB; a longer one ends the child.
//
// result is ok, refused (a definite no: the lock is held by someone else,
// or no longer held by this owner; to hello, the library cannot run on
// these servers, a bad setting of the run) or error (anything else: the outcome is
// unknown). An ok acquire may carry validity_ms, how long from the moment
// the child read the request the lock may be relied on, by the child's
// clock (Redlock's TTL - elapsed - drift); without it locksim applies the
// single-node arithmetic, TTL less the time the acquire took less
// TTL*drift. wait_ms is the acquire's own deadline for retrying (0: one
// attempt; locksim's loop retries as for every design). A hello reply with
// "checks":true says the child answers {"op":"check","key":...,"token":...}
// with its library's own validity check of a held lock (ok: act on it;
// refused: no longer valid), which the client's validity check then asks
// instead of reading the lease's deadline (lock.Checker). The child exits
// when its stdin closes.
//
// A child whose library extends its locks on its own timers reports each
// extension, unasked, as an event line without an id:
//
//	<- {"event":"extended","token":"9c4e...","result":"ok","validity_ms":1004.2,"sent_ms":504.8}
//
// result ok: the key was extended, and validity_ms is the lease's new end,
// counted as the acquire reply's is (from the moment the child read the
// acquire request that made the token, by the child's clock); sent_ms, if
// given, is when the extension was sent, from the same moment. refused:
// the library found the lock gone; error: the outcome is unknown; neither
// extends anything. The lease follows the event and the history records
// it as an extend (lock.Renewal); an event that breaks these rules fails
// the request in flight, or the next one.
//
// The bundled adapters' children run with libfaketime preloaded, and
// every jump, rate change and reset of the client's clock rewrites the
// child's spec file (faketime.go), so client clock faults reach the
// child's own clock too; a process:CMD adapter is refused them. Each
// spec file lives in a directory its locksim holds with a flock
// (faketimedir.go), so the next locksim removes those a SIGKILLed one
// left behind, and libfaketime's shared memory and semaphores in
// /dev/shm of processes that are gone.
//
// Published versions of lock libraries run as designs named
// library@version (lock.RegisterPinned): redsync@v4.12.0 is a Go adapter
// under go/redsync built once per version, with that version's go.mod and
// go.sum, into the user cache (gobuild.go); node-redlock@5.0.0-beta.2 is
// an npm version pinned in node-redlock/package-lock.json (pinned.go).
// The corpus of reported bugs that replays them is scenarios/wild.
package adapter
