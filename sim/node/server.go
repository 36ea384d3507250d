package node

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Server is the program the redis backend runs as its nodes and sentinels:
// Redis, or Valkey, the fork of Redis 7.2 that speaks the same protocol,
// takes the same configuration directives and runs the same Sentinel. The
// backend starts both the same way (redisArgs, sentinelConf); only the
// binaries differ, and this file is the one place that names them.
type Server string

const (
	ServerRedis  Server = "redis"  // redis-server, redis-sentinel [default]
	ServerValkey Server = "valkey" // valkey-server, valkey-sentinel
)

// serverPrograms are one server kind's binaries and how to install them.
type serverPrograms struct {
	server, sentinel string
	install          string // the packages' install command, for errors
}

var programs = map[Server]serverPrograms{
	ServerRedis:  {"redis-server", "redis-sentinel", "apt-get install redis-server redis-sentinel"},
	ServerValkey: {"valkey-server", "valkey-sentinel", "on Debian 12: apt-get install -t bookworm-backports valkey-server valkey-sentinel"},
}

// Servers are the server kinds, the default first.
func Servers() []Server { return []Server{ServerRedis, ServerValkey} }

// ServerNames are the kinds as a command line or a file spells them:
// "redis or valkey".
func ServerNames() string { return string(ServerRedis) + " or " + string(ServerValkey) }

// CheckServer reports whether s names a server kind ("" is the default).
func CheckServer(s Server) error {
	if _, ok := programs[s.orDefault()]; !ok {
		return fmt.Errorf("unknown server %q: want %s", string(s), ServerNames())
	}
	return nil
}

func (s Server) orDefault() Server {
	if s == "" {
		return ServerRedis
	}
	return s
}

// Binary is the server's program: redis-server or valkey-server.
func (s Server) Binary() string { return programs[s.orDefault()].server }

// SentinelBinary is its Sentinel's program: redis-sentinel or
// valkey-sentinel.
func (s Server) SentinelBinary() string { return programs[s.orDefault()].sentinel }

// Install says how to install the server's packages.
func (s Server) Install() string { return programs[s.orDefault()].install }

// ErrNoRedisServer means the server binary (redis-server, or valkey-server
// for ServerValkey) could not be found.
var ErrNoRedisServer = errors.New("redis-server not found in PATH: install it (apt-get install redis-server) or pass its path")

// missingServer is ErrNoRedisServer for another server kind, in its words.
type missingServer struct {
	s      Server
	looked string // the binary asked for, "" for the kind's own
	err    error
}

func (e *missingServer) Error() string {
	msg := fmt.Sprintf("%s not found in PATH: install it (%s) or pass its path", e.s.Binary(), e.s.Install())
	if e.looked != "" {
		msg += fmt.Sprintf(" (looked for %q: %v)", e.looked, e.err)
	}
	return msg
}

func (e *missingServer) Is(target error) bool { return target == ErrNoRedisServer }

// LookupServer resolves the binary of server kind s: bin if given (a path
// or a name looked up in PATH), else the kind's own (Server.Binary) from
// PATH. The error wraps ErrNoRedisServer.
func LookupServer(s Server, bin string) (string, error) {
	if err := CheckServer(s); err != nil {
		return "", err
	}
	name := bin
	if name == "" {
		name = s.Binary()
	}
	path, err := exec.LookPath(name)
	switch {
	case err == nil:
		return path, nil
	case s.orDefault() != ServerRedis:
		return "", &missingServer{s: s.orDefault(), looked: bin, err: err}
	case bin == "":
		return "", ErrNoRedisServer
	default:
		return "", fmt.Errorf("%w (looked for %q: %v)", ErrNoRedisServer, bin, err)
	}
}

// LookupRedisServer is LookupServer for Redis.
func LookupRedisServer(bin string) (string, error) { return LookupServer(ServerRedis, bin) }

// LookupSentinel resolves the sentinel's command of server kind s: its
// sentinel binary (redis-sentinel, valkey-sentinel) from PATH, else the
// server binary (serverBin, or the kind's own) with --sentinel: the same
// program in sentinel mode.
func LookupSentinel(s Server, serverBin string) (bin string, args []string, err error) {
	if err := CheckServer(s); err != nil {
		return "", nil, err
	}
	if p, err := exec.LookPath(s.SentinelBinary()); err == nil {
		return p, nil, nil
	}
	srv, err := LookupServer(s, serverBin)
	if err != nil {
		return "", nil, fmt.Errorf("%s not in PATH and %w", s.SentinelBinary(), err)
	}
	return srv, []string{"--sentinel"}, nil
}

// ServerVersion is what a running server says it is in INFO server.
type ServerVersion struct {
	// Name is the server's name: "valkey" where INFO gives server_name,
	// else "redis".
	Name string `json:"name"`
	// Version is its own version: valkey_version on Valkey (whose
	// redis_version is the Redis version it is compatible with), else
	// redis_version.
	Version string `json:"version"`
}

// String is "redis 7.0.15", "valkey 8.0.1"; "" when nothing is known.
func (v ServerVersion) String() string {
	if v.Name == "" {
		return ""
	}
	return strings.TrimSpace(v.Name + " " + v.Version)
}

// ParseServerVersion reads a server's name and version out of the text of
// INFO server. Valkey 8 reports server_name:valkey and valkey_version
// beside redis_version:7.2.4; Redis reports redis_version alone.
func ParseServerVersion(info string) ServerVersion {
	fields := map[string]string{}
	for _, line := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok {
			fields[k] = v
		}
	}
	name := fields["server_name"]
	if name == "" && fields["redis_version"] != "" {
		name = "redis"
	}
	v := ServerVersion{Name: name, Version: fields[name+"_version"]}
	if v.Version == "" {
		v.Version = fields["redis_version"]
	}
	return v
}

// ServerVersion asks the cluster's first node what server it is (INFO
// server). Zero on miniredis, and when the node does not answer.
func (c *Cluster) ServerVersion(ctx context.Context) ServerVersion {
	if !c.cfg.Backend.RunsServer() {
		return ServerVersion{}
	}
	conn := c.NewClient(0)
	defer conn.Close()
	info, err := conn.Info(ctx, "server").Result()
	if err != nil {
		return ServerVersion{}
	}
	return ParseServerVersion(info)
}
