package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/testutil"
)

// The check-up page in headless Chromium: it renders its plots and table,
// logs nothing to the console and requests nothing.
func TestDoctorHTMLInChromium(t *testing.T) {
	// In parallel with the package's other parallel tests: it mostly
	// waits on a Chromium of its own, with a profile of its own.
	t.Parallel()
	chromium := testutil.NeedTool(t, "chromium")
	page := filepath.Join(testutil.TempDir(t), "checkup.html")
	if err := os.WriteFile(page, []byte(testDoctorPage(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := loadInChromium(t, chromium, page)
	if len(r.Console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(r.Console, "\n"))
	}
	if len(r.Requests) > 0 {
		t.Errorf("network requests:\n%s", strings.Join(r.Requests, "\n"))
	}
	if strings.Count(r.DOM, "<svg") != 4 || !strings.Contains(r.DOM, `<table class="settings">`) || !strings.Contains(r.DOM, "Next steps") {
		t.Errorf("the page did not render its plots, settings and next steps (%d svg)", strings.Count(r.DOM, "<svg"))
	}
}

// The page answers first: at 1280x800 the verdict is in the first screen.
// The page runs no script (its policy forbids them), so a copy of it gets
// one that writes where the verdict is into the DOM Chromium dumps; the
// page itself is loaded as written and logs nothing to the console.
func TestDoctorHTMLVerdictInFirstScreen(t *testing.T) {
	// In parallel, as TestDoctorHTMLInChromium.
	t.Parallel()
	chromium := testutil.NeedTool(t, "chromium")
	r := vmCheckup(t)
	doc, err := doctor.Document(host.Facts{OSVersion: "Linux 6.1"}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := DoctorHTML(&b, doc, r); err != nil {
		t.Fatal(err)
	}
	dir := testutil.TempDir(t)
	page := filepath.Join(dir, "checkup.html")
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	size := "--window-size=1280,800"
	if l := loadInChromium(t, chromium, page, size); len(l.Console) > 0 || len(l.Requests) > 0 {
		t.Errorf("console %q, requests %q", l.Console, l.Requests)
	}

	const csp = "default-src 'none';"
	measured := b.String()
	if !strings.Contains(measured, csp) || !strings.Contains(measured, `id="verdict"`) {
		t.Fatal("the page has no policy or no verdict to measure")
	}
	measured = strings.Replace(measured, csp, csp+" script-src 'unsafe-inline';", 1)
	measured = strings.Replace(measured, "</body>", `<script>
var v = document.getElementById("verdict").getBoundingClientRect();
document.body.setAttribute("data-measured", [v.top, v.bottom, window.innerWidth, window.innerHeight].join(" "));
</script></body>`, 1)
	measure := func(name, html string) (top, bottom float64, h int) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(html), 0o644); err != nil {
			t.Fatal(err)
		}
		l := loadInChromium(t, chromium, p, size)
		m := regexp.MustCompile(`data-measured="([-0-9.]+) ([-0-9.]+) ([0-9]+) ([0-9]+)"`).FindStringSubmatch(l.DOM)
		if m == nil {
			t.Fatalf("%s: the measuring script did not run (console %q)", name, l.Console)
		}
		top, _ = strconv.ParseFloat(m[1], 64)
		bottom, _ = strconv.ParseFloat(m[2], 64)
		w, _ := strconv.Atoi(m[3])
		h, _ = strconv.Atoi(m[4])
		if w != 1280 || h < 500 || h > 800 {
			t.Fatalf("%s: the window is %dx%d, not 1280x800", name, w, h)
		}
		return top, bottom, h
	}
	// Control: the verdict pushed 2000 px down is seen outside.
	if _, bottom, h := measure("control.html", strings.Replace(measured, "<body>", `<body><div style="height:2000px"></div>`, 1)); bottom <= float64(h) {
		t.Fatalf("the measure does not see a verdict below the first screen (bottom %.0f of %d px)", bottom, h)
	}
	top, bottom, h := measure("measured.html", measured)
	if top < 0 || bottom > float64(h) {
		t.Errorf("the verdict spans %.0f-%.0f px, outside the first screen of %d px", top, bottom, h)
	}
	t.Logf("verdict at %.0f-%.0f px of a 1280x%d first screen", top, bottom, h)
}
