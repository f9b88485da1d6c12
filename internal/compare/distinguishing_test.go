package compare

import (
	"testing"

	"github.com/latlab/latlab/internal/result"
)

// What distinguishes a run is what it measured: flags that choose output
// files or how inputs are read are not listed.
func TestDistinguishing(t *testing.T) {
	first := &result.Document{Settings: map[string]string{
		"samples": "120", "resolution": "0", "force": "false", "output": "a.json", "max-input-size": "1 GiB",
		"allow-special-files": "false", "hist-max": "1000", "csv": "",
	}}
	for _, c := range []struct {
		name string
		set  map[string]string
		want string
	}{
		{"same", map[string]string{}, ""},
		{"measured", map[string]string{"resolution": "1µs"}, "--resolution 1µs"},
		{"output only", map[string]string{"force": "true", "output": "b.json", "max-input-size": "2 GiB",
			"allow-special-files": "true", "hist-max": "50", "csv": "b.csv"}, ""},
		{"both", map[string]string{"force": "true", "samples": "200"}, "--samples 200"},
	} {
		d := &result.Document{Settings: map[string]string{}}
		for k, v := range first.Settings {
			d.Settings[k] = v
		}
		for k, v := range c.set {
			d.Settings[k] = v
		}
		if got := distinguishing(d, first); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
