package report

import (
	"archive/zip"
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/doctor"
	"github.com/latlab/latlab/internal/host"
	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/result"
)

// unzip returns the files of a zip by name.
func unzip(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name], _ = io.ReadAll(io.LimitReader(rc, 10<<20))
		rc.Close()
	}
	return out
}

// A check-up that quotes a user's name, host and home in several places
// becomes a bundle with none of them, and with its document, page and
// raw samples.
func TestDoctorBundle(t *testing.T) {
	id := doctor.Identity{User: "zqtester", Host: "zq-box", Home: `C:\Users\zqtester`}
	r := testCheckup()
	r.Settings = append(r.Settings, doctor.Setting{Knob: "qos-dscp", Target: "zqtester", Value: "DSCP 46 (EF)",
		Meaning: `C:\Users\zqtester\Games\game.exe UDP`, Verdict: knob.Changed, Reason: "DSCP 46 (EF) for C:\\Users\\zqtester\\Games\\game.exe"})
	r.Notes = append(r.Notes, "measured on zq-box, adapter 00:1a:2b:3c:4d:5e")
	doc, err := doctor.Document(host.Facts{}, r, map[string]string{"bundle": `C:\Users\zqtester\Desktop\checkup.zip`, "html": "", "quick": "false"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := DoctorBundle(&b, doc, r, id); err != nil {
		t.Fatal(err)
	}
	files := unzip(t, b.Bytes())
	for _, name := range []string{"README.txt", "doctor.json", "doctor.html", "sleep-overshoot-ns.txt", "wake-lateness-ns.txt"} {
		if len(files[name]) == 0 {
			t.Errorf("bundle lacks %s (has %d files)", name, len(files))
		}
	}
	for name, data := range files {
		low := strings.ToLower(string(data))
		for _, bad := range []string{"zqtester", "zq-box", "00:1a:2b"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s contains %q", name, bad)
			}
		}
	}
	rd, err := result.Read(bytes.NewReader(files["doctor.json"]))
	if err != nil || rd.Kind != doctor.Kind.Name() || rd.Settings["bundle"] != "checkup.zip" {
		t.Fatalf("document %+v %v", rd, err)
	}
	back, err := doctor.FromDocument(rd)
	if err != nil || len(back.Settings) != len(r.Settings) {
		t.Fatalf("payload %v", err)
	}
	if got := string(files["wake-lateness-ns.txt"]); got != "400000\n500000\n900000\n1900000\n" {
		t.Errorf("wake samples %q", got)
	}
	if !strings.Contains(string(files["doctor.html"]), `~\Games\game.exe`) {
		t.Errorf("the page lost the redacted path")
	}
}

// A name the redaction cannot take out (here one that is also a word of
// the bundle's own files) makes the bundle fail rather than leak.
func TestDoctorBundleRefusesToLeak(t *testing.T) {
	r := testCheckup()
	doc, err := doctor.Document(host.Facts{}, r, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err = DoctorBundle(&b, doc, r, doctor.Identity{User: "bundle"})
	if err == nil || !strings.Contains(err.Error(), "would contain the user name bundle; nothing was written") || b.Len() != 0 {
		t.Fatalf("err %v, %d bytes written", err, b.Len())
	}
}
