module github.com/locksim/locksim/adapter/go

go 1.22
