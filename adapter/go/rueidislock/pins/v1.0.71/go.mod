module github.com/locksim/locksim/adapter/go/rueidislock

go 1.24.9

require github.com/redis/rueidis v1.0.71

require golang.org/x/sys v0.39.0 // indirect
