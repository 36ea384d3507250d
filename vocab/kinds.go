package vocab

// Kind is a fault kind, as scenario files, history records and explore's
// --kinds name it.
type Kind string

// The fault kinds.
const (
	KindPauseClient     Kind = "pause-client"
	KindCrashClient     Kind = "crash-client"
	KindClockSkewClient Kind = "clock-skew-client"
	KindClockJumpClient Kind = "clock-jump-client"
	KindClockJumpNode   Kind = "clock-jump-node"
	KindClockRateNode   Kind = "clock-rate-node"
	KindDelay           Kind = "delay"
	KindPartition       Kind = "partition"
	KindDrop            Kind = "drop"
	KindPauseNode       Kind = "pause-node"
	KindKillNode        Kind = "kill-node"
	KindFailover        Kind = "failover"
	KindRandom          Kind = "random"
	KindSlowNode        Kind = "slow-node"
	// The Redis Cluster kinds (backend redis-cluster), each acting on the
	// master that serves the first lock key's slot when it fires.
	KindClusterKillMaster     Kind = "cluster-kill-master"
	KindClusterCutReplication Kind = "cluster-cut-replication"
	KindClusterFailover       Kind = "cluster-failover"
	KindClusterReshard        Kind = "cluster-reshard"
	KindClusterPartition      Kind = "cluster-partition-master"
)

// Hits says what a fault kind acts on.
type Hits string

const (
	HitsClient      Hits = "client"       // a client process
	HitsClientClock Hits = "client-clock" // a client's clock
	HitsNode        Hits = "node"         // a node process
	HitsNodeClock   Hits = "node-clock"   // a node's clock
	HitsLink        Hits = "link"         // network links between clients and nodes
	HitsMix         Hits = "mix"          // other kinds' faults, drawn in turn
)

// Clock says how a clock fault moves the clock it hits.
type Clock string

const (
	ClockNone Clock = ""
	ClockJump Clock = "jump" // a step (Target.ClockJump)
	ClockRate Clock = "rate" // a changed rate (Target.ClockRate)
	ClockSkew Clock = "skew" // an offset, a rate or both
)

// Span says how long a fault of a kind acts, which is also how the
// timeline draws it.
type Span string

const (
	SpanWindow  Span = ""        // from its start to its heal: a band
	SpanForever Span = "forever" // from its start to the run's end: a marker where the target died
	SpanInstant Span = "instant" // at its start only: the heal undoes nothing visible
	// SpanUntilRestart: until the node restarts (Target.Down) when it
	// restarts on its own, else from its start to its heal.
	SpanUntilRestart Span = "until-restart"
)

// KindInfo is what the checker, the report and explore need to know of a
// fault kind, so that none of them compares kind names.
type KindInfo struct {
	Kind Kind
	Hits Hits
	// Pauses: the target stops and resumes where it stopped at the heal;
	// a run that ends first cuts the pause short.
	Pauses bool
	// StopsNode: a node stops answering while the fault is on.
	StopsNode bool
	// NodeState is the state a node lane shows while the fault is on:
	// "down", "paused", "failover"; empty for kinds that leave the node
	// serving.
	NodeState string
	// LosesKeys: the node's keys can be lost (a kill without keep_data, a
	// failover to a replica behind).
	LosesKeys bool
	// Promotes: a replica takes over the hit node's role.
	Promotes bool
	// Delays: the fault slows traffic down; a delay longer than the
	// client's node timeout fails every command.
	Delays bool
	// NothingToHeal: the heal undoes nothing (a crash is forever, a node
	// clock does not step back).
	NothingToHeal bool
	Clock         Clock
	Span          Span

	// Isolates: a master is cut off from the rest of its cluster; the
	// fault acted only if the master refused writes or the majority
	// elected its replica before the heal (Target.Refused,
	// Target.Election).
	Isolates bool
}

// kindInfos are the kinds in the schema's order.
var kindInfos = []KindInfo{
	{Kind: KindPauseClient, Hits: HitsClient, Pauses: true},
	{Kind: KindCrashClient, Hits: HitsClient, NothingToHeal: true, Span: SpanForever},
	{Kind: KindClockSkewClient, Hits: HitsClientClock, Clock: ClockSkew},
	{Kind: KindClockJumpClient, Hits: HitsClientClock, Clock: ClockJump},
	{Kind: KindClockJumpNode, Hits: HitsNodeClock, Clock: ClockJump, NothingToHeal: true},
	{Kind: KindClockRateNode, Hits: HitsNodeClock, Clock: ClockRate},
	{Kind: KindDelay, Hits: HitsLink, Delays: true},
	{Kind: KindPartition, Hits: HitsLink},
	{Kind: KindDrop, Hits: HitsLink},
	{Kind: KindPauseNode, Hits: HitsNode, Pauses: true, StopsNode: true, NodeState: "paused"},
	{Kind: KindKillNode, Hits: HitsNode, StopsNode: true, NodeState: "down", LosesKeys: true, Span: SpanUntilRestart},
	{Kind: KindFailover, Hits: HitsNode, StopsNode: true, NodeState: "failover", LosesKeys: true, Promotes: true, Span: SpanInstant},
	{Kind: KindRandom, Hits: HitsMix},
	{Kind: KindSlowNode, Hits: HitsNode, Delays: true},
	{Kind: KindClusterKillMaster, Hits: HitsNode, StopsNode: true, NodeState: "failover", LosesKeys: true, Promotes: true, Span: SpanInstant},
	{Kind: KindClusterCutReplication, Hits: HitsLink},
	{Kind: KindClusterFailover, Hits: HitsNode, NodeState: "failover", LosesKeys: true, Promotes: true, Span: SpanInstant},
	{Kind: KindClusterReshard, Hits: HitsNode},
	{Kind: KindClusterPartition, Hits: HitsNode, NodeState: "partitioned", LosesKeys: true, Promotes: true, Isolates: true},
}

// Kinds lists every fault kind in the schema's order.
func Kinds() []Kind {
	out := make([]Kind, len(kindInfos))
	for i, k := range kindInfos {
		out[i] = k.Kind
	}
	return out
}

// Info returns what is known of kind k; ok is false for a kind that is
// not in the vocabulary (an old or hand-written history), whose zero
// KindInfo has no attribute set.
func (k Kind) Info() (KindInfo, bool) {
	for _, i := range kindInfos {
		if i.Kind == k {
			return i, true
		}
	}
	return KindInfo{Kind: k}, false
}

// Attrs is k's KindInfo, the zero one for an unknown kind.
func (k Kind) Attrs() KindInfo {
	i, _ := k.Info()
	return i
}

// Known reports whether k is a kind of the vocabulary.
func (k Kind) Known() bool {
	_, ok := k.Info()
	return ok
}

// HitsClock reports whether the kind moves a clock.
func (i KindInfo) HitsClock() bool { return i.Clock != ClockNone }

// KindStrings are kinds as strings, for messages and flags.
func KindStrings(kinds []Kind) []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = string(k)
	}
	return out
}

// KindsOf are names as kinds, unchecked (nil for nil), for kinds read
// from flags.
func KindsOf(names []string) []Kind {
	if names == nil {
		return nil
	}
	out := make([]Kind, len(names))
	for i, n := range names {
		out[i] = Kind(n)
	}
	return out
}
