package knob

import (
	"fmt"

	"github.com/latlab/latlab/internal/knob/journal"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
)

// The Run functions of this package (RunList, RunGet, RunExplain, RunSet,
// RunRevert, RunHistory, RunExport) are the work of the `latlab knob`
// subcommands: the CLI maps its flags to their options, calls them and
// writes the result. Bad input comes back as a badinput.Error.

// envOf is the environment a command reads and writes through: env when
// a test gives one, else this machine's with the root of the Linux
// backends.
func envOf(env *Env, root string) *Env {
	if env != nil {
		return env
	}
	return NewEnv(root)
}

// stateDirOf is the journal's directory: dir, else the default under root.
func stateDirOf(dir, root string) string {
	if dir != "" {
		return dir
	}
	return DefaultStateDir(root)
}

// lookupNative finds a knob that can be read or changed here: one of
// this OS's.
func lookupNative(name string) (Knob, error) {
	k, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	if !IsNative(k) {
		return nil, badinput.Errorf("%s is a %s setting: this is %s (latlab knob explain %s decodes its values on any OS)", k.Name(), k.OS(), HostOS, k.Name())
	}
	return k, nil
}

// ShowValue renders a stored value as the knob commands print it: with
// its type where the type says something (a registry DWORD), without
// where it says nothing (a file's text, a BCD element).
func ShowValue(v backend.Value) string {
	if v.IsAbsent() || v.Type == backend.TypeKey || v.Type == backend.TypeFile || v.Type == backend.TypeBCD || v.Type == backend.TypeEthCoalesce || v.Type == backend.TypeService {
		if v.Type == backend.TypeKey {
			return "(key exists)"
		}
		return v.String()
	}
	return fmt.Sprintf("%s (%s)", v.String(), v.Type)
}

// fileDamageWarning says that the journal file's checksum failed, when no
// damaged entry explains it; "" when nothing does.
func fileDamageWarning(dir, fileDamage string, damaged []journal.Damage) string {
	if fileDamage != "" && len(damaged) == 0 {
		return fmt.Sprintf("journal %s: %s; the entries that pass their own checksums are used", dir, fileDamage)
	}
	return ""
}

// journalWarnings say what is damaged in a journal; set, revert and
// history go on with the rest.
func journalWarnings(dir, fileDamage string, damaged []journal.Damage) []string {
	var out []string
	if w := fileDamageWarning(dir, fileDamage, damaged); w != "" {
		out = append(out, w)
	}
	for _, d := range damaged {
		out = append(out, fmt.Sprintf("journal %s is damaged, left alone: %s", d, d.Why))
	}
	return out
}
