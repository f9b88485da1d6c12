package irq

const runMethod = `PDH \Processor Information(*)\Interrupts/sec and DPCs Queued/sec, sampled just before the threads start and just after they stop, times the seconds between`

// startRun opens the PDH query and takes its first sample; end takes the
// second and closes it. root is Linux's fixture tree, unused here.
func startRun(string) (end func() (*Interval, error), err error) {
	w, err := newWatcher(WatchOptions{})
	if err != nil {
		return nil, err
	}
	return func() (*Interval, error) {
		defer w.Close()
		return w.Next()
	}, nil
}
