package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/journal"
	"github.com/latlab/latlab/internal/try"
)

// Setting is one audited instance of a knob.
type Setting struct {
	Knob    string `json:"knob"`
	Target  string `json:"target,omitempty"` // the instance: an adapter, an interface
	Value   string `json:"value"`
	Meaning string `json:"meaning,omitempty"`
	Default string `json:"default"` // the OS default, in the knob's terms
	// IsDefault says whether the value is the default; absent when that
	// cannot be told.
	IsDefault *bool        `json:"is_default,omitempty"`
	Verdict   knob.Verdict `json:"verdict"`
	Reason    string       `json:"reason"`
	// Evidence is what the verdict rests on, quoted from the knob's own
	// explanation or reading (the research behind the value).
	Evidence string `json:"evidence,omitempty"`
	Rule     string `json:"rule"` // the rule that decided
	// References are the values published tuning profiles set for the
	// knob (tuned's latency-performance...), which the rules cite.
	References []knob.Reference `json:"references,omitempty"`
	// Journal is the entry of latlab's own journal when latlab changed the
	// setting and has not put it back (a `latlab try` that was killed).
	Journal *JournalEntry `json:"journal,omitempty"`
	next    *Step
	try     *Step // the latlab try experiment that measures it
}

// Audit reads every knob of the catalogue that belongs to osName through
// env and judges each instance with the rules. Nothing is written.
func Audit(env *knob.Env, osName string) []Setting {
	var out []Setting
	for _, k := range knob.All() {
		if k.OS() != osName {
			continue
		}
		for _, c := range collect(env, osName, k) {
			out = append(out, judge(c))
		}
	}
	if j := knob.ReadJournal(env); j != nil {
		if r, open, err := try.Unfinished(j); err == nil && r != nil {
			markUnfinished(out, r, open)
		}
	}
	return out
}

// JournalEntry is what the check-up says of a change latlab itself made.
type JournalEntry struct {
	ID       int    `json:"id"`
	Time     string `json:"time"`     // RFC 3339
	Request  string `json:"request"`  // the value latlab set, as it was asked
	Original string `json:"original"` // what `latlab knob revert` puts back
}

// markUnfinished tells the settings an experiment left changed (a
// `latlab try` killed before it could restore them) from the ones someone
// chose: such a value is not one to measure against the old one, but a
// change latlab left behind, which knob revert takes back exactly.
func markUnfinished(ss []Setting, r *try.Record, open []journal.Entry) {
	for i := range ss {
		s := &ss[i]
		for _, e := range open {
			if e.Knob != s.Knob || (e.Target != "" && s.Target != "" && e.Target != s.Target) {
				continue
			}
			s.Journal = &JournalEntry{ID: e.ID, Time: e.Time.UTC().Format(time.RFC3339), Request: e.Request, Original: e.Original.String()}
			s.Reason = fmt.Sprintf("latlab changed this itself: %q set it to %s (journal entry %d, %s) and stopped before restoring %s; %s",
				r.Command, e.Request, e.ID, e.Time.UTC().Format("2006-01-02 15:04 UTC"), e.Original.String(), s.Reason)
			s.try = nil
			s.next = &Step{Command: "latlab knob revert",
				Why:     fmt.Sprintf("an experiment latlab did not finish left %s changed (journal entry %d): revert puts back %s", s.Knob, e.ID, e.Original.String()),
				Benefit: 90}
			break
		}
	}
}

// judge applies the first matching rule of the case's knob (the generic
// rules for unreadable values come first).
func judge(c *knob.Case) Setting {
	s := Setting{Knob: c.Knob, Target: c.Target, Value: c.Value, Meaning: c.Meaning, Default: defaultOf(c.Knob, c)}
	if k, err := knob.Lookup(c.Knob); err == nil {
		s.References = k.Checkup().References
	}
	for i := range Rules {
		r := &Rules[i]
		if (r.Knob != "*" && r.Knob != c.Knob) || !r.Match(c) {
			continue
		}
		s.Rule, s.Verdict, s.Reason = r.ID, r.Verdict, r.Reason(c)
		if r.Evidence != nil {
			s.Evidence = r.Evidence(c)
		}
		if r.Next != nil {
			s.next = (*Step)(r.Next(c))
		}
		s.try = tryStep(c, s)
		switch {
		case r.IsDefault != nil:
			s.IsDefault = r.IsDefault(c)
		case r.Verdict == knob.Default:
			s.IsDefault = boolPtr(true)
		case r.Verdict != knob.Unknown:
			s.IsDefault = boolPtr(false)
		}
		switch {
		case r.Verdict == knob.Unknown && c.Privilege != "":
			s.Value = "unknown (needs " + c.Privilege + ")"
		case s.Value != "":
		case c.Empty:
			s.Value = "(none)"
		case r.Verdict == knob.Unknown:
			s.Value = "unknown"
		}
		return s
	}
	// Every knob ends its rules with a catch-all; reaching here is a gap
	// in the table, reported rather than hidden.
	s.Rule, s.Verdict, s.Reason = "no-rule", knob.Unknown, "latlab has no rule for this value"
	return s
}

func boolPtr(b bool) *bool { return &b }

// collect reads one knob into cases (knob.Cases) and names the privilege
// each failed reading lacks.
func collect(env *knob.Env, osName string, k knob.Knob) []*knob.Case {
	cs := knob.Cases(env, k)
	for _, c := range cs {
		if c.Err != nil && c.Privilege == "" {
			c.Privilege = privilegeFor(env, osName, c.Err)
		}
	}
	return cs
}

// privilegeFor names the privilege a failed read lacks, or "" when the
// failure is something else.
func privilegeFor(env *knob.Env, osName string, err error) string {
	denied := errors.Is(err, fs.ErrPermission)
	if !denied && env.Privileged != nil && env.Privileged() != nil {
		// bcdedit says only "Access is denied" in its output.
		l := strings.ToLower(err.Error())
		denied = strings.Contains(l, "denied") || strings.Contains(l, "privilege")
	}
	if !denied {
		return ""
	}
	if osName == "windows" {
		return "Administrator"
	}
	return "root"
}

// defaultOf states a knob's OS default in the knob's own terms.
func defaultOf(name string, c *knob.Case) string {
	k, err := knob.Lookup(name)
	if err != nil || k.Checkup().Default == nil {
		return ""
	}
	return k.Checkup().Default(c)
}
