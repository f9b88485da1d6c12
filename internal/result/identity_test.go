package result_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/capture"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/tcpflow"
	"github.com/latlab/latlab/internal/testutil"
)

// `pcap tcp --json` on a capture of thousands of short connections (from
// scripts/pcapgen, as scripts/bench-pcap-tcp makes them) writes, byte for
// byte, the connections and summary it wrote before fillLists was planned per type,
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

// samePcapTCPDocument analyses the capture at path as `pcap tcp --json` does, writes
// every connection and the summary as a Stream writes them, and fails the
// test unless the code before (AppendValueBefore) writes the same bytes.
// The rest of a streamed document (envelope, brackets, commas, notes) is
// written by the same code either way. It returns the number of
// connections.
func samePcapTCPDocument(t *testing.T, path string) int {
	t.Helper()
	write := func(appendValue func([]byte, any, string) ([]byte, error)) (conns int, doc []byte) {
		var out []byte
		add := func(v any, prefix string) error {
			var err error
			out, err = appendValue(append(out, '\n'), v, prefix)
			return err
		}
		res, err := tcpflow.Run(context.Background(), tcpflow.Options{
			Scan: func(ctx context.Context, h capture.Handler) (*capture.Stats, error) {
				f, err := os.Open(path)
				if err != nil {
					return nil, err
				}
				defer f.Close()
				return capture.Scan(f, capture.ScanOptions{Context: ctx}, h)
			},
			Stream: -1,
			OnConn: func(c *tcpflow.Connection) error {
				conns++
				return add(c, "      ")
			},
		})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if err := add(&res.Summary, "  "); err != nil {
			t.Fatal(err)
		}
		return conns, out
	}
	conns, now := write(result.AppendValue)
	_, before := write(result.AppendValueBefore)
	if !bytes.Equal(now, before) {
		i := 0
		for i < min(len(now), len(before)) && now[i] == before[i] {
			i++
		}
		t.Fatalf("%s: the documents differ at byte %d of %d/%d:\nnow:    %.200q\nbefore: %.200q",
			path, i, len(now), len(before), now[i:], before[i:])
	}
	t.Logf("%s: %d connections, %d bytes: identical", filepath.Base(path), conns, len(now))
	return conns
}
