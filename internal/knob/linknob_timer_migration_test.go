package knob

import (
	"slices"
	"strings"
	"testing"
)

var timerMigFiles = map[string]string{"proc/sys/kernel/timer_migration": "1\n"}

func TestTimerMigrationExplain(t *testing.T) {
	k := timerMigrationKnob
	for in, want := range map[string]string{
		"0":   "0: off: every timer fires on the CPU that armed it",
		"off": "0: off",
		"1":   "1: on (the default)",
	} {
		ex, err := k.Explain(in, ExplainOptions{})
		if err != nil || len(ex.Text) != 1 || !strings.HasPrefix(ex.Text[0], want) {
			t.Errorf("explain %s: %v %v, want %q", in, ex, err, want)
		}
	}
	_, err := k.Explain("2", ExplainOptions{})
	sysctlBadInput(t, "explain 2", err, "accepted 0|1|on|off")
}

func TestTimerMigrationGetPlan(t *testing.T) {
	for _, c := range []struct {
		content, value, meaning string
	}{
		{"1\n", "1", "on (the default)"},
		{"0\n", "0", "off: every timer fires on the CPU that armed it"},
		{"", "absent", "kernel.timer_migration does not exist: this kernel has no timer migration"},
	} {
		env, _ := sysctlEnv(t, map[string]string{"proc/sys/kernel/timer_migration": c.content})
		r, err := timerMigrationKnob.Get(env, Selector{})
		if err != nil || len(r.Items) != 1 || r.Items[0].Value != c.value || !strings.HasPrefix(r.Items[0].Meaning, c.meaning) {
			t.Errorf("get %q: %+v %v", c.content, r, err)
		}
	}
	env, _ := sysctlEnv(t, timerMigFiles)
	p, err := timerMigrationKnob.Plan(env, Selector{}, "off")
	if err != nil || !slices.Equal(sysctlChanges(p), []string{"proc/sys/kernel/timer_migration=0"}) || !strings.Contains(strings.Join(p.Notes, ";"), "power") {
		t.Errorf("plan off: %+v %v", p, err)
	}
	if p, err := timerMigrationKnob.Plan(env, Selector{}, "1"); err != nil || len(p.Changes) != 0 {
		t.Errorf("plan 1 over 1: %+v %v", p, err)
	}
	_, err = timerMigrationKnob.Plan(env, Selector{}, "maybe")
	sysctlBadInput(t, "plan maybe", err, "invalid timer-migration \"maybe\": accepted 0|1|on|off")
	env, _ = sysctlEnv(t, map[string]string{})
	if _, err := timerMigrationKnob.Plan(env, Selector{}, "0"); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("plan on a kernel without the file: %v", err)
	}
}

// A crash after any write of a set leaves what revert undoes (the
// conformance suite, linknob_timer_migration_conform_test.go, sets and
// reverts without one).
func TestTimerMigrationCrashEverywhere(t *testing.T) {
	crashEverywhere(t, []setStep{{timerMigrationName, Selector{}, "0"}, {timerMigrationName, Selector{}, "1"}, {timerMigrationName, Selector{}, "0"}},
		func(t *testing.T) (*Env, func() map[string]string) {
			env, root := sysctlEnv(t, timerMigFiles)
			return env, func() map[string]string { return snapshotTree(t, root) }
		})
}
