module github.com/locksim/locksim/adapter/go/rueidislock

go 1.23.0

require github.com/redis/rueidis v1.0.69

require golang.org/x/sys v0.31.0 // indirect
