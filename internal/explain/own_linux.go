package explain

import (
	"os"
	"strconv"
)

// ownThreads are the threads of this process now: the Go runtime keeps
// the threads it starts, so those that ran during a trace are still
// there when it stops.
func ownThreads() map[int32]bool {
	own := map[int32]bool{}
	ents, _ := os.ReadDir("/proc/self/task")
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			own[int32(tid)] = true
		}
	}
	return own
}
