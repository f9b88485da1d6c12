package probe

// involuntarySwitches is -1: Windows counts a thread's context switches
// (the Thread object's Context Switches/sec) but not which of them were
// involuntary.
func involuntarySwitches() int64 { return -1 }
