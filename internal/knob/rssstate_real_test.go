package knob

import (
	"os"
	"strings"
	"testing"
)

// Get-NetAdapterRss as machines printed it (testdata/rssstate.PROVENANCE):
// the expected values are read off the transcripts, not off the parser.
func TestParseNetAdapterRSSReal(t *testing.T) {
	for _, tc := range []struct {
		file                                 string
		name, desc, enabled, queues, profile string
		base, max, maxProcs                  string
		procs                                int
		firstProc, lastProc                  string
		procsGroup1                          int
		entries                              int
		tableCPUs                            string
	}{
		// msquic's troubleshooting guide: two processor groups, NUMA
		// distance 32767 for group 1, the array wrapped at the console's
		// width (a line holding "1:6/32767" alone), the table over 16 lines.
		{file: "real-get-netadapterrss-msquic.txt", name: "Slot0A x8", desc: "Mellanox ConnectX-3 Pro Ethernet Adapter",
			enabled: "True", queues: "8", profile: "Closest", base: "0:0", max: "1:38", maxProcs: "8",
			procs: 40, firstProc: "0:0/0", lastProc: "1:38/32767", procsGroup1: 20,
			entries: 128, tableCPUs: "0:0 0:2 0:4 0:6 0:8 0:10 0:12 0:14"},
		// mfd-network-adapter's E810: the array starts on the line below its
		// label, indented two spaces; the table's entries end in tabs.
		{file: "real-get-netadapterrss-e810.txt", name: "SLOT 4 Port 2", desc: "Intel(R) Ethernet Network Adapter E810-C-Q2 #2",
			enabled: "True", queues: "16", profile: "Conservative", base: "0:0", max: "1:34", maxProcs: "16",
			procs: 36, firstProc: "1:0/0", lastProc: "0:34/2688", procsGroup1: 18,
			entries: 128, tableCPUs: "1:0 1:2"},
	} {
		f, err := os.Open("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		as, err := ParseNetAdapterRSS(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if len(as) != 1 {
			t.Fatalf("%s: %d adapters: %+v", tc.file, len(as), as)
		}
		a := as[0]
		for _, c := range []struct{ field, got, want string }{
			{"Name", a.Name, tc.name}, {"InterfaceDescription", a.InterfaceDescription, tc.desc},
			{"Enabled", a.Enabled, tc.enabled}, {"NumberOfReceiveQueues", a.Queues, tc.queues},
			{"Profile", a.Profile, tc.profile}, {"BaseProcessor", a.BaseProcessor, tc.base},
			{"MaxProcessor", a.MaxProcessor, tc.max}, {"MaxProcessors", a.MaxProcessors, tc.maxProcs},
			{"indirection CPUs", strings.Join(a.IndirectionCPUs(), " "), tc.tableCPUs},
		} {
			if c.got != c.want {
				t.Errorf("%s: %s %q, want %q", tc.file, c.field, c.got, c.want)
			}
		}
		group1 := 0
		for _, p := range a.Processors {
			if strings.HasPrefix(p, "1:") {
				group1++
			}
		}
		if len(a.Processors) != tc.procs || a.Processors[0] != tc.firstProc || a.Processors[len(a.Processors)-1] != tc.lastProc || group1 != tc.procsGroup1 {
			t.Errorf("%s: processors %d (%d in group 1) %v", tc.file, len(a.Processors), group1, a.Processors)
		}
		if len(a.IndirectionTable) != tc.entries {
			t.Errorf("%s: %d indirection entries, want %d", tc.file, len(a.IndirectionTable), tc.entries)
		}
		if w := emptyTableWarning(a); w != "" {
			t.Errorf("%s: warns of an empty table: %s", tc.file, w)
		}
	}
}
