package doctor

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/try"
)

// A `latlab try` killed with SIGKILL leaves its change in place and its
// record running. The check-up must not call that value the user's
// choice and suggest measuring the old one: it says latlab changed it,
// with the journal entry, and suggests latlab knob revert.
func TestCheckupNamesWhatAnUnfinishedTryLeft(t *testing.T) {
	for _, killed := range []bool{true, false} {
		root := linuxTree(t, swapFiles("60\n"))
		env := linuxEnv(root)
		withLatlabSet("swappiness", knob.Selector{}, "10")(t, env)
		if killed {
			j, err := journal.Open(env.Backends[backend.BackendFile].(backend.Files).Root + "/var/lib/latlab")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(try.Record{State: try.StateRunning, Command: "latlab try swappiness 10", PID: 4242,
				Started: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), Knob: "swappiness", FirstEntry: 1})
			if err := j.WriteExperiment(b); err != nil {
				t.Fatal(err)
			}
			j.Close()
		}
		s := find(t, Audit(env, "linux"), "swappiness", "")
		if s.Verdict != knob.Changed {
			t.Fatalf("verdict %s, want %s", s.Verdict, knob.Changed)
		}
		if !killed {
			if s.Journal != nil || strings.Contains(s.Reason, "latlab changed") {
				t.Errorf("a knob set the user made is called an unfinished experiment: %+v", s)
			}
			continue
		}
		if s.Journal == nil || s.Journal.ID != 1 || s.Journal.Request != "10" {
			t.Errorf("journal %+v, want entry 1 that set 10", s.Journal)
		}
		for _, w := range []string{"latlab changed this itself", `"latlab try swappiness 10"`, "journal entry 1"} {
			if !strings.Contains(s.Reason, w) {
				t.Errorf("reason %q lacks %q", s.Reason, w)
			}
		}
		if s.try != nil {
			t.Errorf("suggests %q: measuring the value an unfinished experiment left", s.try.Command)
		}
		steps := NextSteps(&Result{Profile: Thorough, Settings: []Setting{s}})
		if len(steps) == 0 || steps[0].Command != "latlab knob revert" {
			t.Errorf("first step %+v, want latlab knob revert", steps)
		}
	}
}
