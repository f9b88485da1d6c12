package knob

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// DISPLAYCONFIG_SCALING 1 is identity, not "No scaling": GPU control
// panels' "No scaling" is 2 centered.
func TestDisplayScalingNames(t *testing.T) {
	for n, want := range map[uint32]string{1: "identity", 2: "centered", 3: "stretched", 4: "aspect-ratio", 5: "custom", 128: "preferred"} {
		if got := ScalingName(n); got != want {
			t.Errorf("ScalingName(%d) = %q, want %q", n, got, want)
		}
	}
	if m := strings.ToLower(scalingMeaning(1)); strings.Contains(m, "no scaling") {
		t.Errorf("identity described as no scaling: %q", m)
	}
	if m := scalingMeaning(2); !strings.Contains(m, `"No scaling"`) {
		t.Errorf("centered %q: want the control panel's name", m)
	}
	for in, want := range map[string]uint32{
		"identity": 1, "DISPLAYCONFIG_SCALING_IDENTITY": 1, "centered": 2, "full-screen": 3,
		"aspect-ratio": 4, "aspect-ratio-centered-max": 4, "128": 128,
	} {
		if n, err := parseScaling(in); err != nil || n != want {
			t.Errorf("parseScaling(%q) = %d %v, want %d", in, n, err, want)
		}
	}
	if _, err := parseScaling("no scaling"); err == nil || !badinput.Is(err) || !strings.Contains(err.Error(), `"No scaling" is 2 centered`) {
		t.Errorf("no scaling: %v", err)
	}

	k, _ := Lookup("display-scaling")
	for _, v := range []string{"", "1", "2", "4", "128"} {
		ex, err := k.Explain(v, ExplainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ex.Text {
			if len([]rune(l)) > 80 {
				t.Errorf("explain %q: line of %d columns: %q", v, len([]rune(l)), l)
			}
		}
		text := strings.Join(ex.Text, "\n")
		if (v == "" || v == "1") && !strings.Contains(text, "falls back to aspect-ratio (4)") {
			t.Errorf("explain %q lacks the identity fallback:\n%s", v, text)
		}
		if v == "2" {
			b, _ := json.Marshal(ex.Data)
			if !strings.Contains(string(b), `"constant":"DISPLAYCONFIG_SCALING_CENTERED"`) || !strings.Contains(string(b), `"name":"centered"`) {
				t.Errorf("explain 2 JSON %s", b)
			}
		}
	}
}

// A requested identity that an active path shows as aspect ratio is the
// fallback the identity-scaling study describes: get says so.
func TestDisplayScalingIdentityFallback(t *testing.T) {
	env, reg, _, _ := testEnv(t)
	reg.Set(graphicsConfigKey+`\SIMULATED_8086_1234_00000000_00020000_0^A1B2C3\00\00`, "Scaling", backend.DWORD(1))
	env.Display = func() ([]DisplayPath, error) {
		return ParsePathInfos(pathInfo(7, 0, 1, 5, 4, 60, 1, true), 1)
	}
	r := get(t, env, "display-scaling", Selector{})
	if n := strings.Join(r.Notes, " "); !strings.Contains(n, "identity (1) is requested but an active path uses aspect-ratio (4)") {
		t.Errorf("notes %v: want the fallback said", r.Notes)
	}
	b, _ := json.Marshal(r)
	for _, want := range []string{`"constant":"DISPLAYCONFIG_SCALING_IDENTITY"`, `"scaling_name":"aspect-ratio"`, `"scaling_constant":"DISPLAYCONFIG_SCALING_ASPECTRATIOCENTEREDMAX"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("get JSON lacks %s: %s", want, b)
		}
	}
	// Stretched in use while stretched is requested: nothing to say.
	reg.Set(graphicsConfigKey+`\SIMULATED_8086_1234_00000000_00020000_0^A1B2C3\00\00`, "Scaling", backend.DWORD(3))
	if r := get(t, env, "display-scaling", Selector{}); len(r.Notes) != 0 {
		t.Errorf("notes %v without identity requested", r.Notes)
	}
}
