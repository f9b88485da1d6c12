package result_test

import (
	"bytes"
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/cli"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// `pcap tcp --json` on a capture of thousands of short connections (from
// scripts/pcapgen, as scripts/bench-pcap-tcp makes them) writes, byte for
// byte, the document it wrote before fillLists was planned per type,
// before appendIndent and before appendIndented: every value walked by
// reflection, encoded by encoding/json, indented by json.Indent.
func TestPcapTCPDocumentAsBefore(t *testing.T) {
	if testing.Short() {
		t.Skip("generates a capture")
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("needs the go command to run scripts/pcapgen")
	}
	capture := filepath.Join(testutil.TempDir(t), "short.pcap")
	gen := exec.Command(gobin, "run", "./scripts/pcapgen", "-o", capture, "-size", "6MB", "-seed", "1",
		"-active", "200", "-conn-bytes", "3000", "-gap", "200us")
	gen.Dir = "../.."
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("pcapgen: %v\n%s", err, out)
	}
	conns := samePcapTCPDocument(t, capture)
	if conns < 1000 {
		t.Fatalf("%d connections: the capture is too small to show anything", conns)
	}
}

// The same, on the real captures of package tcpflow's tests (IPv6,
// VLANs, handshake options, port reuse, D-SACKs).
func TestPcapTCPDocumentAsBeforeOnFixtures(t *testing.T) {
	var captures []string
	err := filepath.WalkDir("../tcpflow/testdata", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".pcap") || strings.HasSuffix(path, ".pcapng")) {
			captures = append(captures, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(captures) < 10 {
		t.Fatalf("%d captures under ../tcpflow/testdata", len(captures))
	}
	conns := 0
	for _, c := range captures {
		conns += samePcapTCPDocument(t, c)
	}
	t.Logf("%d captures, %d connections", len(captures), conns)
}

// samePcapTCPDocument runs `pcap tcp --json` on capture with the current
// code and with the code before, fails the test unless the documents are
// the same, and returns the number of connections.
func samePcapTCPDocument(t *testing.T, capture string) int {
	t.Helper()
	run := func() []byte {
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), []string{"pcap", "tcp", capture, "--json"}, &cli.IO{Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("%s: exit %d: %s", capture, code, errb.String())
		}
		// the one line that differs between two runs
		return regexp.MustCompile(`(?m)^  "created": ".*",$`).ReplaceAll(out.Bytes(), []byte(`  "created": "",`))
	}
	now := run()
	restore := result.UseBefore()
	before := run()
	restore()
	conns := bytes.Count(now, []byte(`"stream": `))
	if !bytes.Equal(now, before) {
		i := 0
		for i < min(len(now), len(before)) && now[i] == before[i] {
			i++
		}
		t.Fatalf("%s: the documents differ at byte %d of %d/%d:\nnow:    %.200q\nbefore: %.200q",
			capture, i, len(now), len(before), now[i:], before[i:])
	}
	t.Logf("%s: %d connections, %d bytes: identical", filepath.Base(capture), conns, len(now))
	return conns
}
