package knob

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

var updateRealGrub = flag.Bool("update-real-grub", false, "rewrite testdata/real-grub/*/*.golden from the steps latlab prints")

// Each tree of testdata/real-grub holds GRUB settings copied unchanged
// from a public repository (see its PROVENANCE). The steps for
// isolation 2-3 and preemption full over it are the golden files
// beside it, checked by hand against what sh reads from the files and
// the command line grub-mkconfig builds from them; followed as written,
// they give the command line wanted.
func TestRealGrubSteps(t *testing.T) {
	dirs, err := filepath.Glob("testdata/real-grub/*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no real GRUB settings: %v", err)
	}
	for _, dir := range dirs {
		for _, tc := range []struct {
			knob, value, golden string
			mine                func(string) bool // the words the knob sets
			want                string
		}{
			{isolationName, "2-3", "isolation.golden", isolationWord, isolationLine("2-3")},
			{preemptionName, "full", "preemption.golden", func(w string) bool { return strings.HasPrefix(w, "preempt=") }, "preempt=full"},
		} {
			files := map[string]string{
				"proc/cmdline":            "BOOT_IMAGE=/vmlinuz-linux root=UUID=0 rw loglevel=3 quiet\n",
				"proc/sys/kernel/version": versionDynamic,
			}
			b, err := os.ReadFile(filepath.Join(dir, "etc/default/grub"))
			if err != nil {
				t.Fatal(err)
			}
			files["etc/default/grub"] = string(b)
			drops, _ := filepath.Glob(filepath.Join(dir, "etc/default/grub.d/*"))
			for _, f := range drops {
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				files["etc/default/grub.d/"+filepath.Base(f)] = string(b)
			}
			env, root := isolationEnv(t, files)
			p, err := plan(env, tc.knob, Selector{}, tc.value)
			if err != nil {
				t.Fatalf("%s %s: %v", dir, tc.knob, err)
			}
			var got strings.Builder
			for _, s := range p.Manual {
				got.WriteString(s.Do + "\n")
				if s.Line != "" {
					got.WriteString("    " + s.Line + "\n")
				}
			}
			testutil.Golden(t, filepath.Join(dir, tc.golden), got.String(), *updateRealGrub, "-update-real-grub")
			if applyGrubSteps(t, root, p.Manual) {
				var set []string
				for _, w := range strings.Fields(grubCmdline(t, env)) {
					if tc.mine(w) {
						set = append(set, w)
					}
				}
				if strings.Join(set, " ") != tc.want {
					t.Errorf("%s %s: after the steps the command line has %q, want %q", dir, tc.knob, set, tc.want)
				}
			}
		}
	}
}
