package timer

import "github.com/latlab/latlab/internal/result"

// The kinds of the timer commands' documents.
var (
	KindStatus = result.Register[Status]("timer-status", "the timer resolution (Windows) or slack (Linux) and clock facts (latlab timer status)")
	KindGrant  = result.Register[Grant]("timer-grant", "a timer request in force, printed as one line when it is (latlab timer set --json)")
)

// Grant is the payload of the line `timer set --json` prints once the
// request is in force; a parent process (sweep --mode separate) waits
// for it.
type Grant struct {
	RequestedNs int64 `json:"requested_ns"`
	GrantedNs   int64 `json:"granted_ns"`
	PID         int   `json:"pid"`
}
