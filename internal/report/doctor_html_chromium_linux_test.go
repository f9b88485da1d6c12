package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The check-up page in headless Chromium: it renders its plots and table,
// logs nothing to the console and requests nothing.
func TestDoctorHTMLInChromium(t *testing.T) {
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
