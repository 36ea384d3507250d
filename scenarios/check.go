package scenarios

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/locksim/locksim/faults"
	"github.com/locksim/locksim/lock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/node"
	"github.com/locksim/locksim/vocab"
)

// errf builds an Error at the line of path (or of its nearest parent that
// the file has). The message should end with the offending value in
// parentheses.
func (s *Scenario) errf(path, format string, args ...any) *Error {
	return &Error{File: s.file, Line: s.lineOf(path), Field: path, Msg: fmt.Sprintf(format, args...)}
}

func (s *Scenario) lineOf(path string) int {
	for {
		if l, ok := s.lines[path]; ok {
			return l
		}
		if path == "" {
			return 0
		}
		i := max(strings.LastIndexByte(path, '.'), strings.LastIndexByte(path, '['))
		if i < 0 {
			path = ""
		} else {
			path = path[:i]
		}
	}
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// check validates what decoding cannot: references, combinations, and the
// numbers the file gives against the simulator's ranges (sim.CheckValue,
// the one place those live). It runs on every Parse and again in Config,
// so a scenario built in Go is checked too.
func (s *Scenario) check() error {
	if s.Name == "" {
		return s.errf("name", "missing: every scenario has a name (it names the results directory)")
	}
	if err := s.inRange("name", s.Name, ""); err != nil {
		return err
	}
	if !nameRE.MatchString(s.Name) {
		return s.errf("name", "use letters, digits, '.', '_' and '-' only: it names a directory (%s)", shown(s.Name))
	}
	if err := s.checkFamily(); err != nil {
		return err
	}
	if err := s.checkAlgorithms(); err != nil {
		return err
	}
	if err := s.checkOptions(); err != nil {
		return err
	}
	if err := s.checkWorld(); err != nil {
		return err
	}
	for i := range s.Faults {
		if err := s.checkFault(i); err != nil {
			return err
		}
	}
	for i := range s.Require {
		if err := s.checkRequirement(i); err != nil {
			return err
		}
	}
	if !s.runsAny() {
		return s.errf("expect", "every design the scenario names is expected as skip: nothing would run (%s)", strings.Join(s.Algorithm, ", "))
	}
	// Each design is checked against the file where it is resolved for a
	// run (Config, checkDesign), so that a refusal names the design asked
	// for (--algos), never another one the file covers.
	return nil
}

func (s *Scenario) checkAlgorithms() error {
	for i, a := range s.Algorithm {
		path := "algorithm"
		if _, ok := s.lines[fmt.Sprintf("algorithm[%d]", i)]; ok {
			path = fmt.Sprintf("algorithm[%d]", i)
		}
		if _, err := lock.Lookup(a); err != nil {
			return s.errf(path, "%v", err)
		}
		if slices.Index(s.Algorithm, a) < i {
			return s.errf(path, "listed twice (%s)", a)
		}
	}
	keys := make([]string, 0, len(s.Expectations))
	for k := range s.Expectations {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return s.lineOf("expect."+keys[i]) < s.lineOf("expect."+keys[j]) })
	for _, k := range keys {
		if k == Others {
			continue
		}
		if _, err := lock.Lookup(k); err != nil {
			return s.errf("expect."+k, "%v; or \"*\" for every other design", err)
		}
	}
	// Parse has checked these; a scenario built in Go has not been.
	for _, k := range keys {
		e := s.Expectations[k]
		switch {
		case !slices.Contains(overallVerdicts, e.Verdict):
			return s.errf("expect."+k, "unknown verdict; want one of %s (%s)", join(overallVerdicts), shown(string(e.Verdict)))
		case e.Verdict == vocab.Skip && e.Reason == "":
			return s.errf("expect."+k, "skip needs a reason (%s)", k)
		}
		for c, v := range e.Checks {
			if !slices.Contains(vocab.Checks(), c) || !slices.Contains(checkVerdicts, v) {
				return s.errf("expect."+k, "unknown check or check verdict (%s: %s)", shown(c), shown(string(v)))
			}
		}
	}
	return nil
}

// checkOptions judges the options the file gives by the simulator's range
// rules (sim.CheckValue); the ranges themselves live there alone.
func (s *Scenario) checkOptions() error {
	o := s.Options
	for _, f := range []struct {
		path string
		v    any
		set  bool
	}{
		{"options.ttl", deref(o.TTL).D(), o.TTL != nil},
		{"options.drift", deref(o.Drift), o.Drift != nil},
		{"options.retries", deref(o.Retries), o.Retries != nil},
		{"options.retry_delay", deref(o.RetryDelay).D(), o.RetryDelay != nil},
		{"options.node_timeout", deref(o.NodeTimeout).D(), o.NodeTimeout != nil},
		{"options.tolerance", deref(o.Tolerance).D(), o.Tolerance != nil},
	} {
		if f.set {
			if err := s.inRange(f.path, f.v, ""); err != nil {
				return err
			}
		}
	}
	if o.Wait != nil {
		if _, err := lock.ParseWait(*o.Wait); err != nil {
			return s.errf("options.wait", "must be poll or notify (%s)", shown(*o.Wait))
		}
	}
	return nil
}

// inRange judges a value the file gives by sim.CheckValue, reporting it
// at its line. hint is added when the value is refused.
func (s *Scenario) inRange(path string, v any, hint string) error {
	err := sim.CheckValue(path, v)
	if err == nil {
		return nil
	}
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		return s.errf(path, "%s%s (%s)", fe.Msg, hint, fe.Value)
	}
	return err
}

// fieldError maps a *sim.FieldError in err to the file's field and line,
// prefix (e.g. "faults[2].") put before its field; nil when err is not one.
func (s *Scenario) fieldError(err error, prefix string) *Error {
	var fe *sim.FieldError
	if !errors.As(err, &fe) {
		return nil
	}
	return s.errf(prefix+fe.Field, "%s (%s)", fe.Msg, fe.Value)
}

func (s *Scenario) checkWorld() error {
	switch sim.Backend(s.Backend) {
	case "", sim.BackendMiniredis, sim.BackendRedis, sim.BackendRedisCluster:
	case sim.BackendExternal:
		// The servers' addresses have no field in the schema yet.
		return s.errf("backend", "not supported yet in scenario files: they cannot give the servers' addresses (supported: miniredis, redis) (%s)", s.Backend)
	default:
		return s.errf("backend", "unknown backend; want miniredis, redis or redis-cluster (%s)", shown(s.Backend))
	}
	if sim.Backend(s.written) == sim.BackendRedisCluster && sim.Backend(s.Backend) != sim.BackendRedisCluster {
		return s.errf("backend", "the scenario is written for a Redis Cluster: the slots, redirects and elections it plays are not on backend %s", orMiniredis(s.Backend))
	}
	if err := node.CheckServer(sim.Server(s.Server)); err != nil {
		return s.errf("server", "unknown server; want %s (%s)", node.ServerNames(), shown(s.Server))
	}
	if s.Server != "" && sim.Server(s.Server) != sim.ServerRedis && !sim.Backend(s.Backend).RunsServer() {
		return s.errf("server", "needs backend: redis (in the file or --backend redis): it names the program that backend starts (%s)", s.Server)
	}
	switch sim.Persistence(s.Persistence) {
	case "", sim.PersistenceNone:
	case sim.PersistenceEverySec, sim.PersistenceAlways:
		if sim.Backend(s.Backend) != sim.BackendRedis {
			return s.errf("persistence", "needs backend: redis (in the file or --backend redis); on miniredis a restart's keep_data decides what survives (%s)", s.Persistence)
		}
	default:
		return s.errf("persistence", "unknown persistence; want none, everysec or always (%s)", shown(s.Persistence))
	}
	if err := s.Failover.sim().Check(sim.Backend(s.Backend), deref(s.Replicas)); err != nil {
		field, msg, _ := strings.Cut(err.Error(), " ")
		return s.errf(strings.TrimSuffix(field, ":"), "%s", msg)
	}
	// The numbers the file gives, by the simulator's range rules
	// (sim.CheckValue), before defaults: an explicit 0, which a sim.Config
	// reads as unset, is judged too.
	def := defaults()
	for _, f := range []struct {
		path string
		v    any
		set  bool
		hint string
	}{
		{"nodes", deref(s.Nodes), s.Nodes != nil, ""},
		{"clients", deref(s.Clients), s.Clients != nil, ""},
		{"keys", deref(s.Keys), s.Keys != nil, ""},
		{"faults", len(s.Faults), true, ""},
		{"duration", deref(s.Duration).D(), s.Duration != nil, ""},
		{"replicas", deref(s.Replicas), s.Replicas != nil, ""},
		{"read_ratio", deref(s.ReadRatio), s.ReadRatio != nil, ""},
		{"nest", deref(s.Nest), s.Nest != nil, ""},
		{"hold", deref(s.Hold).D(), s.Hold != nil, fmt.Sprintf("; leave it out for the default %v", def.Hold)},
		{"think", deref(s.Think).D(), s.Think != nil, fmt.Sprintf("; leave it out for the default %v", def.Think)},
	} {
		if f.set {
			if err := s.inRange(f.path, f.v, f.hint); err != nil {
				return err
			}
		}
	}
	if len(s.Roles) > 0 && len(s.Roles) != s.clients() {
		return s.errf("roles", "give one per client: %d roles for %d clients (%s)", len(s.Roles), s.clients(), strings.Join(s.Roles, ", "))
	}
	for i, r := range s.Roles {
		if _, ok := roleAccess[r]; !ok {
			return s.errf(fmt.Sprintf("roles[%d]", i), "unknown role; want read, write or any (%s)", shown(r))
		}
	}
	return nil
}

// checkFault validates faults[i] against its kind's registry entry.
func (s *Scenario) checkFault(i int) error {
	f := s.Faults[i]
	base := fmt.Sprintf("faults[%d]", i)
	if f.Kind == "" {
		return s.errf(base, "missing kind (known: %s)", strings.Join(vocab.KindStrings(designKinds), ", "))
	}
	kind, ok := faults.Lookup(f.Kind)
	if !ok {
		if slices.Contains(designKinds, f.Kind) {
			return s.errf(base+".kind", "fault kind %q is not supported yet (supported: %s)", f.Kind, strings.Join(supportedKinds(), ", "))
		}
		return s.errf(base+".kind", "unknown fault kind %q (known: %s)", cut(string(f.Kind)), strings.Join(vocab.KindStrings(designKinds), ", "))
	}
	present := f.present()
	for _, name := range faultFields {
		if present[name] && !slices.Contains(kind.Required, name) && !slices.Contains(kind.Optional, name) {
			note := ""
			if kind.Note != "" {
				note = ": " + kind.Note
			}
			return s.errf(base+"."+name, "does not apply to %s%s (%s)", f.Kind, note, f.value(name))
		}
	}
	for _, name := range kind.Required {
		if !present[name] {
			return s.errf(base, "%s needs %s (%s)", f.Kind, name, f.Kind)
		}
	}
	clients, nodes := s.clients(), s.nodes()
	if f.Client != nil {
		if err := s.fieldError(sim.CheckIndex(base+".client", *f.Client, clients, "clients"), ""); err != nil {
			return err
		}
	}
	if f.Node != nil {
		if err := s.fieldError(sim.CheckIndex(base+".node", *f.Node, nodes, "nodes"), ""); err != nil {
			return err
		}
	}
	switch {
	case f.At != nil && f.When != nil:
		return s.errf(base+".when", "give at or when, not both: a fault has one trigger (at: %v)", *f.At)
	case f.At == nil && f.When == nil:
		return s.errf(base, "no trigger: give at (time since the start) or when (a client's point) (%s)", f.Kind)
	case f.At != nil && *f.At < 0:
		return s.errf(base+".at", "must not be negative (%v)", *f.At)
	}
	if f.When != nil {
		if err := s.checkPoint(f.When, base+".when", f.Client, clients); err != nil {
			return err
		}
	}
	if f.Until != nil {
		if err := s.checkPoint(f.Until, base+".until", f.Client, clients); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		name string
		v    *Duration
		zero bool // zero allowed
	}{{"for", f.For, false}, {"latency", f.Latency, true}, {"jitter", f.Jitter, true}, {"restart_after", f.RestartAfter, true}} {
		if d.v == nil {
			continue
		}
		if *d.v < 0 || (*d.v == 0 && !d.zero) {
			want := "must be positive"
			if d.zero {
				want = "must not be negative"
			}
			return s.errf(base+"."+d.name, "%s (%v)", want, *d.v)
		}
	}
	if f.Rate != nil && *f.Rate < 0 {
		return s.errf(base+".rate", "must not be negative (%v)", *f.Rate)
	}
	if _, err := f.build(kind); err != nil {
		return s.errf(base, "%v", err)
	}
	return nil
}

func (s *Scenario) checkPoint(ps *PointSpec, path string, faultClient *int, clients int) error {
	if ps.Point == "" {
		return s.errf(path, "missing point (known: %s)", strings.Join(Points(), ", "))
	}
	if !slices.Contains(Points(), ps.Point) {
		return s.errf(path+".point", "unknown point %q (known: %s)", cut(ps.Point), strings.Join(Points(), ", "))
	}
	if ps.Client != nil {
		if err := s.fieldError(sim.CheckIndex(path+".client", *ps.Client, clients, "clients"), ""); err != nil {
			return err
		}
	}
	// nth 0 reads as the first time to the simulator: written out, it is
	// a mistake the file's schema refuses.
	if ps.Nth != nil && *ps.Nth < 1 {
		return s.errf(path+".nth", "must be at least 1: the first time is 1 (%d)", *ps.Nth)
	}
	return nil
}

// checkDesign refuses options the design cannot honour. It runs for every
// design the scenario covers, and in Config for the one asked for.
func (s *Scenario) checkDesign(algo string) error {
	info, err := lock.Lookup(algo)
	if err != nil {
		return s.errf("algorithm", "%v", err)
	}
	hint := ""
	if !slices.Contains(s.Algorithm, algo) {
		hint = "; list the algorithms that apply or expect " + algo + " as skip"
	}
	switch {
	case s.Options.Watchdog != nil && *s.Options.Watchdog && !info.Watchdog:
		return s.errf("options.watchdog", "%s has no watchdog%s (true)", algo, hint)
	case s.Options.Fencing != nil && *s.Options.Fencing && !info.Fencing:
		return s.errf("options.fencing", "%s has no fencing tokens (fenced has)%s (true)", algo, hint)
	case s.ReadRatio != nil && *s.ReadRatio > 0 && !info.ReadWrite:
		return s.errf("read_ratio", "%s has no read lock%s (%v)", algo, hint, *s.ReadRatio)
	case slices.Contains(s.Roles, string(sim.AccessRead)) && !info.ReadWrite:
		return s.errf("roles", "%s has no read lock%s (%s)", algo, hint, strings.Join(s.Roles, ", "))
	case s.Options.waitsNotified() && !info.Notify:
		return s.errf("options.wait", "%s cannot notify: its release is not a script that publishes the unlock (setpx, reentrant, fenced and rwlock-counted can)%s (notify)", algo, hint)
	case s.Nest != nil && *s.Nest > 1 && !info.Reentrant:
		return s.errf("nest", "%s is not reentrant: a nested acquire would wait for its own hold%s (%d)", algo, hint, *s.Nest)
	}
	if info.MultiNode {
		if down := s.downForGood(); len(down) > s.nodes()-lock.Quorum(s.nodes()) {
			return s.errf("faults", "nodes %v stay down for the whole run, so %s can never reach a majority (%d of %d)%s (%d down)",
				down, algo, lock.Quorum(s.nodes()), s.nodes(), hint, len(down))
		}
	}
	return nil
}

// downForGood lists the nodes a fault takes away for the rest of the run: a
// kill-node without restart_after, or a pause-node, with neither for nor
// until.
func (s *Scenario) downForGood() []int {
	seen := map[int]bool{}
	var out []int
	for _, f := range s.Faults {
		if f.Node == nil || f.For != nil || f.Until != nil || seen[*f.Node] {
			continue
		}
		if k := f.Kind.Attrs(); k.StopsNode && !k.Promotes && (k.Span != vocab.SpanUntilRestart || f.RestartAfter == nil) {
			seen[*f.Node] = true
			out = append(out, *f.Node)
		}
	}
	sort.Ints(out)
	return out
}

func supportedKinds() []string {
	var out []string
	for _, k := range faults.Registered() {
		out = append(out, string(k))
	}
	sort.Strings(out)
	return out
}

// present reports which of faultFields the entry sets.
func (f FaultSpec) present() map[string]bool {
	return map[string]bool{
		"client": f.Client != nil, "node": f.Node != nil, "for": f.For != nil,
		"until": f.Until != nil, "by": f.By != nil, "offset": f.Offset != nil,
		"rate": f.Rate != nil, "latency": f.Latency != nil, "jitter": f.Jitter != nil,
		"groups": f.Groups != nil, "restart_after": f.RestartAfter != nil,
		"keep_data": f.KeepData != nil, "kinds": f.Kinds != nil, "interval": f.Interval != nil,
		"seed": f.Seed != nil, "mode": f.Mode != nil,
	}
}

// value renders one of faultFields for a message.
func (f FaultSpec) value(name string) string {
	switch name {
	case "client":
		return fmt.Sprint(*f.Client)
	case "node":
		return fmt.Sprint(*f.Node)
	case "until":
		return f.Until.Point
	case "rate":
		return fmt.Sprint(*f.Rate)
	case "groups":
		return shown(fmt.Sprint(f.Groups))
	case "keep_data":
		return fmt.Sprint(*f.KeepData)
	case "kinds":
		return shown(strings.Join(vocab.KindStrings(f.Kinds), ", "))
	case "seed":
		return fmt.Sprint(*f.Seed)
	case "mode":
		return *f.Mode
	}
	for _, d := range []struct {
		n string
		v *Duration
	}{{"for", f.For}, {"by", f.By}, {"offset", f.Offset}, {"latency", f.Latency}, {"jitter", f.Jitter}, {"restart_after", f.RestartAfter}} {
		if d.n == name && d.v != nil {
			return d.v.String()
		}
	}
	return ""
}

// roleAccess maps a role as written to the simulator's.
var roleAccess = map[string]sim.Access{"read": sim.AccessRead, "write": sim.AccessWrite, "any": sim.AccessAny}

func (s *Scenario) clients() int {
	if s.Clients != nil {
		return *s.Clients
	}
	return defaults().Clients
}

func (s *Scenario) nodes() int {
	if s.Nodes != nil {
		return *s.Nodes
	}
	return defaults().Cluster.Nodes
}

// defaults are the simulator's, so that a range check and the run agree.
var defaults = sync.OnceValue(sim.Defaults)

// runsAny reports whether the file leaves any design it names to run: one
// whose expectation is not skip and that has what the file must give it
// (a replica for a design that waits for one). A design this machine
// cannot run (a process design whose runtime is missing) still counts:
// the file is the same file on a machine that has it.
func (s *Scenario) runsAny() bool {
	names := []string(s.Algorithm)
	if len(names) == 0 {
		names = lock.Names()
	}
	for _, n := range names {
		if e, ok := s.Expectations.For(n); ok && e.Verdict == vocab.Skip {
			continue
		}
		if info, err := lock.Lookup(n); err == nil && info.NeedsReplica && deref(s.Replicas) < 1 {
			continue
		}
		return true
	}
	return false
}
