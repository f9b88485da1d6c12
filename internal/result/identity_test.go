package result_test

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/latlab/latlab/internal/cli"
	"github.com/latlab/latlab/internal/result"
	"github.com/latlab/latlab/internal/testutil"
)

// `pcap tcp --json` on a capture of thousands of short connections (from
// scripts/pcapgen, as scripts/bench-pcap-tcp makes them) writes, byte for
// byte, the document it wrote before fillLists was planned per type and
// before appendIndent: every value walked by reflection, json.Indent.
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
	run := func() []byte {
		var out, errb bytes.Buffer
		if code := cli.Run(context.Background(), []string{"pcap", "tcp", capture, "--json"}, &cli.IO{Out: &out, Err: &errb}); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		// the one line that differs between two runs
		return regexp.MustCompile(`(?m)^  "created": ".*",$`).ReplaceAll(out.Bytes(), []byte(`  "created": "",`))
	}
	now := run()
	restore := result.UseBefore()
	before := run()
	restore()
	conns := bytes.Count(now, []byte(`"stream": `))
	if conns < 1000 {
		t.Fatalf("%d connections: the capture is too small to show anything", conns)
	}
	if !bytes.Equal(now, before) {
		i := 0
		for i < min(len(now), len(before)) && now[i] == before[i] {
			i++
		}
		t.Fatalf("the documents differ at byte %d of %d/%d:\nnow:    %.200q\nbefore: %.200q",
			i, len(now), len(before), now[i:], before[i:])
	}
	t.Logf("%d connections, %d bytes: identical", conns, len(now))
}
