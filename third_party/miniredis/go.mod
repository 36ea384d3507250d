module github.com/alicebob/miniredis/v2

require github.com/yuin/gopher-lua v1.1.1

go 1.17
