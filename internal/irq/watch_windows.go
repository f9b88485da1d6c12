package irq

import (
	"fmt"
	"strings"
	"syscall"
	"unsafe"

	"github.com/latlab/latlab/internal/clock"
	"github.com/latlab/latlab/internal/sched"
	"github.com/latlab/latlab/internal/winapi"
)

const method = `PDH \Processor Information(*)\ counters (Interrupts/sec, DPCs Queued/sec, % DPC Time, % Interrupt Time), ` +
	`whose instances "node,index" (NUMA node, place in the node) are turned into latlab's CPU numbers ` +
	`(the active processors of each processor group counted in turn, as --cpus takes them); RSS from the adapters' registry values`

const (
	pdhFmtDouble  = 0x00000200
	pdhFmtNoCap   = 0x00008000
	pdhMoreData   = 0x800007D2
	pdhNoData     = 0x800007D5
	pdhInvalidArg = 0xC0000BBD
)

type pdhError struct {
	call   string
	status uintptr
}

func (e pdhError) Error() string { return fmt.Sprintf("%s: PDH status %#x", e.call, uint32(e.status)) }

// pdhStatus is the PDH_STATUS a pdh call returned as its error (0 for nil).
func pdhStatus(err error) uintptr {
	if e, ok := err.(syscall.Errno); ok {
		return uintptr(e)
	}
	return 0
}

type winWatcher struct {
	query    uintptr
	counters map[string]uintptr
	at       int64
	net      *NetInfo
	// nodeOf is the NUMA node of each CPU, which maps the instance names
	// to CPU numbers; nil when it could not be read. It is read again
	// when a name does not map (a processor added while Windows runs).
	nodeOf   []int
	nodesErr error
	// noted are the instance names already reported as not mapped.
	noted map[string]bool
}

// readTopology reads the processor groups and the NUMA node of each CPU.
func (w *winWatcher) readTopology() []int {
	groups := sched.ProcessorGroups()
	w.nodeOf, w.nodesErr = sched.NUMANodes(groups)
	return groups
}

func newWatcher(o WatchOptions) (Watcher, error) {
	w := &winWatcher{counters: map[string]uintptr{}, noted: map[string]bool{}}
	if err := winapi.PdhOpenQuery(nil, 0, &w.query); winapi.Missing(err) {
		return nil, fmt.Errorf("pdh.dll: %w", err)
	} else if err != nil {
		return nil, pdhError{"PdhOpenQueryW", pdhStatus(err)}
	}
	var firstErr error
	for _, c := range pdhCounters {
		var h uintptr
		var err error
		for _, obj := range []string{"Processor Information", "Processor"} {
			if h, err = w.add(fmt.Sprintf(`\%s(*)\%s`, obj, c.Name)); err == nil {
				break
			}
		}
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		w.counters[c.Name] = h
	}
	if len(w.counters) == 0 {
		w.Close()
		return nil, fmt.Errorf("no per-processor PDH counter is available: %w", firstErr)
	}
	if err := winapi.PdhCollectQueryData(w.query); err != nil {
		w.Close()
		return nil, pdhError{"PdhCollectQueryData", pdhStatus(err)}
	}
	w.at = clock.Now()
	w.net = readNetInfoWindows(o.live())
	groups := w.readTopology()
	if n := sched.NumberingNote(groups); n != "" {
		w.net.Notes = append(w.net.Notes, n)
	}
	return w, nil
}

func (w *winWatcher) add(path string) (uintptr, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	var h uintptr
	if err := winapi.PdhAddEnglishCounter(w.query, p, 0, &h); err != nil {
		return 0, pdhError{"PdhAddEnglishCounterW(" + path + ")", pdhStatus(err)}
	}
	return h, nil
}

func (w *winWatcher) Next() (*Interval, error) {
	if err := winapi.PdhCollectQueryData(w.query); err != nil {
		return nil, pdhError{"PdhCollectQueryData", pdhStatus(err)}
	}
	now := clock.Now()
	seconds := float64(now-w.at) / 1e9
	values := map[string][]pdhItem{}
	for name, h := range w.counters {
		items, err := formattedArray(h)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		values[name] = items
	}
	cpus, rows, unmapped := pdhRows(values, seconds, w.nodeOf)
	if len(unmapped) > 0 {
		w.readTopology()
		cpus, rows, unmapped = pdhRows(values, seconds, w.nodeOf)
	}
	w.noteUnmapped(unmapped)
	iv := &Interval{StartNs: w.at, EndNs: now, CPUs: cpus, Rows: rows}
	w.at = now
	return iv, nil
}

// noteUnmapped says once, in the network notes the document keeps, which
// processors' counters were left out and why.
func (w *winWatcher) noteUnmapped(names []string) {
	var fresh []string
	for _, n := range names {
		if !w.noted[n] {
			w.noted[n] = true
			fresh = append(fresh, n)
		}
	}
	if len(fresh) == 0 {
		return
	}
	why := "no processor of this machine has that NUMA node and place"
	if w.nodesErr != nil {
		why = w.nodesErr.Error()
	}
	w.net.Notes = append(w.net.Notes, fmt.Sprintf("PDH processor instances %s left out: %s", strings.Join(fresh, ", "), why))
}

func formattedArray(h uintptr) ([]pdhItem, error) {
	var size, count uint32
	r := pdhStatus(winapi.PdhGetFormattedCounterArray(h, pdhFmtDouble|pdhFmtNoCap, &size, &count, nil))
	if r == pdhNoData || (r == 0 && size == 0) {
		return nil, nil
	}
	if r != pdhMoreData && r != 0 {
		return nil, pdhError{"PdhGetFormattedCounterArrayW", r}
	}
	buf := make([]byte, size+pdhItemSize)
	size = uint32(len(buf))
	r = pdhStatus(winapi.PdhGetFormattedCounterArray(h, pdhFmtDouble|pdhFmtNoCap, &size, &count, &buf[0]))
	if r != 0 {
		return nil, pdhError{"PdhGetFormattedCounterArrayW", r}
	}
	return decodePDHItems(buf, uint64(uintptr(unsafe.Pointer(&buf[0]))), int(count), int(unsafe.Sizeof(uintptr(0))))
}

func (w *winWatcher) Network() *NetInfo { return w.net }

func (w *winWatcher) Close() {
	if w.query != 0 {
		_ = winapi.PdhCloseQuery(w.query)
		w.query = 0
	}
}
