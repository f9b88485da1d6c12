package irq

const runMethod = "/proc/interrupts and /proc/softirqs, read just before the threads start and just after they stop"

// startRun reads /proc/interrupts and /proc/softirqs under root; end
// reads them again and returns what happened in between. Unlike a
// Watcher it reads nothing else: it runs while the noise threads wait.
func startRun(root string) (end func() (*Interval, error), err error) {
	if root == "" {
		root = "/"
	}
	intr, err := ReadInterrupts(root)
	if err != nil {
		return nil, err
	}
	sft, err := ReadSoftirqs(root)
	if err != nil {
		return nil, err
	}
	return func() (*Interval, error) {
		intr2, err := ReadInterrupts(root)
		if err != nil {
			return nil, err
		}
		sft2, err := ReadSoftirqs(root)
		if err != nil {
			return nil, err
		}
		return BuildInterval(intr, intr2, sft, sft2, nil), nil
	}, nil
}
