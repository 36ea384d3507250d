package miniredis

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"

	luajson "github.com/locksim/locksim/internal/miniredis/gopher-json"
	"github.com/locksim/locksim/internal/miniredis/server"
)

func commandsScripting(m *Miniredis) {
	m.srv.Register("EVAL", m.cmdEval)
	m.srv.Register("EVAL_RO", m.cmdEvalro, server.ReadOnlyOption())
	m.srv.Register("EVALSHA", m.cmdEvalsha)
	m.srv.Register("EVALSHA_RO", m.cmdEvalshaRo, server.ReadOnlyOption())
	m.srv.Register("SCRIPT", m.cmdScript)
}

var (
	parsedScripts = sync.Map{}
)

// luaStates holds Lua states whose libraries are open and whose globals are
// protected, ready for the next script. Opening the libraries of a fresh
// state for every call was most of a script call's cost.
//
// locksim patch: upstream builds and closes a fresh state on every call.
// A state goes back to the pool only after a script that ran without error
// and left its redis module as it found it, its stack emptied; KEYS and
// ARGV are set anew on every call, and the redis module's functions act on
// the call at hand (luaCall). Real Redis, too, runs every script in one
// long-lived interpreter.
var luaStates = sync.Pool{New: func() interface{} { return newLuaState() }}

// luaVM is a pooled Lua state with its redis module.
type luaVM struct {
	l      *lua.LState
	call   *luaCall
	mod    *lua.LTable // the redis module, the globals redis and server
	fields []luaField  // what mod holds, in the order mod.Next gives it
}

// luaField is one field of the redis module: its name, as a key, its value.
type luaField struct {
	name     string
	key, val lua.LValue
}

// intact reports whether vm's redis module holds what it was built with,
// and nothing else: a script that changed it leaves a state not reused.
// Every field must hold its value. What a script adds to the table goes
// either to its array part, whose entries mod.Next gives before any other
// key, or after every key mod had (a table lists its other keys in the
// order they were first set, a key deleted and set again in its first
// place): the walk must begin at the first field and end at the last.
// Unlike ForEach, the check allocates nothing and hashes no key as an
// interface but the last.
func (vm *luaVM) intact() bool {
	if vm.l.GetMetatable(vm.mod) != lua.LNil {
		return false
	}
	for _, f := range vm.fields {
		if vm.mod.RawGetString(f.name) != f.val {
			return false
		}
	}
	first, _ := vm.mod.Next(lua.LNil)
	after, _ := vm.mod.Next(vm.fields[len(vm.fields)-1].key)
	return first == vm.fields[0].key && after == lua.LNil
}

// ScriptCall reports whether c is a peer made for one redis.call inside a
// Lua script: those are dispatched through the server's pre-hook as well,
// while the script holds the server lock.
//
// locksim patch: upstream marks them only in its unexported per-connection
// state.
func ScriptCall(c *server.Peer) bool {
	ctx, ok := c.Ctx.(*connCtx)
	return ok && ctx.nested
}

// newLuaState is a Lua state as upstream's runLuaScript prepared it, less
// what belongs to one call (KEYS, ARGV, the call the redis module acts on).
func newLuaState() *luaVM {
	l := lua.NewState(lua.Options{SkipOpenLibs: true})

	// Taken from the go-lua manual
	for _, pair := range []struct {
		n string
		f lua.LGFunction
	}{
		{lua.LoadLibName, lua.OpenPackage},
		{lua.BaseLibName, lua.OpenBase},
		{lua.CoroutineLibName, lua.OpenCoroutine},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.DebugLibName, lua.OpenDebug},
	} {
		if err := l.CallByParam(lua.P{
			Fn:      l.NewFunction(pair.f),
			NRet:    0,
			Protect: true,
		}, lua.LString(pair.n)); err != nil {
			panic(err)
		}
	}

	luajson.Preload(l)
	requireGlobal(l, "cjson", "json")

	l.RegisterModule("os", mkLuaOS())

	// The globals a call sets are there before the protection, as upstream
	// had them, so that reading them never trips it.
	for _, name := range []string{"KEYS", "ARGV", "redis", "server"} {
		l.SetGlobal(name, l.NewTable())
	}
	_ = doScript(l, protectGlobals)
	l.SetTop(0)

	vm := &luaVM{l: l, call: &luaCall{}}
	redisFuncs, redisConstants := mkLua(vm.call)
	vm.mod = l.CreateTable(0, len(redisFuncs)+len(redisConstants))
	for fname, fn := range redisFuncs {
		vm.mod.RawSetString(fname, l.NewFunction(fn))
	}
	for k, v := range redisConstants {
		vm.mod.RawSetString(k, v)
	}
	for k, v := vm.mod.Next(lua.LNil); k != lua.LNil; k, v = vm.mod.Next(k) {
		vm.fields = append(vm.fields, luaField{string(k.(lua.LString)), k, v})
	}
	return vm
}

// Execute lua. Needs to run m.Lock()ed, from within withTx().
// Returns true if the lua was OK (and hence should be cached).
func (m *Miniredis) runLuaScript(c *server.Peer, sha, script string, readOnly bool, args []string) bool {
	vm := luaStates.Get().(*luaVM)
	l := vm.l
	reuse := false
	defer func() {
		vm.call.end()
		if reuse && vm.intact() {
			l.SetTop(0)
			luaStates.Put(vm)
			return
		}
		l.Close()
	}()
	globals := l.G.Global

	keysS, args := args[0], args[1:]
	keysLen, err := strconv.Atoi(keysS)
	if err != nil {
		c.WriteError(msgInvalidInt)
		return false
	}
	if keysLen < 0 {
		c.WriteError(msgNegativeKeysNumber)
		return false
	}
	if keysLen > len(args) {
		c.WriteError(msgInvalidKeysNumber)
		return false
	}
	keys, args := args[:keysLen], args[keysLen:]
	// locksim patch: KEYS and ARGV are made as large as they are (upstream's
	// NewTable reserves 32 slots and a 32-entry map for each, on every call);
	// a script sees the same tables.
	keysTable := l.CreateTable(len(keys), 0)
	for i, k := range keys {
		keysTable.RawSetInt(i+1, lua.LString(k))
	}
	globals.RawSetString("KEYS", keysTable)

	argvTable := l.CreateTable(len(args), 0)
	for i, a := range args {
		argvTable.RawSetInt(i+1, lua.LString(a))
	}
	globals.RawSetString("ARGV", argvTable)

	vm.call.begin(m.srv, c, sha, readOnly)
	for _, name := range []string{"redis", "server"} {
		globals.RawSetString(name, vm.mod)
	}

	// lua can call redis.setresp(...), but it's tmp state.
	oldresp := c.Resp3
	if err := doScript(l, script); err != nil {
		c.WriteError(err.Error())
		return false
	}

	luaToRedis(l, c, l.Get(1))
	c.Resp3 = oldresp
	c.SwitchResp3 = nil
	reuse = true
	return true
}

// doScript pre-compiles the given script into a Lua prototype,
// then executes the pre-compiled function against the given lua state.
//
// This is thread-safe.
func doScript(l *lua.LState, script string) error {
	proto, err := compile(script)
	if err != nil {
		return errors.New(errLuaParseError(err)) // locksim patch: a message, not a format (go vet)
	}

	lfunc := l.NewFunctionFromProto(proto)
	l.Push(lfunc)
	if err := l.PCall(0, lua.MultRet, nil); err != nil {
		// ensure we wrap with the correct format.
		return errors.New(errLuaParseError(err)) // locksim patch: a message, not a format (go vet)
	}

	return nil
}

func compile(script string) (*lua.FunctionProto, error) {
	if val, ok := parsedScripts.Load(script); ok {
		return val.(*lua.FunctionProto), nil
	}
	chunk, err := parse.Parse(strings.NewReader(script), "<string>")
	if err != nil {
		return nil, err
	}
	proto, err := lua.Compile(chunk, "")
	if err != nil {
		return nil, err
	}
	// locksim patch: the chunk's Lua 5.0 "arg" table, which gopher-lua
	// builds on every call of a vararg function, is not made for the
	// script's own chunk. A chunk has no local of that name (only nested
	// functions get one), so no script can reach the table; real Redis
	// runs the body as a plain function, which has none either.
	proto.IsVarArg &^= lua.VarArgNeedsArg
	parsedScripts.Store(script, proto)
	return proto, nil
}

// Shared implementation for EVAL and EVALRO
func (m *Miniredis) cmdEvalShared(c *server.Peer, cmd string, readOnly bool, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}

	ctx := getCtx(c)
	if ctx.nested {
		c.WriteError(msgNotFromScripts(ctx.nestedSHA))
		return
	}

	script, args := args[0], args[1:]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		sha := sha1Hex(script)
		ok := m.runLuaScript(c, sha, script, readOnly, args)
		if ok {
			m.scripts[sha] = script
		}
	})
}

// Wrapper function for EVAL command
func (m *Miniredis) cmdEval(c *server.Peer, cmd string, args []string) {
	m.cmdEvalShared(c, cmd, false, args)
}

// Shared implementation for EVALSHA and EVALSHA_RO
func (m *Miniredis) cmdEvalshaShared(c *server.Peer, cmd string, readOnly bool, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(2)) {
		return
	}

	ctx := getCtx(c)
	if ctx.nested {
		c.WriteError(msgNotFromScripts(ctx.nestedSHA))
		return
	}

	sha, args := args[0], args[1:]

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		script, ok := m.scripts[sha]
		if !ok {
			c.WriteError(msgNoScriptFound)
			return
		}

		m.runLuaScript(c, sha, script, readOnly, args)
	})
}

// Wrapper function for EVALSHA command
func (m *Miniredis) cmdEvalsha(c *server.Peer, cmd string, args []string) {
	m.cmdEvalshaShared(c, cmd, false, args)
}

// Wrapper function for EVALRO command
func (m *Miniredis) cmdEvalro(c *server.Peer, cmd string, args []string) {
	m.cmdEvalShared(c, cmd, true, args)
}

// Wrapper function for EVALSHA_RO command
func (m *Miniredis) cmdEvalshaRo(c *server.Peer, cmd string, args []string) {
	m.cmdEvalshaShared(c, cmd, true, args)
}

func (m *Miniredis) cmdScript(c *server.Peer, cmd string, args []string) {
	if !m.isValidCMD(c, cmd, args, atLeast(1)) {
		return
	}

	ctx := getCtx(c)
	if ctx.nested {
		c.WriteError(msgNotFromScripts(ctx.nestedSHA))
		return
	}

	var opts struct {
		subcmd string
		script string
	}

	opts.subcmd, args = args[0], args[1:]

	switch strings.ToLower(opts.subcmd) {
	case "load":
		if len(args) != 1 {
			setDirty(c)
			c.WriteError(fmt.Sprintf(msgFScriptUsage, "LOAD"))
			return
		}
		opts.script = args[0]
	case "exists":
		if len(args) == 0 {
			setDirty(c)
			c.WriteError(errWrongNumber("script|exists"))
			return
		}
	case "flush":
		if len(args) == 1 {
			switch strings.ToUpper(args[0]) {
			case "SYNC", "ASYNC":
				args = args[1:]
			default:
			}
		}
		if len(args) != 0 {
			setDirty(c)
			c.WriteError(msgScriptFlush)
			return
		}
	default:
		setDirty(c)
		c.WriteError(fmt.Sprintf(msgFScriptUsageSimple, strings.ToUpper(opts.subcmd)))
		return
	}

	withTx(m, c, func(c *server.Peer, ctx *connCtx) {
		switch strings.ToLower(opts.subcmd) {
		case "load":
			if _, err := parse.Parse(strings.NewReader(opts.script), "user_script"); err != nil {
				c.WriteError(errLuaParseError(err))
				return
			}
			sha := sha1Hex(opts.script)
			m.scripts[sha] = opts.script
			c.WriteBulk(sha)
		case "exists":
			c.WriteLen(len(args))
			for _, arg := range args {
				if _, ok := m.scripts[arg]; ok {
					c.WriteInt(1)
				} else {
					c.WriteInt(0)
				}
			}
		case "flush":
			m.scripts = map[string]string{}
			c.WriteOK()
		}
	})
}

func sha1Hex(s string) string {
	h := sha1.New()
	io.WriteString(h, s)
	return hex.EncodeToString(h.Sum(nil))
}

// requireGlobal imports module modName into the global namespace with the
// identifier id.  panics if an error results from the function execution
func requireGlobal(l *lua.LState, id, modName string) {
	if err := l.CallByParam(lua.P{
		Fn:      l.GetGlobal("require"),
		NRet:    1,
		Protect: true,
	}, lua.LString(modName)); err != nil {
		panic(err)
	}
	mod := l.Get(-1)
	l.Pop(1)

	l.SetGlobal(id, mod)
}

// the following script protects globals
// it is based on:  http://metalua.luaforge.net/src/lib/strict.lua.html
var protectGlobals = `
local dbg=debug
local mt = {}
setmetatable(_G, mt)
mt.__newindex = function (t, n, v)
  if dbg.getinfo(2) then
    local w = dbg.getinfo(2, "S").what
    if w ~= "C" then
      error("Script attempted to create global variable '"..tostring(n).."'", 2)
    end
  end
  rawset(t, n, v)
end
mt.__index = function (t, n)
  if dbg.getinfo(2) and dbg.getinfo(2, "S").what ~= "C" then
    error("Script attempted to access nonexistent global variable '"..tostring(n).."'", 2)
  end
  return rawget(t, n)
end
debug = nil

`
