package knob

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// tunedProfiles is the directory of tuned's profiles: LATLAB_TUNED_PROFILES
// (scripts/test unpacks Debian's tuned package there, without installing
// its service), else an installed tuned's /usr/lib/tuned.
func tunedProfiles(t *testing.T) string {
	t.Helper()
	for _, d := range []string{os.Getenv("LATLAB_TUNED_PROFILES"), "/usr/lib/tuned"} {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "latency-performance", "tuned.conf")); err == nil {
			return d
		}
	}
	if testutil.Required() {
		t.Fatal("tuned's profiles are required (LATLAB_REQUIRE_ALL=1): set LATLAB_TUNED_PROFILES")
	}
	t.Skip("tuned's profiles not found; scripts/test unpacks them")
	return ""
}

// tunedProfile reads a profile with the profiles it includes ([main]
// include=, the included first, the including profile's values winning),
// as tuned merges them: section -> key -> value.
func tunedProfile(t *testing.T, dir, name string, depth int) map[string]map[string]string {
	t.Helper()
	if depth > 8 {
		t.Fatalf("tuned profile %s: includes nest too deep", name)
	}
	f, err := os.Open(filepath.Join(dir, name, "tuned.conf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	own := map[string]map[string]string{}
	sec := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			sec = line[1 : len(line)-1]
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if own[sec] == nil {
			own[sec] = map[string]string{}
		}
		own[sec][strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	merged := map[string]map[string]string{}
	if inc := own["main"]["include"]; inc != "" {
		for _, p := range strings.Split(inc, ",") {
			for s, kv := range tunedProfile(t, dir, strings.TrimSpace(p), depth+1) {
				if merged[s] == nil {
					merged[s] = map[string]string{}
				}
				for k, v := range kv {
					merged[s][k] = v
				}
			}
		}
	}
	for s, kv := range own {
		if merged[s] == nil {
			merged[s] = map[string]string{}
		}
		for k, v := range kv {
			merged[s][k] = v
		}
	}
	return merged
}

// TestTunedProfileReader checks the reader on the real profiles: a value
// network-latency inherits from latency-performance, and one it sets.
func TestTunedProfileReader(t *testing.T) {
	dir := tunedProfiles(t)
	p := tunedProfile(t, dir, "network-latency", 0)
	if got := p["sysctl"]["vm.swappiness"]; got != "10" {
		t.Errorf("network-latency [sysctl] vm.swappiness = %q, want 10 (from latency-performance)", got)
	}
	if got := p["sysctl"]["kernel.numa_balancing"]; got != "0" {
		t.Errorf("network-latency [sysctl] kernel.numa_balancing = %q, want 0", got)
	}
}

// TestTunedReferences checks every tuned reference a knob cites against
// the profile it names, as tuned's package ships it: a rule that quotes
// tuned quotes what tuned does.
func TestTunedReferences(t *testing.T) {
	dir := tunedProfiles(t)
	cache := map[string]map[string]map[string]string{}
	for _, k := range All() {
		for _, r := range k.Checkup().References {
			if r.Source != "tuned" {
				continue
			}
			if r.Version != TunedVersion {
				t.Errorf("%s: reference %s: version %q, want %q", k.Name(), r.Cite(), r.Version, TunedVersion)
			}
			p, ok := cache[r.Profile]
			if !ok {
				p = tunedProfile(t, dir, r.Profile, 0)
				cache[r.Profile] = p
			}
			got, ok := p[r.Section][r.Key]
			if !ok {
				t.Errorf("%s: %s: the profile sets no [%s] %s", k.Name(), r.Cite(), r.Section, r.Key)
				continue
			}
			if got != r.Value {
				t.Errorf("%s: %s: the profile sets %q", k.Name(), r.Cite(), got)
			}
		}
	}
}

// numa-balancing cited network-latency alone; hpc-compute sets it in
// [sysctl] too, and throughput-performance only in the section its
// Marvell ThunderX match applies ([sysctl.thunderx]), which the words say.
func TestNUMABalancingProfiles(t *testing.T) {
	dir := tunedProfiles(t)
	tp := tunedProfile(t, dir, numaThunderX.Profile, 0)
	if got := tp[numaThunderX.Section][numaThunderX.Key]; got != numaThunderX.Value {
		t.Errorf("%s [%s] %s = %q, want %s", numaThunderX.Profile, numaThunderX.Section, numaThunderX.Key, got, numaThunderX.Value)
	}
	if got, ok := tp["sysctl"][numaThunderX.Key]; ok {
		t.Errorf("%s sets [sysctl] %s=%s for every machine: cite it as a reference", numaThunderX.Profile, numaThunderX.Key, got)
	}
	var profiles []string
	for _, r := range numaRefs {
		profiles = append(profiles, r.Profile)
	}
	// Every latency or compute profile whose own file sets it to 0 in
	// [sysctl] (not through an include) is cited.
	for _, name := range []string{"network-latency", "hpc-compute", "latency-performance", "realtime", "cpu-partitioning", "throughput-performance"} {
		b, err := os.ReadFile(filepath.Join(dir, name, "tuned.conf"))
		if err != nil {
			continue
		}
		sec := ""
		for _, l := range strings.Split(string(b), "\n") {
			l = strings.TrimSpace(l)
			if strings.HasPrefix(l, "[") {
				sec = l
			}
			if k, v, ok := strings.Cut(l, "="); ok && sec == "[sysctl]" && strings.TrimSpace(k) == "kernel.numa_balancing" && strings.TrimSpace(v) == "0" &&
				!strings.Contains(strings.Join(profiles, " "), name) {
				t.Errorf("%s sets kernel.numa_balancing=0 but numa-balancing does not cite it", name)
			}
		}
	}
	if c := numaCite(); !strings.Contains(c, "network-latency and hpc-compute") || !strings.Contains(c, "throughput-performance too, on Marvell ThunderX only") {
		t.Errorf("numaCite: %q", c)
	}
}
