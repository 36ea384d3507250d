package explore

import (
	"context"
	"os"
	"testing"

	"github.com/redis/go-redis/v9"
)

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

func TestMain(m *testing.M) {
	// go-redis logs every failed dial; a killed node is a planned event.
	redis.SetLogger(quietLogger{})
	os.Exit(m.Run())
}
