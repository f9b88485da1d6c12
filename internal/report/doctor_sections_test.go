package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/host"
)

// The sections the live view shows are the check-up page's own: the same
// bytes as in DoctorHTML's page.
func TestDoctorSectionsArePagesOwn(t *testing.T) {
	r := vmCheckup(t)
	doc, err := doctor.Document(host.Facts{OSVersion: "Linux 6.1"}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := DoctorHTML(&page, doc, r); err != nil {
		t.Fatal(err)
	}
	summary, evidence, err := DoctorSections(r)
	if err != nil {
		t.Fatal(err)
	}
	cause, settings, _ := strings.Cut(string(evidence), `<section id="settings">`)
	for name, frag := range map[string]string{"summary": string(summary), "cause": cause, "settings": `<section id="settings">` + settings} {
		if frag == "" || !strings.Contains(page.String(), frag) {
			t.Errorf("the %s section is not the page's:\n%.300s", name, frag)
		}
	}
	if !strings.Contains(string(summary), `id="verdict"`) || !strings.Contains(string(evidence), `<table class="settings">`) {
		t.Error("the verdict or the settings table is missing")
	}
	if r.Cause != nil && r.Cause.Missing == "" && !strings.Contains(string(evidence), `id="cause"`) {
		t.Error("the cause the summary points to is missing")
	}
	if !strings.Contains(DoctorStyle(), "#verdict") {
		t.Error("the style sheet lacks the verdict's rule")
	}
}
