package cli

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/latlab/latlab/internal/cpuset"
	"github.com/latlab/latlab/internal/sched"
)

// One vocabulary across commands: a flag name means one thing in every
// command that has it (the command-tree test holds the table,
// vocabulary_test.go). --duration is how long a run lasts, --sleep-length
// the length of one sleep, --cpus a list of CPUs, --priority and --rtprio
// the scheduling of the measuring thread. The spellings these replaced
// still work, hidden, with a one-line note on stderr, so that scripts do
// not break.

// aliasValue is an old spelling of a flag: it sets the new one's value and
// says once on stderr what the flag is called now.
type aliasValue struct {
	pflag.Value
	to            *pflag.Flag // the flag's name now
	old, new, why string
	note          io.Writer
	said          bool
	conv          func(string) string // the old value in the new flag's terms
}

func (a *aliasValue) Set(s string) error {
	if a.conv != nil {
		s = a.conv(s)
	}
	if err := a.Value.Set(s); err != nil {
		return err // the error's one line alone, as for any bad value
	}
	if !a.said && a.note != nil {
		a.said = true
		fmt.Fprintf(a.note, "latlab: --%s is now --%s%s\n", a.old, a.new, a.why)
	}
	a.to.Changed = true // the command asks the new name
	return nil
}

// oldSpelling adds old as a hidden alias of the flag new of fs; why, when
// not empty, follows the note (", the length of one sleep").
func oldSpelling(fs *pflag.FlagSet, note io.Writer, old, new, why string) {
	f := fs.Lookup(new)
	if f == nil {
		panic("oldSpelling: no flag --" + new)
	}
	fs.Var(&aliasValue{Value: f.Value, to: f, old: old, new: new, why: why, note: note}, old, "old spelling of --"+new)
	a := fs.Lookup(old)
	a.NoOptDefVal = f.NoOptDefVal
	a.Hidden = true
}

// isOldSpelling says whether a flag is such an alias.
func isOldSpelling(f *pflag.Flag) bool {
	_, ok := f.Value.(*aliasValue)
	return ok
}

// cpusValue is a list of CPUs: 0-3,8. It is checked when set; the
// command checks it against the CPUs it has.
type cpusValue struct{ s *string }

func (v cpusValue) String() string { return *v.s }
func (v cpusValue) Type() string   { return "cpus" }
func (v cpusValue) Set(s string) error {
	if s == "" || s == "-1" { // -1: the old --cpu's "not pinned"
		*v.s = ""
		return nil
	}
	if _, err := cpuset.ParseList(s); err != nil {
		return err
	}
	*v.s = s
	return nil
}

// sleepLengthWhy is the note of an old --duration that was the length of
// one sleep.
const sleepLengthWhy = ", the length of one sleep (--duration is how long a run lasts)"

// pinHelp is --cpus of a command that measures with one thread.
const pinHelp = "pin the measuring thread to this CPU, e.g. 2 (a list of one)"

// cpusFlag defines --cpus.
func cpusFlag(fs *pflag.FlagSet, p *string, usage string) {
	fs.Var(cpusValue{p}, "cpus", usage)
}

// pinnedCPU is the one CPU of --cpus for a command that measures with one
// thread: -1 when none was given.
func pinnedCPU(list string) (int, error) {
	if list == "" {
		return -1, nil
	}
	cpus, err := sched.ParseCPUList(list, sched.NumCPU())
	if err != nil {
		return 0, Usagef("invalid --cpus: %v", err)
	}
	if len(cpus) != 1 {
		return 0, Usagef("invalid --cpus %s: this command measures with one thread; give one CPU, e.g. --cpus %d", list, cpus[0])
	}
	return cpus[0], nil
}

// priorityFlags defines --priority and --rtprio, the same in every
// command with a measuring thread: --rtprio N alone asks for realtime
// priority N (as cyclictest -p N), and --rtprio 0 alone for normal.
func priorityFlags(fs *pflag.FlagSet, priority *string, rtprio *int, thread string) {
	fs.StringVar(priority, "priority", "normal", thread+": normal, high or realtime")
	fs.IntVar(rtprio, "rtprio", 80, "SCHED_FIFO priority (Linux, 1-99) of --priority realtime; given alone, realtime at this priority (0 = normal)")
}

// priorityOf reads --priority and --rtprio as priorityFlags defines them.
func priorityOf(changed func(string) bool, priority string, rtprio int) (sched.Priority, int, error) {
	if changed == nil {
		changed = func(string) bool { return false }
	}
	if changed("rtprio") && !changed("priority") {
		if rtprio == 0 {
			return sched.Normal, 0, nil
		}
		priority = sched.Realtime.String()
	}
	p, err := sched.ParsePriority(priority)
	if err != nil {
		return 0, 0, Usagef("invalid --priority: %v", err)
	}
	if p == sched.Realtime && (rtprio < sched.MinRTPrio || rtprio > sched.MaxRTPrio) {
		return 0, 0, Usagef("invalid --rtprio %d: accepted %d-%d", rtprio, sched.MinRTPrio, sched.MaxRTPrio)
	}
	if p != sched.Realtime {
		rtprio = 0 // asked for no realtime priority
	}
	return p, rtprio, nil
}

// negativeArgs annotates a command whose arguments may begin with '-'
// (knob set rt-throttling -1): pflag would read -1 as a flag.
const negativeArgs = "latlab-negative-args"

// separateNegativeArgs rewrites the command line of such a command so
// that its arguments that look like negative numbers reach it as
// arguments: the flags first, then "--", then every argument in its
// order. It leaves any other command line, and one that already has
// "--", as it is.
func separateNegativeArgs(root *cobra.Command, args []string) []string {
	c, _, err := root.Find(args)
	if err != nil || c.Annotations[negativeArgs] == "" || slices.Contains(args, "--") {
		return args
	}
	c.InheritedFlags() // merges the persistent flags into c.Flags()
	// The words that name the command come first.
	depth := 0
	for p := c; p != root && p != nil; p = p.Parent() {
		depth++
	}
	var flags, pos []string
	words := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case isNegativeNumber(a) && c.Flags().ShorthandLookup(a[1:2]) == nil:
			pos = append(pos, a)
		case strings.HasPrefix(a, "--") && len(a) > 2:
			flags = append(flags, a)
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := c.Flags().Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			if f := c.Flags().ShorthandLookup(a[len(a)-1:]); f != nil && len(a) == 2 && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		case words < depth:
			words++
			flags = append(flags, a) // a command word: before the flags is fine
		default:
			pos = append(pos, a)
		}
	}
	return append(append(flags, "--"), pos...)
}

// isNegativeNumber: -1, -0.5, -10us.
func isNegativeNumber(s string) bool {
	return len(s) > 1 && s[0] == '-' && (s[1] >= '0' && s[1] <= '9' || s[1] == '.')
}

// secondsValue is a --duration held as whole seconds, for the commands
// whose work counts in seconds (a trace window).
type secondsValue struct{ p *int }

func (v secondsValue) String() string { return (time.Duration(*v.p) * time.Second).String() }
func (v secondsValue) Type() string   { return "duration" }
func (v secondsValue) Set(s string) error {
	d, err := ParseDuration(s)
	if err != nil {
		return err
	}
	if d%time.Second != 0 {
		return fmt.Errorf("want whole seconds, e.g. 30s or 2m")
	}
	*v.p = int(d / time.Second)
	return nil
}

// secondsDurationFlag defines --duration held in seconds in p, with the
// old --seconds N as its hidden alias.
func secondsDurationFlag(fs *pflag.FlagSet, note io.Writer, p *int, def int, usage string) {
	*p = def
	fs.Var(secondsValue{p}, "duration", usage)
	oldSpelling(fs, note, "seconds", "duration", "")
	a := fs.Lookup("seconds").Value.(*aliasValue)
	a.conv = func(s string) string {
		if _, err := strconv.Atoi(s); err == nil {
			return s + "s"
		}
		return s
	}
}
