package netload

// DefaultDPCTracer is nil on Linux: there are no DPCs; the softirq counts
// of the phase are the network work.
func DefaultDPCTracer() (DPCTracer, string) { return nil, "" }
