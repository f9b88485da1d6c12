package netload

const pacerMethod = "high-resolution waitable timer, relative due time"

// paceResolution is 0: no timer-resolution request. The high-resolution
// waitable timer is not bound to the system timer interval, and a request
// would raise the timer interrupt rate of the whole machine.
const paceResolution = 0

// threadSwitches is -1 on Windows: no count of a thread's involuntary
// switches is cheap to read.
func threadSwitches(*threadUsage) int64 { return -1 }

// threadUsage is what threadSwitches reads into.
type threadUsage struct{}
