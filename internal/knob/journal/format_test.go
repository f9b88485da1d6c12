package journal

import (
	"bytes"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob/backend"
)

// sampleFile is a journal of entries of every kind (a file value with a
// guard, registry values that existed and did not, a registry key, a BCD
// element, a reverted entry with its time and note): small, since the
// bit-flip test decodes it once per bit.
func sampleFile(t testing.TB) []byte {
	t.Helper()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	recovery := backend.Loc{Backend: backend.BackendFile, Path: "proc/sys/net/ipv4/tcp_recovery"}
	slack := backend.Loc{Backend: backend.BackendFile, Path: "proc/4242/timerslack_ns"}
	start := backend.Loc{Backend: backend.BackendFile, Path: "proc/4242/stat", Name: "stat-field:22"}
	throttling := backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Multimedia\SystemProfile`, Name: "NetworkThrottlingIndex"}
	key := backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SOFTWARE\Policies\Microsoft\Windows\QoS\voice`}
	tsc := backend.Loc{Backend: backend.BackendBCD, Path: "{current}", Name: "tscsyncpolicy"}
	prisep := backend.Loc{Backend: backend.BackendRegistry, Path: `HKLM\SYSTEM\CurrentControlSet\Control\PriorityControl`, Name: "Win32PrioritySeparation"}
	j := &Journal{Version: journalVersion, NextID: 1, NextSet: 1}
	j.Add([]Entry{{Time: at, Knob: "tcp-recovery", Request: "rack,no-dupthresh", Loc: recovery, Original: backend.FileValue("1\n"), New: backend.FileValue("5\n"), State: StateApplied}})
	j.Add([]Entry{{Time: at, Knob: "timer-slack", Target: "4242", Request: "1us", Loc: slack, Original: backend.FileValue("50000\n"), New: backend.FileValue("1000\n"),
		Guard: &Guard{Loc: start, Value: backend.FileValue("123456"), What: "process 4242 has exited"}, State: StateApplied}})
	j.Add([]Entry{{Time: at, Knob: "network-throttling-index", Request: "off", Loc: throttling, Original: backend.Absent, New: backend.DWORD(0xffffffff), State: StateApplied}})
	j.Add([]Entry{
		{Time: at, Knob: "qos-dscp", Target: "voice", Request: "46", Loc: key, Original: backend.Absent, New: backend.Value{Type: backend.TypeKey}, State: StatePending},
	})
	reverted := at.Add(time.Minute)
	j.Add([]Entry{{Time: at, Knob: "tsc-sync-policy", Request: "enhanced", Loc: tsc, Original: backend.Absent, New: backend.Value{Type: backend.TypeBCD, Data: []byte("Enhanced")},
		State: StateReverted, RevertedAt: &reverted, Note: "restored"}})
	j.Add([]Entry{{Time: at, Knob: "win32-priority-separation", Request: "0x26", Loc: prisep, Original: backend.DWORD(2), New: backend.DWORD(0x26), State: StateApplied}})
	b, err := j.encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Every single-bit flip of a journal is detected: the journal is refused,
// or the flipped entry is reported damaged, or the file's checksum fails;
// and an entry that is still used is exactly what was written. So no flip
// can make revert restore a wrong value silently.
func TestJournalEveryBitFlipIsDetected(t *testing.T) {
	file := sampleFile(t)
	var orig Journal
	if err := decodeJournal(&orig, file); err != nil || len(orig.Damaged) > 0 || orig.FileDamage != "" {
		t.Fatalf("the sample journal itself: %v %v %q", err, orig.Damaged, orig.FileDamage)
	}
	byID := map[int]Entry{}
	for _, e := range orig.Entries {
		byID[e.ID] = e
	}
	if len(byID) < 5 {
		t.Fatalf("only %d entries in the sample", len(byID))
	}
	// Pure computation: the bytes are flipped in parts that run side by
	// side, each in its own copy of the file.
	const parts = 4
	var mu sync.Mutex
	kinds := map[string]int{}
	t.Run("flips", func(t *testing.T) {
		for p := range parts {
			lo, hi := p*len(file)/parts, (p+1)*len(file)/parts
			t.Run(fmt.Sprintf("bytes %d-%d", lo, hi-1), func(t *testing.T) {
				t.Parallel()
				flipped := bytes.Clone(file)
				part := map[string]int{}
				for i := lo; i < hi; i++ {
					for bit := range 8 {
						flipped[i] ^= 1 << bit
						var j Journal
						err := decodeJournal(&j, flipped)
						switch {
						case err != nil:
							part["refused"]++
						case len(j.Damaged) > 0:
							part["entry damaged"]++
						case j.FileDamage != "":
							part["file damaged"]++
						default:
							t.Fatalf("flip of bit %d of byte %d (%q) went unnoticed", bit, i, file[i])
						}
						if err == nil {
							for _, e := range j.Entries {
								if !reflect.DeepEqual(e, byID[e.ID]) {
									t.Fatalf("flip of bit %d of byte %d: entry %d reads %+v, was %+v", bit, i, e.ID, e, byID[e.ID])
								}
							}
							if len(j.Entries)+len(j.Damaged) < len(orig.Entries)-1 {
								t.Fatalf("flip of bit %d of byte %d lost entries: %d used, %d damaged", bit, i, len(j.Entries), len(j.Damaged))
							}
							if j.NextID < orig.NextID || j.NextSet < orig.NextSet {
								t.Fatalf("flip of bit %d of byte %d: counters %d %d, were %d %d: ids would be given twice", bit, i, j.NextID, j.NextSet, orig.NextID, orig.NextSet)
							}
						}
						flipped[i] = file[i]
					}
				}
				mu.Lock()
				defer mu.Unlock()
				for k, n := range part {
					kinds[k] += n
				}
			})
		}
	})
	if n := kinds["refused"] + kinds["entry damaged"] + kinds["file damaged"]; n != 8*len(file) && !t.Failed() {
		t.Errorf("%d flips counted, want %d", n, 8*len(file))
	}
	t.Logf("%d bytes, %d flips: %v", len(file), 8*len(file), kinds)
}

// Any bytes found as journal.json: decoding never panics, and what it
// trusts survives a save. The entries it kept, encoded again (damaged
// lines kept as found), decode to the same entries, with the same
// damaged lines and a file checksum that matches.
func FuzzDecodeJournal(f *testing.F) {
	f.Add(sampleFile(f))
	f.Add([]byte(`{"version":1,"next_id":2,"next_set":2,"entries":[{"id":1,"set":1,"knob":"x","state":"applied"}]}`))
	f.Add([]byte("{\"version\":2,\"next_id\":1,\"next_set\":1,\"entries\":[\n],\"sum\":\"0\"}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var j Journal
		if err := decodeJournal(&j, b); err != nil {
			return
		}
		out, err := j.encode()
		if err != nil {
			t.Fatal(err)
		}
		var k Journal
		if err := decodeJournal(&k, out); err != nil {
			t.Fatalf("its own encoding is refused: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(k.Entries, j.Entries) || len(k.Damaged) != len(j.Damaged) || k.FileDamage != "" {
			t.Fatalf("a save changed it: %d entries, %d damaged (%q) -> %d, %d (%q)", len(j.Entries), len(j.Damaged), j.FileDamage, len(k.Entries), len(k.Damaged), k.FileDamage)
		}
		if k.NextID < j.NextID || k.NextSet < j.NextSet {
			t.Fatalf("counters went back: %d %d -> %d %d", j.NextID, j.NextSet, k.NextID, k.NextSet)
		}
	})
}
