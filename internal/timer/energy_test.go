package timer

import (
	"os"
	"strings"
	"testing"
)

func readEnergy(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

type wantReq struct {
	pid     int64
	process string
	period  int64 // -1: none
	modules int
}

func checkReport(t *testing.T, rep *EnergyReport, format string, current, maxP int64, want []wantReq) {
	t.Helper()
	if rep.Format != format {
		t.Errorf("format %q, want %q", rep.Format, format)
	}
	if rep.CurrentPeriod100ns == nil || *rep.CurrentPeriod100ns != current || rep.MaxPeriod100ns == nil || *rep.MaxPeriod100ns != maxP {
		t.Errorf("current %v max %v", rep.CurrentPeriod100ns, rep.MaxPeriod100ns)
	}
	if len(rep.Requests) != len(want) {
		t.Fatalf("%d requests: %+v", len(rep.Requests), rep.Requests)
	}
	for i, w := range want {
		r := rep.Requests[i]
		p := int64(-1)
		if r.Period100ns != nil {
			p = *r.Period100ns
		}
		if r.PID != w.pid || r.Process != w.process || p != w.period || len(r.Modules) != w.modules {
			t.Errorf("request %d: %+v (period %d), want %+v", i, r, p, w)
		}
	}
}

// The real report quoted in a blog post: 0.5 ms from a test program and
// 1 ms from Firefox, the current resolution 0.5003 ms.
func TestParseEnergyReportPublishedText(t *testing.T) {
	rep, err := ParseEnergyReport(strings.NewReader(readEnergy(t, "energy-report-akinshin.txt")))
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, "text", 5003, 156250, []wantReq{
		{6676, "ConsoleApplication1.exe", 5000, 0},
		{10860, "firefox.exe", 10000, 0},
	})
	if rep.Requests[1].Path != `\Device\HarddiskVolume4\Program Files (x86)\Mozilla Firefox\firefox.exe` || rep.Requests[0].PeriodMs() != 0.5 {
		t.Errorf("%+v", rep.Requests)
	}
}

// The same values in the XML and HTML forms; the stack's calling modules
// join the request of the same process, other troubleshooters' rows are
// not taken.
func TestParseEnergyReportXMLAndHTML(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		modules      int
	}{{"energy-report-written.xml", "xml", 4}, {"energy-report-written.html", "html", 2}} {
		t.Run(tc.format, func(t *testing.T) {
			rep, err := ParseEnergyReport(strings.NewReader(readEnergy(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, rep, tc.format, 5003, 156250, []wantReq{
				{6676, "ConsoleApplication1.exe", 5000, 0},
				{10860, "firefox.exe", 10000, tc.modules},
			})
		})
	}
}

// powercfg localises every label: a report in German (text) or French
// (XML) is read by the shapes of its values, to the same requests as the
// English report it was written from. Another troubleshooter's entry with
// a PID and a path (CPU utilisation) is not taken for a request.
func TestParseEnergyReportOtherLanguages(t *testing.T) {
	for _, tc := range []struct {
		file, format string
		modules      int
	}{{"energy-report-de.txt", "text", 0}, {"energy-report-fr.xml", "xml", 4}} {
		t.Run(tc.file, func(t *testing.T) {
			rep, err := ParseEnergyReport(strings.NewReader(readEnergy(t, tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			checkReport(t, rep, tc.format, 5003, 156250, []wantReq{
				{6676, "ConsoleApplication1.exe", 5000, 0},
				{10860, "firefox.exe", 10000, tc.modules},
			})
			if rep.Labels != "by shape" {
				t.Errorf("labels %q", rep.Labels)
			}
		})
	}
	// The HTML form of the German report: a table row per detail.
	var b strings.Builder
	b.WriteString("<html><body><table>")
	for _, line := range strings.Split(readEnergy(t, "energy-report-de.txt"), "\n") {
		if v, ok := rowValue(line); ok && strings.HasPrefix(line, "  ") {
			label := strings.TrimSpace(line[:strings.LastIndex(line, v)])
			b.WriteString("<tr><td>" + label + "</td><td>" + v + "</td></tr>\n")
			continue
		}
		b.WriteString("<tr><td>" + line + "</td></tr>\n")
	}
	b.WriteString("</table></body></html>")
	rep, err := ParseEnergyReport(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	checkReport(t, rep, "html", 5003, 156250, []wantReq{
		{6676, "ConsoleApplication1.exe", 5000, 0},
		{10860, "firefox.exe", 10000, 0},
	})
}

// The forms people paste: "Label: value", other capitalisation and
// spacing, a decimal grouping, UTF-16 from an editor, a stack without an
// outstanding request.
func TestParseEnergyReportVariants(t *testing.T) {
	pasted := "Platform Timer Resolution: Outstanding Timer Request\r\n" +
		"A program or service has requested a timer resolution smaller than the platform maximum timer resolution.\r\n" +
		"Requested Period\t10000\r\nRequesting Process ID\t67844\r\n" +
		"Requesting Process Path\t\\Device\\HarddiskVolume5\\Users\\Andrey\\Desktop\\SleepExperiments\\Experiment2.exe\r\n\r\n" +
		"Platform Timer Resolution: Platform Timer Resolution\r\n" +
		"Current timer resolution (100 ns units) 156,250\r\n" +
		"Platform Timer Resolution:Timer Request Stack\r\n" +
		"Requesting Process ID: 4\r\nCalling Module: \\SystemRoot\\system32\\ntoskrnl.exe\r\n"
	rep, err := ParseEnergyReport(strings.NewReader(pasted))
	if err != nil {
		t.Fatal(err)
	}
	if *rep.CurrentPeriod100ns != 156250 || rep.MaxPeriod100ns != nil || len(rep.Requests) != 2 {
		t.Fatalf("%+v", rep)
	}
	if r := rep.Requests[0]; r.PID != 67844 || r.Process != "Experiment2.exe" || *r.Period100ns != 10000 {
		t.Errorf("%+v", r)
	}
	if r := rep.Requests[1]; r.PID != 4 || r.Period100ns != nil || len(r.Modules) != 1 || r.PeriodMs() != -1 {
		t.Errorf("stack only: %+v", r)
	}
	// Quoted with the process ID left out and the path shortened: still a
	// request, not "no outstanding timer request".
	quoted := "Platform Timer Resolution: Outstanding Timer Request\nRequested Period: 5000\n" +
		"Requesting Process Path: ...\\War Thunder\\win64\\aces.exe\n\n" +
		"Platform Timer Resolution: Platform Timer Resolution\nCurrent Timer Resolution (100ns units): 156250\n"
	if rep, err := ParseEnergyReport(strings.NewReader(quoted)); err != nil || len(rep.Requests) != 1 ||
		rep.Requests[0].Process != "aces.exe" || rep.Requests[0].PID != 0 || *rep.Requests[0].Period100ns != 5000 || rep.HiddenRequests() != 1 {
		t.Errorf("without a PID: %v %+v", err, rep)
	}
	// Copied from a browser with every cell on a line of its own, blank
	// lines and no-break spaces between them (the shape of the report
	// quoted in Microsoft's "Who changed my Platform Timer Resolution?").
	cells := "Platform Timer Resolution:Platform Timer Resolution\n\n" +
		"Current Timer Resolution (100ns units)\n\n25000\n\nMaximum Timer Period (100ns units)\n\n156001\n\n" +
		"Platform Timer Resolution:Timer Request Stack\n\n" +
		"The stack of modules responsible for the lowest platform timer setting in this process.\n\n" +
		"Requested Period\n\n30000\n\nRequesting Process ID\n\n8308\n\n" +
		"Requesting Process Path\n\n\\Device\\HarddiskVolume4\\Test\\Test.exe\n\n" +
		"Calling Module Stack\n\n\\Device\\HarddiskVolume2\\Windows\\SysWOW64\\ntdll.dll\n\n\u00a0\n\n" +
		"\\Device\\HarddiskVolume2\\Windows\\SysWOW64\\winmm.dll\n\n\u00a0\n\nThat is all.\n"
	if rep, err := ParseEnergyReport(strings.NewReader(cells)); err != nil || *rep.CurrentPeriod100ns != 25000 || *rep.MaxPeriod100ns != 156001 ||
		len(rep.Requests) != 1 || rep.Requests[0].PID != 8308 || *rep.Requests[0].Period100ns != 30000 ||
		rep.Requests[0].Process != "Test.exe" || len(rep.Requests[0].Modules) != 2 {
		t.Errorf("cells on lines of their own: %v %+v", err, rep)
	}
	// UTF-16LE with a mark, as Notepad saves "Unicode".
	u := []byte{0xff, 0xfe}
	for _, c := range readEnergy(t, "energy-report-akinshin.txt") {
		u = append(u, byte(c), byte(c>>8))
	}
	if rep, err := ParseEnergyReport(strings.NewReader(string(u))); err != nil || len(rep.Requests) != 2 {
		t.Errorf("UTF-16: %v %+v", err, rep)
	}
}

func TestParseEnergyReportErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", "", "no 'Platform Timer Resolution' entry"},
		{"another file", "hello\nworld\n", "no 'Platform Timer Resolution' entry"},
		{"german without a process", "Plattform-Zeitgeberauflösung:Ausstehende Zeitgeberanforderung\nAngeforderter Zeitraum 10000\n", "neither a timer request, a period with a process ID and a \\Device\\ path"},
		{"numbers and a path in another order", "CPU-Auslastung:Prozess\n  PID 9120\n  Auslastung 9,63\n  Modul \\Device\\x.exe\n", "no 'Platform Timer Resolution' entry"},
		{"binary", "Platform Timer Resolution:x\x00\x01", "binary data"},
		{"bad period", "Platform Timer Resolution:Outstanding Timer Request\nRequested Period lots\nRequesting Process ID 4\n", `Requested Period "lots": want a period in 100 ns units`},
		{"bad count", "Platform Timer Resolution:Outstanding Kernel Timer Request\nRequested Period 10000\nRequest Count many\n", `Request Count "many": want a number of requests`},
		{"bad pid", "Platform Timer Resolution:Outstanding Timer Request\nRequested Period 10000\nRequesting Process ID -4\n", `Requesting Process ID "-4"`},
		{"broken xml", "<?xml version=\"1.0\"?><EnergyReport><Troubleshooter><AnalysisLog><LogEntry><Details><Detail><Name>Requested Period</Name><Value>1", "XML:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseEnergyReport(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzParseEnergyReport: any input parses or fails with one line; what
// parses has positive periods and sorted requests.
func FuzzParseEnergyReport(f *testing.F) {
	// Short seeds: the fuzzer minimises every new input it finds, and a
	// whole report makes that take minutes.
	f.Add("Platform Timer Resolution:Outstanding Timer Request\n  Requested Period 5000 \n  Requesting Process ID 6676 \n  Requesting Process Path \\Device\\x.exe\n")
	f.Add("<?xml version=\"1.0\"?><EnergyReport><Troubleshooter><AnalysisLog><LogEntry><Name>Outstanding Timer Request</Name><Details><Detail><Name>Requested Period</Name><Value>5000</Value></Detail><Detail><Name>Requesting Process ID</Name><Value>1</Value></Detail></Details></LogEntry></AnalysisLog></Troubleshooter></EnergyReport>")
	f.Add("<html><table><tr><td>Platform Timer Resolution:Outstanding Timer Request</td></tr><tr><td>Requested Period</td><td>10000</td></tr><tr><td>Requesting Process ID</td><td>7</td></tr></table></html>")
	f.Fuzz(func(t *testing.T, in string) {
		rep, err := ParseEnergyReport(strings.NewReader(in))
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		last := -1.0
		for _, r := range rep.Requests {
			if r.Period100ns != nil && *r.Period100ns <= 0 {
				t.Fatalf("period %d", *r.Period100ns)
			}
			if p := r.PeriodMs(); p >= 0 {
				if p < last {
					t.Fatalf("unsorted %+v", rep.Requests)
				}
				last = p
			}
		}
	})
}

// The entries of real reports the fixtures lacked, in the shape of a
// report run outside the repository (no licence to copy it; see
// docs/commands/timer.md): an "Outstanding Kernel Timer Request" (a
// period and a count, no process), a stack whose period is finer than
// the process's outstanding request, and a "Calling Module Stack" whose
// rows below the first have no label. The same with every label and
// title in made-up words is read by shape to the same requests.
func TestParseEnergyReportKernelAndStack(t *testing.T) {
	en := "Platform Timer Resolution:Platform Timer Resolution\n" +
		"Current Timer Resolution (100ns units)\t9900\nMaximum Timer Period (100ns units)\t156250\n" +
		"Platform Timer Resolution:Outstanding Kernel Timer Request\n" +
		"Requested Period\t10000\nRequest Count\t1\n" +
		"Platform Timer Resolution:Outstanding Timer Request\n" +
		"Requested Period\t9900\nRequesting Process ID\t7568\nRequesting Process Path\t\\Device\\HarddiskVolume2\\Razer\\Service.exe\n" +
		"Platform Timer Resolution:Timer Request Stack\n" +
		"Requested Period\t5000\nRequesting Process ID\t7568\nRequesting Process Path\t\\Device\\HarddiskVolume2\\Razer\\Service.exe\n" +
		"Calling Module Stack\t\\Device\\HarddiskVolume2\\Windows\\SysWOW64\\ntdll.dll\n" +
		"\t\\Device\\HarddiskVolume2\\Razer\\RzCtl.dll\n" +
		"\t\\Device\\HarddiskVolume2\\Windows\\SysWOW64\\kernel32.dll\n"
	other := strings.NewReplacer(
		"Platform Timer Resolution", "Zorp", "Outstanding Kernel Timer Request", "Blit",
		"Outstanding Timer Request", "Quux", "Timer Request Stack", "Frob",
		"Current Timer Resolution (100ns units)", "Glim", "Maximum Timer Period (100ns units)", "Glam",
		"Requested Period", "Wib", "Request Count", "Wob", "Requesting Process ID", "Nid",
		"Requesting Process Path", "Nap", "Calling Module Stack", "Mods").Replace(en)
	for _, tc := range []struct{ name, in, labels string }{{"english", en, ""}, {"by shape", other, "by shape"}} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := ParseEnergyReport(strings.NewReader(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Labels != tc.labels || *rep.CurrentPeriod100ns != 9900 || *rep.MaxPeriod100ns != 156250 || len(rep.Requests) != 2 {
				t.Fatalf("%+v", rep)
			}
			r := rep.Requests[0]
			if r.PID != 7568 || *r.Period100ns != 9900 || r.StackPeriod100ns == nil || *r.StackPeriod100ns != 5000 || len(r.Modules) != 3 || r.Kernel {
				t.Errorf("process: %+v", r)
			}
			k := rep.Requests[1]
			if !k.Kernel || k.PID != 0 || k.Path != "" || *k.Period100ns != 10000 || k.Count != 1 {
				t.Errorf("kernel: %+v", k)
			}
			if rep.HiddenRequests() != 0 {
				t.Errorf("hidden %d", rep.HiddenRequests())
			}
		})
	}
}

// The default resolution as real reports give it: 156250, or 156211 (a
// report of build 19045 with four processes asking for 1 ms); a finer
// current period follows a request, and hides none.
func TestHiddenRequests(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	reqs := []TimerRequest{{PID: 10, Period100ns: p(10000)}, {PID: 11, Period100ns: p(40000)}, {Kernel: true, Period100ns: p(10000)}}
	for _, tc := range []struct {
		current *int64
		want    int
	}{{p(156250), 2}, {p(156211), 2}, {p(156001), 2}, {p(10000), 0}, {p(150000), 0}, {nil, 0}} {
		e := &EnergyReport{CurrentPeriod100ns: tc.current, Requests: reqs}
		if got := e.HiddenRequests(); got != tc.want {
			c := int64(-1)
			if tc.current != nil {
				c = *tc.current
			}
			t.Errorf("current %d: %d hidden, want %d", c, got, tc.want)
		}
	}
}
