package knob

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/knob/backend"
)

// GRUB builds the kernel command line from two variables that
// grub-mkconfig reads by sourcing /etc/default/grub and, on Debian and
// Ubuntu, every /etc/default/grub.d/*.cfg after it (Ubuntu's
// util/grub-mkconfig.in: `. ${sysconfdir}/default/grub`, then
// `for x in ${sysconfdir}/default/grub.d/*.cfg`): its 10_linux puts
// "${GRUB_CMDLINE_LINUX} ${GRUB_CMDLINE_LINUX_DEFAULT}" on the normal
// entries and GRUB_CMDLINE_LINUX alone on the recovery ones.

const (
	grubLinux   = "GRUB_CMDLINE_LINUX"
	grubDefault = "GRUB_CMDLINE_LINUX_DEFAULT"
	grubDropIns = "etc/default/grub.d"
)

// grubSettings are the two variables as grub-mkconfig would hold them.
type grubSettings struct {
	// Files are the files read, in order ("/etc/default/grub" first).
	Files          []string
	Linux, Default shellVar
	// Problem says why latlab cannot know them without running the
	// files; "" when it can.
	Problem string
}

// readGrub reads /etc/default/grub and its drop-ins; ok is false when
// /etc/default/grub does not exist.
func readGrub(env *Env) (g grubSettings, ok bool) {
	v, err := env.read(grubDefaultLoc)
	if err != nil || v.IsAbsent() {
		return g, false
	}
	st := newShellState(grubLinux, grubDefault)
	g.Files = []string{"/" + grubDefaultLoc.Path}
	st.source(g.Files[0], string(v.Data))
	_, files, err := env.list(backend.BackendFile, grubDropIns)
	if err != nil && !errors.Is(err, backend.ErrNotFound) {
		g.Problem = "cannot list /" + grubDropIns + ", whose *.cfg files grub-mkconfig reads after /etc/default/grub on Debian and Ubuntu: " + err.Error()
	}
	for _, f := range files {
		if !strings.HasSuffix(f, ".cfg") {
			continue
		}
		l := fileLoc(grubDropIns + "/" + f)
		v, err := env.read(l)
		if err != nil {
			g.Problem = "cannot read /" + l.Path + ": " + err.Error()
			break
		}
		if v.IsAbsent() {
			continue
		}
		g.Files = append(g.Files, "/"+l.Path)
		st.source("/"+l.Path, string(v.Data))
	}
	g.Linux, g.Default = st.get(grubLinux), st.get(grubDefault)
	if g.Problem == "" {
		g.Problem = g.Linux.Unknown
	}
	if g.Problem == "" {
		g.Problem = g.Default.Unknown
	}
	return g, true
}

// grubSteps put add on the kernel command line GRUB builds, in place
// of the words drop matches (named by dropped): the new
// GRUB_CMDLINE_LINUX where it is set last, and the new
// GRUB_CMDLINE_LINUX_DEFAULT when that holds dropped words too (the
// normal entries would have both). Settings latlab cannot read give a
// step that says so, never a line to paste.
func grubSteps(g grubSettings, drop func(string) bool, dropped, add string) []ManualStep {
	regen := ManualStep{Do: "regenerate the GRUB configuration: update-grub on Debian and Ubuntu; grub2-mkconfig -o /boot/grub2/grub.cfg on Fedora and RHEL (where grubby --update-kernel=ALL --args=... does both steps); grub-mkconfig -o /boot/grub/grub.cfg on Arch"}
	if g.Problem != "" {
		do := "latlab cannot tell what " + grubLinux + " and " + grubDefault + " hold without running the GRUB settings (" + strings.Join(g.Files, ", ") + "): " + g.Problem + ". Edit them by hand: remove any " + dropped + " from both"
		if add == "" {
			return []ManualStep{{Do: do}, regen}
		}
		return []ManualStep{{Do: do + " and add to " + grubLinux + ":", Line: add}, regen}
	}
	l := editTarget(g.Linux, drop)
	steps := []ManualStep{varStep(l, grubLinux, replaceWords(l.Value, drop, add), "")}
	if slices.ContainsFunc(strings.Fields(g.Default.Value), drop) {
		d := editTarget(g.Default, drop)
		steps = append(steps, varStep(d, grubDefault, replaceWords(d.Value, drop, ""),
			"it holds "+dropped+" too, and grub-mkconfig puts it after "+grubLinux+" on the command line"))
		// Line numbers are the file's as it is: in one file, the later
		// lines are edited first, so the first edit moves no line the
		// second names.
		if d.File == l.File && d.Line > l.Line {
			steps[0], steps[1] = steps[1], steps[0]
		}
	}
	return append(steps, regen)
}

// editTarget is the assignment to edit: the last one, or, when that
// only appends to the value before it (a drop-in's NAME="$NAME more",
// as Ubuntu's kdump-tools.cfg adds crashkernel=) and adds no dropped
// word, the one it appends to, so that the drop-in keeps appending.
func editTarget(v shellVar, drop func(string) bool) shellVar {
	for v.Prev != nil && !slices.ContainsFunc(strings.Fields(v.Suffix), drop) {
		v = *v.Prev
	}
	return v
}

// varStep is the step that sets a variable to value: in place of its
// last assignment when that is alone on its lines, else on a line of its
// own after it (the last assignment is the one sh keeps), or in
// /etc/default/grub when no file sets it.
// why, when not "", says why the step is there.
func varStep(v shellVar, name, value, why string) ManualStep {
	line := name + "=" + shellQuote(value)
	if why != "" {
		why = "; " + why
	}
	if v.File == "" {
		return ManualStep{Do: "in /" + grubDefaultLoc.Path + ", add the line", Line: line}
	}
	lines := "line " + strconv.Itoa(v.Line)
	if v.End > v.Line {
		lines = "lines " + strconv.Itoa(v.Line) + "-" + strconv.Itoa(v.End)
	}
	now := "unset"
	if v.Set {
		now = "now " + strconv.Quote(v.Value)
	}
	if v.Alone {
		return ManualStep{Do: "in " + v.File + ", replace " + lines + " (the last to set " + name + ", " + now + why + ") with", Line: line}
	}
	return ManualStep{Do: "in " + v.File + ", add after line " + strconv.Itoa(v.End) + " (the last to set " + name + ", " + now + ", shares its line with other commands" + why + ") the line", Line: line}
}
