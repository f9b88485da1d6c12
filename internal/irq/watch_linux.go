package irq

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/rootfs"
)

const method = "/proc/interrupts and /proc/softirqs deltas; queue mapping from /sys/class/net and /proc/irq"

type linuxWatcher struct {
	root      string
	net       *NetInfo
	netIRQs   map[int]bool
	intr, sft *Counters
	at        int64
}

func newWatcher(o WatchOptions) (Watcher, error) {
	root := o.Root
	if root == "" {
		root = "/"
	}
	w := &linuxWatcher{root: root}
	w.net = ReadNetInfo(root, o.live())
	w.netIRQs = w.net.IRQSet(o.Iface)
	var err error
	if w.intr, w.sft, err = w.read(); err != nil {
		return nil, err
	}
	w.at = clock.Now()
	return w, nil
}

// ReadInterrupts parses <root>/proc/interrupts.
func ReadInterrupts(root string) (*Counters, error) {
	return readCounters(root, "proc/interrupts", ParseInterrupts)
}

// ReadSoftirqs parses <root>/proc/softirqs.
func ReadSoftirqs(root string) (*Counters, error) {
	return readCounters(root, "proc/softirqs", ParseSoftirqs)
}

func readCounters(root, path string, parse func(io.Reader) (*Counters, error)) (*Counters, error) {
	f, err := rootfs.Open(root, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	c, err := parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(root, path), err)
	}
	return c, nil
}

func (w *linuxWatcher) read() (*Counters, *Counters, error) {
	intr, err := ReadInterrupts(w.root)
	if err != nil {
		return nil, nil, err
	}
	sft, err := ReadSoftirqs(w.root)
	if err != nil {
		return nil, nil, err
	}
	return intr, sft, nil
}

func (w *linuxWatcher) Next() (*Interval, error) {
	intr, sft, err := w.read()
	if err != nil {
		return nil, err
	}
	now := clock.Now()
	iv := BuildInterval(w.intr, intr, w.sft, sft, w.netIRQs)
	iv.StartNs, iv.EndNs = w.at, now
	w.intr, w.sft, w.at = intr, sft, now
	return iv, nil
}

func (w *linuxWatcher) Network() *NetInfo { return w.net }

func (w *linuxWatcher) Close() {}
