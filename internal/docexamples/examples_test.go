package docexamples

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/buildinfo"
	"github.com/latlab/latlab/internal/cli"
	"github.com/latlab/latlab/internal/testutil"
)

// pinned are the examples run: the page and the command line as the page
// shows it after "$ ". Each runs from the repository root, on its test
// data, with nothing of the machine in its output.
var pinned = []struct {
	page, command string
	// writes: the command writes a file; it runs in a directory of
	// its own, holding copies of the files it reads.
	writes bool
}{
	{"docs/commands/README.md", "latlab slep", false},
	{"docs/commands/README.md", "latlab sleep --sample 50", false},
	{"docs/commands/README.md", "latlab timer set", false},
	{"docs/commands/knob.md", "latlab knob explain win32-priority-separation 0x26", false},
	{"docs/commands/knob.md", "latlab knob explain win32-priority-separation --find long,variable,2:1", false},
	{"docs/commands/knob.md", "latlab knob explain win32-priority-separation --find long,fixed,3:1", false},
	{"docs/commands/knob.md", "latlab knob explain display-scaling 1", false},
	{"docs/commands/knob.md", "latlab knob explain interrupt-moderation medium", false},
	{"docs/commands/knob.md", "latlab knob explain internal/regfile/testdata/wine-export-systemprofile.reg", false},
	{"docs/commands/inf.md", `latlab inf internal/inf/testdata/e2f-like.inf --device "PCI\VEN_8086&DEV_15F3"`, false},
	{"docs/commands/pcap.md", `latlab pcap dscp internal/capture/testdata/ssh.pcap --filter "port 22" --expect AF21`, false},
	{"README.md", `latlab pcap dscp internal/capture/testdata/ssh.pcap --filter "port 22" --expect AF21`, false},
	{"docs/commands/pcap.md", "latlab pcap tcp internal/tcpflow/testdata/ssh.pcap --events events.csv", true},
	{"README.md", "latlab pcap tcp internal/tcpflow/testdata/ssh.pcap --events events.csv", true},
	{"docs/commands/inf.md", `latlab inf internal/inf/testdata/e2f-like.inf --device "PCI\VEN_8086&DEV_15F3&SUBSYS_00008086&REV_03" --reg-out add-rss.reg`, true},
	{"docs/commands/dpcisr.md", "latlab dpcisr internal/dpcisr/testdata/xperf-dpcisr-keyboard-ps2-vs-usb.txt", false},
	{"docs/commands/dpcisr.md", "latlab dpcisr internal/dpcisr/testdata/xperf-dpcisr-lcxiv-exp09-under-load.txt", false},
	{"docs/commands/dpcisr.md", "latlab dpcisr compare internal/dpcisr/testdata/xperf-dpcisr-im-extreme.txt internal/dpcisr/testdata/xperf-dpcisr-im-off.txt --labels Extreme,Off --module ndis.sys", false},
	{"docs/commands/dpcisr.md", "latlab dpcisr compare internal/dpcisr/testdata/xperf-dpcisr-written-layout.txt internal/dpcisr/testdata/watch-synthetic.json --module ndis.sys --labels xperf,etw", false},
	{"docs/commands/etl.md", "latlab etl internal/etl/testdata/lxcore_kernel.etl", false},
	{"docs/result-document.md", "latlab compare internal/result/testdata/sleep-document.golden internal/result/testdata/refused/unknown-kind.json", false},
	{"docs/result-document.md", "latlab compare internal/result/testdata/sleep-document.golden internal/result/testdata/refused/newer-schema.json", false},
}

func TestExamplesShowWhatTheCommandPrints(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pinned {
		t.Run(p.command, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join(root, p.page))
			if err != nil {
				t.Fatal(err)
			}
			want, ok := example(string(page), p.command)
			if !ok {
				t.Fatalf("%s shows no example of %q", p.page, p.command)
			}
			args, err := split(strings.TrimPrefix(p.command, "latlab "))
			if err != nil {
				t.Fatal(err)
			}
			if p.writes {
				t.Chdir(inDirOfItsOwn(t, root, args))
			} else {
				t.Chdir(root)
			}
			var out bytes.Buffer
			cli.Run(context.Background(), args, &cli.IO{Out: &out, Err: &out})
			got := strings.TrimRight(out.String(), "\n")
			// The pages show a build without VCS information ("dev"); a
			// test binary built in a clone (-buildvcs) carries the
			// module's pseudo-version.
			if v := buildinfo.Get().Version; v != "dev" {
				got = strings.ReplaceAll(got, v, "dev")
			}
			if cut, ok := strings.CutSuffix(want, "\n..."); ok {
				// the page shows the beginning
				want = cut
				if strings.HasPrefix(got, want+"\n") {
					got = want
				}
			}
			if got != want {
				t.Errorf("%s: the example of %q is not what the command prints (update the page):\n%s",
					p.page, p.command, lineDiff(want, got))
			}
		})
	}
}

// inDirOfItsOwn returns a new directory holding a copy of each file of
// root that args name, at the same relative path.
func inDirOfItsOwn(t *testing.T, root string, args []string) string {
	t.Helper()
	dir := testutil.TempDir(t)
	for _, a := range args {
		b, err := os.ReadFile(filepath.Join(root, a))
		if err != nil || !strings.Contains(a, "/") {
			continue
		}
		to := filepath.Join(dir, filepath.FromSlash(a))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// example returns the output shown after "$ command" in a code block of
// page: the lines up to the next "$ " line or the end of the block. A
// last line "..." shows that the page gives the beginning only.
func example(page, command string) (string, bool) {
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		// a command continued on the next line (a trailing backslash)
		l := lines[i]
		for strings.HasSuffix(l, " \\") && i+1 < len(lines) && strings.HasPrefix(l, "$ ") {
			i++
			l = strings.TrimSuffix(l, "\\") + strings.TrimSpace(lines[i])
		}
		if l != "$ "+command {
			continue
		}
		var out []string
		for _, o := range lines[i+1:] {
			if strings.HasPrefix(o, "```") || strings.HasPrefix(o, "$ ") {
				break
			}
			out = append(out, o)
		}
		return strings.TrimRight(strings.Join(out, "\n"), "\n"), true
	}
	return "", false
}

// split splits a command line as a POSIX shell would for the examples'
// needs: words, single and double quotes.
func split(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unclosed quote in %q", s)
	}
	if in {
		args = append(args, cur.String())
	}
	return args, nil
}

// lineDiff names the first line that differs.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d:\n page:    %q\n command: %q", i+1, a, b)
		}
	}
	return ""
}
