package adapter

// request is one line locksim writes to the child.
type request struct {
	Op      string        `json:"op"`
	ID      int64         `json:"id,omitempty"`
	Owner   string        `json:"owner,omitempty"`
	Nodes   []string      `json:"nodes,omitempty"`
	Cluster *helloCluster `json:"cluster,omitempty"`
	Options *helloOptions `json:"options,omitempty"`
	Key     string        `json:"key,omitempty"`
	Token   string        `json:"token,omitempty"`
	TTLms   int64         `json:"ttl_ms,omitempty"`
	WaitMs  *int64        `json:"wait_ms,omitempty"`
}

// helloOptions are the run's lock options as the child sees them.
type helloOptions struct {
	TTLms         int64   `json:"ttl_ms"`
	Drift         float64 `json:"drift"`
	RetryDelayMs  int64   `json:"retry_delay_ms"`
	NodeTimeoutMs int64   `json:"node_timeout_ms,omitempty"`
}

// helloCluster is hello's Redis Cluster: set, the child reaches one
// cluster whose seed addresses are hello's nodes, with its library's
// cluster client, and dials every address the cluster announces (in
// CLUSTER SLOTS, -MOVED, -ASK) at Dial's value for it, never directly.
type helloCluster struct {
	Dial map[string]string `json:"dial"`
}

// reply is one line the child writes back: the answer to a request, or
// (Event set, no id) an event the child reports on its own.
type reply struct {
	ID         int64    `json:"id"`
	Result     string   `json:"result"`
	Token      string   `json:"token,omitempty"`
	ValidityMs *float64 `json:"validity_ms,omitempty"`
	Error      string   `json:"error,omitempty"`
	Name       string   `json:"name,omitempty"`
	Version    string   `json:"version,omitempty"`
	// Checks, in the hello reply, says the child answers "check": the
	// library's own validity check of a held token (lock.Checker).
	Checks bool `json:"checks,omitempty"`
	// Event names an event line: eventExtended. Such a line answers no
	// request and carries no id.
	Event string `json:"event,omitempty"`
	// SentMs, on an extended event, is when the library sent the
	// extension, counted as ValidityMs is.
	SentMs *float64 `json:"sent_ms,omitempty"`
}

// eventExtended is the event a child writes for each extension its
// library made on its own timers, unasked (rueidislock's, a refresh
// interval's): Token names the lease as the acquire reply gave it; Result
// ok (the lock was extended), refused (the library found it gone) or error
// (the outcome is unknown). An ok one carries ValidityMs, the new end of
// the lease's validity counted from the moment the child read the acquire
// request that made the token, by the child's clock: the origin of the
// acquire reply's validity_ms, so that locksim counts both from the same
// moment of its client's clock (the acquire's start), never later than
// the child's. SentMs may say when the extension was sent, from the same
// origin.
const eventExtended = "extended"

const (
	resultOK      = "ok"
	resultRefused = "refused"
	resultError   = "error"
)
