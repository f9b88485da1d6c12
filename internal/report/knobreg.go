package report

import (
	"encoding/binary"
	"fmt"
	"io"
	"strings"

	"github.com/latlab/latlab/internal/knob"
	"github.com/latlab/latlab/internal/knob/backend"
)

// KnobRegFile prints `knob explain FILE.reg`: how many of the file's
// values latlab knows, then each of them decoded by its knob, then the
// values it has no evidence on, then the lines the file's reader skipped.
// Paths, names and data come from the file, which anyone may have
// written: they are shown through visible.
func KnobRegFile(w io.Writer, x *knob.RegExplanation) {
	regFileHead(w, x)
	for _, e := range x.Known {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "%s (line %d)\n", e.Knob, e.Line)
		regEntryLines(w, e, "  ")
		if e.Refused != "" {
			wrapTo(w, "latlab would not write this there: "+visible(e.Refused), "  ", "    ")
		}
		for _, l := range e.Text {
			lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
			wrapTo(w, l, "  "+lead, "    "+lead)
		}
	}
	if len(x.Unknown) > 0 {
		fmt.Fprintln(w)
		wrapTo(w, fmt.Sprintf("settings latlab has no evidence on (%d): not decoded, neither a gain nor a harm shown", len(x.Unknown)), "", "  ")
		// the values of one key, one after the other, under it once
		for i, e := range x.Unknown {
			if i == 0 || e.KeyDeleted || x.Unknown[i-1].KeyDeleted || !strings.EqualFold(e.Loc.Path, x.Unknown[i-1].Loc.Path) {
				keyLines(w, e.Loc.Path, "  ")
			}
			if e.KeyDeleted {
				wrapTo(w, fmt.Sprintf("line %d: the key is deleted, with everything below it%s", e.Line, nowText(e)), "    ", "      ")
				if e.Note != "" {
					wrapTo(w, visible(e.Note), "      ", "      ")
				}
				continue
			}
			wrapTo(w, fmt.Sprintf("line %d: %s", e.Line, valueText(e)), "    ", "      ")
			if e.Note != "" {
				wrapTo(w, visible(e.Note), "      ", "      ")
			}
		}
	}
	if len(x.Notes) > 0 {
		fmt.Fprintln(w)
		switch {
		case x.PowerShell:
			fmt.Fprintln(w, "commands skipped")
		case x.Batch:
			fmt.Fprintln(w, "reg commands skipped")
		default:
			fmt.Fprintln(w, "lines skipped")
		}
		for _, n := range x.Notes {
			wrapTo(w, visible(n), "  ", "    ")
		}
	}
}

// regFileHead writes the answer (how many of the file's values latlab
// knows), then what was skipped, what was read otherwise than written
// and, of a batch file, how many lines hold no reg command.
func regFileHead(w io.Writer, x *knob.RegExplanation) {
	switch {
	case len(x.Known)+len(x.Unknown) == 0 && x.PowerShell:
		wrapTo(w, visible(x.File)+": no registry change to decode: no registry command with a value or a deletion", "", "  ")
	case len(x.Known)+len(x.Unknown) == 0 && x.Batch:
		wrapTo(w, visible(x.File)+": no registry change to decode: no reg add or reg delete command with a value or a deletion", "", "  ")
	case len(x.Known)+len(x.Unknown) == 0:
		wrapTo(w, visible(x.File)+": no registry change to decode: no key with a value or a deletion", "", "  ")
	default:
		what := count(x.Values, "value")
		if deleted := len(x.Known) + len(x.Unknown) - x.Values; deleted > 0 {
			what += " and " + count(deleted, "deleted key")
		}
		where := count(x.Keys, "key line")
		switch {
		case x.PowerShell:
			where = count(x.Keys, "registry command")
		case x.Batch:
			where = count(x.Keys, "reg command")
		}
		wrapTo(w, fmt.Sprintf("%s: %s in %s: latlab knows %d of these settings and has no evidence on %d",
			visible(x.File), what, where, len(x.Known), len(x.Unknown)), "", "  ")
	}
	if x.Current {
		unread := len(x.Known) + len(x.Unknown) - x.Changes - x.Same - x.Kept - x.Asked
		line := fmt.Sprintf("on this machine an import would change %d of them; %d are already as the file writes them", x.Changes, x.Same)
		why := "New-ItemProperty without -Force"
		if x.Batch {
			why = "reg add answered no"
		}
		switch {
		case x.Kept == 1:
			line += "; 1 exists and is left as it is (" + why + ")"
		case x.Kept > 1:
			line += fmt.Sprintf("; %d exist and are left as they are (%s)", x.Kept, why)
		}
		switch {
		case x.Asked == 1:
			line += "; 1 exists and changes only if reg's question is answered yes (reg without /f)"
		case x.Asked > 1:
			line += fmt.Sprintf("; %d exist and change only if reg's question is answered yes (reg without /f)", x.Asked)
		}
		if unread > 0 {
			line += fmt.Sprintf("; %d could not be read", unread)
		}
		wrapTo(w, line, "", "  ")
	}
	switch {
	case x.PowerShell && len(x.Notes) > 0:
		wrapTo(w, fmt.Sprintf("%s skipped (below)", count(len(x.Notes), "command")), "", "  ")
	case x.Batch && len(x.Notes) > 0:
		wrapTo(w, fmt.Sprintf("%s skipped (below)", count(len(x.Notes), "reg command")), "", "  ")
	case len(x.Notes) > 0:
		wrapTo(w, fmt.Sprintf("%s skipped: regedit would not import them (below)", count(len(x.Notes), "line")), "", "  ")
	}
	// A key read otherwise than written (ControlSet001) is said once,
	// not under each of its values.
	seen := map[string]bool{}
	for _, e := range append(append([]knob.RegEntry{}, x.Known...), x.Unknown...) {
		if e.Path != "" && !seen[e.Path] {
			seen[e.Path] = true
			wrapTo(w, e.Path, "", "  ")
		}
	}
	switch {
	case x.OtherLines > 0 && x.PowerShell:
		wrapTo(w, fmt.Sprintf("%s of the script not read: no registry writes (services, bcdedit, powercfg... change settings latlab does not decode here)", count(x.OtherLines, "other command")), "", "  ")
	case x.OtherLines > 0:
		wrapTo(w, fmt.Sprintf("%s of the script hold no reg add or reg delete: not read (bcdedit, netsh, powershell... change settings latlab does not decode here)", count(x.OtherLines, "other line")), "", "  ")
	}
}

// regEntryLines writes an entry's key (wrapped at backslashes) and what
// the file writes there.
func regEntryLines(w io.Writer, e knob.RegEntry, indent string) {
	keyLines(w, e.Loc.Path, indent)
	if e.KeyDeleted {
		fmt.Fprintln(w, indent+"  the key is deleted, with everything below it"+nowText(e))
	} else {
		wrapTo(w, valueText(e), indent+"  ", indent+"    ")
	}
	if e.Note != "" {
		wrapTo(w, visible(e.Note), indent+"  ", indent+"    ")
	}
}

// nowText is what the entry's location holds on this machine, when it
// was read (knob explain --current).
func nowText(e knob.RegEntry) string {
	switch {
	case e.NowError != "":
		return " (now: unreadable: " + visible(e.NowError) + ")"
	case e.Now == nil:
		return ""
	case e.Kept:
		return " (now: " + regData(*e.Now) + ", left as it is)"
	case e.Asked && e.KeyDeleted:
		return " (now: it exists, deleted only if reg is answered yes)"
	case e.Asked:
		return " (now: " + regData(*e.Now) + ", changed only if reg is answered yes)"
	case e.KeyDeleted && e.Now.IsAbsent():
		return " (now: absent already)"
	case e.KeyDeleted:
		return " (now: it exists)"
	case backend.Same(*e.Now, e.Value):
		return " (now: the same)"
	case e.Now.IsAbsent():
		return " (now: absent)"
	}
	return " (now: " + regData(*e.Now) + ")"
}

// keyLines writes a key's path, cut at backslashes to fit.
func keyLines(w io.Writer, path, indent string) {
	for _, l := range splitPath(visible(path), pageWidth-len(indent)) {
		fmt.Fprintln(w, indent+l)
	}
}

// valueText is "name = data" of a value the file writes.
func valueText(e knob.RegEntry) string {
	name := visible(e.Loc.Name)
	if name == "" {
		name = "@ (the key's default value)"
	}
	return name + " = " + regData(e.Value) + nowText(e)
}

// splitPath cuts a registry path into lines of at most width, at
// backslashes where it can (each further line starts with one).
func splitPath(p string, width int) []string {
	var lines []string
	for len([]rune(p)) > width {
		cut := strings.LastIndex(string([]rune(p)[:width]), `\`)
		if cut <= 0 {
			cut = len(string([]rune(p)[:width]))
		}
		lines = append(lines, p[:cut])
		p = p[cut:]
	}
	return append(lines, p)
}

// regData shows a value as a .reg file states it, in short.
func regData(v backend.Value) string {
	d := v.Data
	switch v.Type {
	case backend.TypeAbsent, "":
		return "deleted"
	case backend.TypeDWORD:
		if len(d) == 4 {
			n := binary.LittleEndian.Uint32(d)
			return fmt.Sprintf("dword 0x%08x (%d)", n, n)
		}
	case backend.TypeQWORD:
		if len(d) == 8 {
			n := binary.LittleEndian.Uint64(d)
			return fmt.Sprintf("qword 0x%016x (%d)", n, n)
		}
	case backend.TypeSZ:
		return fmt.Sprintf("%q", visible(v.String()))
	case backend.TypeExpandSZ, backend.TypeMultiSZ:
		return fmt.Sprintf("%s %q", v.Type, visible(v.String()))
	}
	const show = 16
	var b strings.Builder
	for i, c := range d[:min(len(d), show)] {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%02x", c)
	}
	if len(d) > show {
		fmt.Fprintf(&b, ",… (%d bytes)", len(d))
	}
	return v.Type + " hex:" + b.String()
}
