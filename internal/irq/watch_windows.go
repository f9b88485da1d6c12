package irq

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/latlab/latlab/internal/clock"
)

const method = `PDH \Processor Information(*)\ counters (Interrupts/sec, DPCs Queued/sec, % DPC Time, % Interrupt Time); RSS from the adapters' registry values`

var (
	pdh                              = windows.NewLazySystemDLL("pdh.dll")
	procPdhOpenQueryW                = pdh.NewProc("PdhOpenQueryW")
	procPdhAddEnglishCounterW        = pdh.NewProc("PdhAddEnglishCounterW")
	procPdhCollectQueryData          = pdh.NewProc("PdhCollectQueryData")
	procPdhGetFormattedCounterArrayW = pdh.NewProc("PdhGetFormattedCounterArrayW")
	procPdhCloseQuery                = pdh.NewProc("PdhCloseQuery")
)

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

type winWatcher struct {
	query    uintptr
	counters map[string]uintptr
	at       int64
	net      *NetInfo
}

func newWatcher(o WatchOptions) (Watcher, error) {
	if err := procPdhOpenQueryW.Find(); err != nil {
		return nil, fmt.Errorf("pdh.dll: %w", err)
	}
	w := &winWatcher{counters: map[string]uintptr{}}
	if r, _, _ := procPdhOpenQueryW.Call(0, 0, uintptr(unsafe.Pointer(&w.query))); r != 0 {
		return nil, pdhError{"PdhOpenQueryW", r}
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
	if r, _, _ := procPdhCollectQueryData.Call(w.query); r != 0 {
		w.Close()
		return nil, pdhError{"PdhCollectQueryData", r}
	}
	w.at = clock.Now()
	w.net = readNetInfoWindows(o.live())
	return w, nil
}

func (w *winWatcher) add(path string) (uintptr, error) {
	p, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	var h uintptr
	if r, _, _ := procPdhAddEnglishCounterW.Call(w.query, uintptr(unsafe.Pointer(p)), 0, uintptr(unsafe.Pointer(&h))); r != 0 {
		return 0, pdhError{"PdhAddEnglishCounterW(" + path + ")", r}
	}
	return h, nil
}

func (w *winWatcher) Next() (*Interval, error) {
	if r, _, _ := procPdhCollectQueryData.Call(w.query); r != 0 {
		return nil, pdhError{"PdhCollectQueryData", r}
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
	cpus, rows := pdhRows(values, seconds)
	iv := &Interval{StartNs: w.at, EndNs: now, CPUs: cpus, Rows: rows}
	w.at = now
	return iv, nil
}

func formattedArray(h uintptr) ([]pdhItem, error) {
	var size, count uint32
	r, _, _ := procPdhGetFormattedCounterArrayW.Call(h, pdhFmtDouble|pdhFmtNoCap, uintptr(unsafe.Pointer(&size)), uintptr(unsafe.Pointer(&count)), 0)
	if r == pdhNoData || (r == 0 && size == 0) {
		return nil, nil
	}
	if r != pdhMoreData && r != 0 {
		return nil, pdhError{"PdhGetFormattedCounterArrayW", r}
	}
	buf := make([]byte, size+pdhItemSize)
	size = uint32(len(buf))
	r, _, _ = procPdhGetFormattedCounterArrayW.Call(h, pdhFmtDouble|pdhFmtNoCap, uintptr(unsafe.Pointer(&size)), uintptr(unsafe.Pointer(&count)), uintptr(unsafe.Pointer(&buf[0])))
	if r != 0 {
		return nil, pdhError{"PdhGetFormattedCounterArrayW", r}
	}
	return decodePDHItems(buf, uint64(uintptr(unsafe.Pointer(&buf[0]))), int(count))
}

func (w *winWatcher) Network() *NetInfo { return w.net }

func (w *winWatcher) Close() {
	if w.query != 0 {
		procPdhCloseQuery.Call(w.query)
		w.query = 0
	}
}
