module github.com/locksim/locksim/adapter/go/redsync

go 1.22

require (
	github.com/go-redsync/redsync/v4 v4.12.1
	github.com/redis/go-redis/v9 v9.4.0
)

require (
	github.com/cespare/xxhash/v2 v2.2.0 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/hashicorp/errwrap v1.1.0 // indirect
	github.com/hashicorp/go-multierror v1.1.1 // indirect
)
