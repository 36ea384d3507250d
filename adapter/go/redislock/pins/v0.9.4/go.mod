module github.com/locksim/locksim/adapter/go/redislock

go 1.26.0

require (
	github.com/bsm/redislock v0.9.4
	github.com/redis/go-redis/v9 v9.19.0
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.11.0 // indirect
)
