package report

import (
	"bytes"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/crossproc"
	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/probe"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/stats"
	"github.com/latlab/latlab/internal/sweep"
	"github.com/latlab/latlab/internal/testutil"
	"github.com/latlab/latlab/internal/timer"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
)

const evil = `<script>alert("x")</script><img src=x onerror=alert(1)>`

func sleepDoc(seed uint64, base float64) *result.Document {
	r := rand.New(rand.NewPCG(seed, 1))
	s := make([]int64, 500)
	for i := range s {
		s[i] = int64(base + r.ExpFloat64()*3e4)
	}
	d := probe.KindSleep.New(host.Facts{}, &probe.SleepData{
		Measurement: probe.Measurement{Method: "nanosleep", RequestedNs: 1e6},
		Summary:     stats.Summarize(s),
		Overshoot:   stats.Summarize(stats.Shift(s, 1e6)),
		Samples:     s,
	})
	d.Settings = map[string]string{"duration": "1ms", "note": evil}
	d.Notes = []string{"note with " + evil}
	return d
}

func sweepDoc() *result.Document {
	res := &sweep.Result{What: "timer resolution", DurationNs: 1e6, Repeat: 1, Order: "random", Mode: sweep.InProcess}
	for i := 0; i < 8; i++ {
		req := int64(500000 + 2000*i)
		st := sweep.Step{RequestedNs: req, GrantedNs: 496000 + int64(i/3)*5300, Reference: i == 0}
		for j := 0; j < 40; j++ {
			st.Samples = append(st.Samples, int64(497000-60000*i)+int64(j*331%9000))
		}
		res.Steps = append(res.Steps, st)
	}
	sweep.Analyze(res, stats.Mean, 1)
	return sweep.Kind.New(host.Facts{}, &sweep.Data{Result: *res})
}

func crossprocDoc() *result.Document {
	rows := []crossproc.Row{{Slept: stats.Summary{Count: 100, P50: 15625000, P99: 15700000}}}
	for _, p := range []int64{1, 2, 5, 10} {
		rows = append(rows, crossproc.Row{RequestedNs: p * 1e6, ChildGrantedNs: p * 1e6, Slept: stats.Summary{Count: 100, P50: 15625000, P99: 15800000}})
	}
	res := &crossproc.Result{Method: "sleep", DurationNs: 1e6, HoldNs: 4e9, Rows: rows}
	res.Verdict = crossproc.Classify(res.Rows, time.Millisecond, crossproc.Facts{Windows: true, Build: 19045})
	return crossproc.Kind.New(host.Facts{}, &crossproc.Data{Result: *res})
}

func testReport(t *testing.T) *Report {
	t.Helper()
	in := []ReportInput{
		{Label: "before" + evil + ".json", Doc: sleepDoc(1, 1.5e6)},
		{Label: "after.json", Doc: sleepDoc(2, 1.0e6)},
		{Label: "sweep.json", Doc: sweepDoc()},
		{Label: "crossproc.json", Doc: crossprocDoc()},
	}
	r, err := BuildReport(in, "report "+evil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReportHTMLSelfContainedAndEscaped(t *testing.T) {
	var b bytes.Buffer
	if err := testReport(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if strings.Contains(h, "<script") || strings.Contains(h, "<img") {
		t.Fatal("input strings reached the page unescaped")
	}
	if !strings.Contains(h, "&lt;script&gt;") {
		t.Error("escaped input missing")
	}
	// Inline SVG plots: 2 per sleep run, the sweep, the crossproc, and 2 overlays.
	if n := strings.Count(h, "<svg"); n != 8 {
		t.Errorf("%d inline svg plots, want 8", n)
	}
	// No element may point anywhere but into the page itself.
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(h, -1) {
		if regexp.MustCompile(`\s(src|srcset|action|data|poster)=|\shref="[^#]|xlink:href`).MatchString(tag) {
			t.Errorf("element could load something: %s", tag)
		}
		if strings.HasPrefix(tag, "<link") || strings.HasPrefix(tag, "<iframe") || strings.HasPrefix(tag, "<object") {
			t.Errorf("element %s", tag)
		}
	}
	if strings.Contains(h, "@import") || strings.Contains(h, "url(") {
		t.Error("CSS could load something")
	}
	for _, want := range []string{"Content-Security-Policy", "default-src 'none'", "name=\"viewport\"", "Comparison of 2 sleep results",
		"is faster at p50", "post-2004 isolated behaviour", "best granted 0.5066ms", "host and timer facts", "--duration"} {
		if !strings.Contains(h, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// pngProblem decodes a PNG and says what is wrong with it as a plot, or ""
// when nothing is: it must have a plot's size and not be blank (several
// colours and a real share of non-white pixels).
func pngProblem(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Sprintf("%s: %v", path, err)
	}
	bnd := img.Bounds()
	if bnd.Dx() < 500 || bnd.Dy() < 250 {
		return fmt.Sprintf("%s: %v too small", path, bnd)
	}
	colours := map[[3]uint32]bool{}
	ink := 0
	for y := bnd.Min.Y; y < bnd.Max.Y; y += 2 {
		for x := bnd.Min.X; x < bnd.Max.X; x += 2 {
			r, g, b, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, b >> 8}] = true
			if r < 0xf000 || g < 0xf000 || b < 0xf000 {
				ink++
			}
		}
	}
	total := (bnd.Dx() / 2) * (bnd.Dy() / 2)
	if len(colours) < 3 || float64(ink)/float64(total) < 0.01 {
		return fmt.Sprintf("%s looks blank: %d colours, %.2f%% ink", path, len(colours), 100*float64(ink)/float64(total))
	}
	return ""
}

func TestReportPNGs(t *testing.T) {
	// In parallel with the package's other parallel tests: it renders
	// plots of its own report, a computation alone.
	t.Parallel()
	dir := testutil.TempDir(t)
	paths, err := testReport(t).WritePNGs(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 8 {
		t.Fatalf("%d PNGs", len(paths))
	}
	for _, p := range paths {
		if msg := pngProblem(p); msg != "" {
			t.Error(msg)
		}
	}
	// The check itself must fail on a blank image, on one with a single
	// line of ink, and on one too small to be a plot.
	write := func(name string, img image.Image) string {
		var b bytes.Buffer
		if err := png.Encode(&b, img); err != nil {
			t.Fatal(err)
		}
		p := dir + "/" + name
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	white := func(w, h int) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for i := range img.Pix {
			img.Pix[i] = 0xff
		}
		return img
	}
	line := white(600, 300)
	for x := 0; x < 600; x++ {
		line.Set(x, 150, color.RGBA{0, 114, 178, 255})
		line.Set(x, 151, color.RGBA{213, 94, 0, 255})
	}
	small := white(200, 100)
	for i := range small.Pix {
		if i%4 != 3 {
			small.Pix[i] = byte(i * 7)
		}
	}
	for name, img := range map[string]image.Image{"blank.png": white(600, 300), "line.png": line, "small.png": small} {
		if pngProblem(write(name, img)) == "" {
			t.Errorf("%s passed as a plot", name)
		}
	}
}

func TestPlotFormat(t *testing.T) {
	for in, want := range map[string]string{"a.svg": "svg", "B.PNG": "png", "x.jpg": ""} {
		got, err := PlotFormat(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%s: %q %v", in, got, err)
		}
	}
}

func TestRenderGrid(t *testing.T) {
	p := plot.New()
	for _, f := range []string{"svg", "png"} {
		b, err := RenderGrid([][]*plot.Plot{{p, nil}, {p, p}}, 10*vg.Centimeter, 8*vg.Centimeter, f)
		if err != nil || len(b) < 100 {
			t.Fatalf("%s: %d bytes, %v", f, len(b), err)
		}
	}
	if _, err := RenderGrid(nil, 1, 1, "svg"); err == nil {
		t.Fatal("empty grid rendered")
	}
	if _, err := RenderGrid([][]*plot.Plot{{p}}, 1, 1, "pdf"); err == nil {
		t.Fatal("pdf accepted")
	}
}

// The crossproc table shows the Windows-only readings only when there are
// some, as the command's own table does.
func TestCrossprocTableColumns(t *testing.T) {
	r := crossprocDoc().Data.(*crossproc.Data).Result
	check := func(win bool) {
		t.Helper()
		tab := crossprocTable(&r)
		has := slices.Contains(tab.Header, "current") && slices.Contains(tab.Header, "timeGetTime step")
		if has != win || slices.Contains(tab.Header, "current") != slices.Contains(tab.Header, "timeGetTime step") {
			t.Errorf("Windows readings %v, header %q", win, tab.Header)
		}
		for _, row := range tab.Rows {
			if len(row) != len(tab.Header) {
				t.Fatalf("row %q does not fit header %q", row, tab.Header)
			}
		}
		if win && tab.Rows[1][slices.Index(tab.Header, "current")] != "1ms" {
			t.Errorf("current column: %q", tab.Rows[1])
		}
	}
	check(false)
	r.Rows[1].CurrentNs = 1e6
	check(true)
}

// A sleep or wake run's section says the verdict its text output says:
// the report once gave only the method line there.
func TestReportSleepWakeVerdicts(t *testing.T) {
	sleep := sleepDoc(1, 1.07e6)
	sleep.Data.(*probe.SleepData).Verdict = "most of the overshoot is the 50µs timer slack of normal threads"
	old := sleepDoc(2, 1.07e6) // a document written before the verdict was kept
	old.Data.(*probe.SleepData).Timer = &timer.Status{TimerSlackNs: 50_000, Current100ns: 10000}
	lat := make([]int64, 50)
	for i := range lat {
		lat[i] = 70_000
	}
	wake := probe.KindWake.New(host.Facts{}, &probe.WakeData{Measurement: probe.Measurement{Method: "clock_nanosleep", IntervalNs: 1e6},
		Summary: stats.Summarize(lat), Samples: lat})
	r, err := BuildReport([]ReportInput{{Label: "s.json", Doc: sleep}, {Label: "old.json", Doc: old}, {Label: "w.json", Doc: wake}}, "r")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, want := range []string{"verdict: most of the overshoot is the 50µs timer slack of normal threads",
		"verdict: " + doctor.SleepVerdict(old.Data.(*probe.SleepData).Overshoot, *old.Data.(*probe.SleepData).Timer),
		"verdict: too few wake-ups to judge the tail: 50 measured"} {
		if !strings.Contains(h, html.EscapeString(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
}
