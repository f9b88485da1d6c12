package timer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// The window is checked before anything is looked at.
func TestWhoValidate(t *testing.T) {
	for _, c := range []struct {
		seconds int
		ok      bool
	}{{-1, false}, {0, true}, {MaxWhoSeconds, true}, {MaxWhoSeconds + 1, false}, {99999, false}} {
		err := WhoOptions{Seconds: c.seconds}.Validate()
		var we *WindowError
		if c.ok != (err == nil) || !c.ok && (!errors.As(err, &we) || we.Seconds != c.seconds) {
			t.Errorf("%d s: %v", c.seconds, err)
		}
		if !c.ok {
			if _, err := Who(context.Background(), WhoOptions{Seconds: c.seconds, Report: "testdata/energy-report-akinshin.txt"}); !errors.As(err, &we) {
				t.Errorf("Who with %d s: %v", c.seconds, err)
			}
		}
	}
}

// A saved report is read on any OS and gives a Windows result with no
// current resolution; a file that is not one, or none, is a ReportError.
func TestWhoReport(t *testing.T) {
	r, err := Who(context.Background(), WhoOptions{Report: "testdata/energy-report-akinshin.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if r.OS != "windows" || r.Energy == nil || len(r.Energy.Requests) != 2 || r.Current100ns != 0 || r.Scans != 0 {
		t.Errorf("%+v", r)
	}
	for _, c := range []struct {
		path string
		open bool
	}{
		{"testdata/energy-report-akinshin.PROVENANCE", false},
		{filepath.Join("testdata", "no-such-report.xml"), true},
	} {
		_, err := Who(context.Background(), WhoOptions{Report: c.path})
		var re *ReportError
		if !errors.As(err, &re) || re.Path != c.path || re.Open != c.open {
			t.Errorf("%s: %v", c.path, err)
		}
		if c.open && !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v does not say the file is missing", c.path, err)
		}
	}
}
