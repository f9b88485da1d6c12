package regfile

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/lazy"
	"github.com/latlab/latlab/internal/textdec"
)

// Reading the registry changes of a batch file: tweaks travel as .bat and
// .cmd scripts as often as .reg files, each change a reg.exe command
// (Microsoft, "reg add" and "reg delete"):
//
//	reg add KEY [/v NAME | /ve] [/t TYPE] [/s SEP] [/d DATA] [/f] [/reg:32|64]
//	reg delete KEY [/v NAME | /ve | /va] [/f] [/reg:32|64]
//
// A command may follow others on its line (&, &&, ||, |), behind a
// launcher (PowerRun.exe /SW:0 Reg.exe add ...), within cmd /c "..." (or
// cmd /k "...") and
// before a redirection (>nul 2>&1). Its words are split as reg.exe's C runtime splits them
// (CommandLineToArgvW's rules); a batch variable (%VAR%, %%i) in the key
// or the data is a value the script only knows when it runs, so that
// command is skipped with a note, as is a remote key (\\HOST\...).
// Every other line (netsh, bcdedit, powershell, echo...) is counted, not
// read.

const batchWant = "a batch file (.bat or .cmd) of reg add and reg delete commands"

// ReadBatch reads the reg add and reg delete commands of a batch file of
// at most MaxInput bytes into a File: each command a section of its own.
// File.Batch is set and File.Other counts the lines that hold no reg
// command.
func ReadBatch(r io.Reader) (*File, error) {
	// cmd.exe runs a line whatever control characters others hold: tweak
	// batch files ring the bell (echo ^G, 0x07) and draw arrows with
	// the OEM code page's 0x10 and 0x19 in echo and :: lines. Such a
	// file is read; one with a NUL byte and no reg command is refused
	// as not text, as it would have been, binary data being no batch
	// file.
	t, err := textdec.ReadText(r, maxInput, batchWant, textdec.Options{Controls: true})
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	lines := t.Lines
	b := &batchReader{f: &File{Encoding: t.Encoding, Batch: true}}
	for i, l := range lines {
		b.line, b.found = i+1, false
		if isComment(l) {
			b.f.Other++
			continue
		}
		cmds, piped, depth := splitBlocks(l, b.depth)
		b.depth = depth
		if err := b.commands(cmds, piped, "", 0, ""); err != nil {
			return nil, err
		}
		if !b.found && strings.TrimSpace(l) != "" {
			b.f.Other++
		}
	}
	f, skipped := b.f, b.skipped
	if t.Binary != nil && len(f.Sections) == 0 && len(f.Notes) == 0 {
		for i, l := range lines {
			if strings.IndexByte(l, 0) >= 0 {
				return nil, badinput.Errorf("line %d: not text (a NUL byte): expected %s", i+1, batchWant)
			}
		}
	}
	if skipped > 0 {
		f.Notes = append(f.Notes, fmt.Sprintf("%d more commands skipped", skipped))
	}
	return f, nil
}

// batchReader reads a batch file's lines into f.
type batchReader struct {
	f       *File
	skipped int  // notes past MaxNotes
	line    int  // the line read
	found   bool // it holds a reg command
	depth   int  // ( ) blocks open
}

func (b *batchReader) note(format string, a ...any) {
	if len(b.f.Notes) < MaxNotes {
		b.f.Notes = append(b.f.Notes, fmt.Sprintf("line %d: ", b.line)+fmt.Sprintf(format, a...))
	} else {
		b.skipped++
	}
}

// maxCmdDepth bounds cmd /c "..." within cmd /c "..." read.
const maxCmdDepth = 4

// commands reads the commands of a line (or of a cmd /c within one),
// piped[i] saying whether command i-1 pipes into command i; feed is the
// command piped into the first one from outside (cmd /c's input), or "";
// system names the launcher that runs them as SYSTEM (asSystem), or "".
func (b *batchReader) commands(cmds []string, piped []bool, feed string, depth int, system string) error {
	// reader is the first command that may have read the feed: cmd /c
	// "A & B" passes its input to A and B alike (cmd /?), and the first
	// to read takes the answer (what it leaves, an end of input, is no
	// answer)
	reader := ""
	for i, cmd := range cmds {
		if isComment(cmd) || isEcho(cmd) {
			continue // a reg command in a comment or an echo is not run
		}
		src := feed
		if piped[i] {
			src = cmds[i-1]
		}
		// the input piped into this line's cmd (feed) reaches the
		// first of its commands that reads it: once one may have read
		// it, a later one's answer is not known (reader says which)
		fromFeed := feed != "" && !piped[i]
		if fromFeed && reader != "" {
			src = ""
		}
		if inner, ok := cmdC(cmd); ok && depth < maxCmdDepth {
			ic, ip := splitCommands(inner)
			sys := system
			if sys == "" {
				sys = asSystem(argv(cmd))
			}
			if err := b.commands(ic, ip, src, depth+1, sys); err != nil {
				return err
			}
			if fromFeed && reader == "" {
				reader = cmd
			}
			continue
		}
		args := argv(cmd)
		at := regCommand(args)
		if at >= 0 && firstWord(strings.TrimLeft(cmd, " \t@"), "set") {
			// set VAR=reg add ... stores the command, which the
			// script runs later as %VAR% with words of its own
			b.found = true
			b.note("reg %s stored in a batch variable by set (%q): not read, the lines that run it being known only when the script runs",
				strings.ToLower(args[at]), textdec.Clip(strings.TrimSpace(cmd)))
			at = -1
		}
		if at < 0 {
			if fromFeed && reader == "" && !quiet(cmd) {
				reader = cmd // a program of its own may read its input
			}
			continue
		}
		b.found = true
		s, err := regArgs(args[at:], hasVariable)
		if err != nil {
			b.note("%v (%q): skipped", err, textdec.Clip(strings.TrimSpace(cmd)))
			continue
		}
		sys := system
		if sys == "" {
			sys = asSystem(args[:at])
		}
		if rest, ok := cutHKCU(s.Path); ok && sys != "" {
			// HKCU is the hive of the account the command runs as
			s.Path = `HKU\.DEFAULT` + rest
			s.PathNote = fmt.Sprintf("HKCU%s read as HKU\\.DEFAULT%s: run as SYSTEM (%s), reg writes HKCU into the LocalSystem account's own hive, not the signed-in user's",
				rest, rest, sys)
		}

		asks := s.Asks
		for _, v := range s.Values {
			asks = asks || v.Asks
		}
		reads := regReadsPipe(args, at)
		if fromFeed && asks && reads && reader != "" && answer(feed) != answerNone {
			b.note("reg %s (%q): the answer piped into cmd (%q) goes to the first of its commands that reads it, and the one before (%q) may: whether reg gets it depends on the machine, so its question is left open",
				strings.ToLower(args[at]), textdec.Clip(strings.TrimSpace(cmd)), textdec.Clip(strings.TrimSpace(feed)), textdec.Clip(strings.TrimSpace(reader)))
		}
		if fromFeed && reader == "" && (asks || !reads) {
			// reg reads its input only when it asks, which it does
			// only when what it changes exists: the answer is its
			// own then, and otherwise it writes without asking and
			// the answer stays for the next command. A launcher
			// (PowerRun.exe reg ...) is a program that may read it.
			reader = cmd
		}
		if src != "" && regReadsPipe(args, at) {
			switch answer(src) {
			case answerYes:
				answered(&s, true)
			case answerNo:
				if answered(&s, false) {
					b.note("reg %s answered no (%q): nothing is deleted", strings.ToLower(args[at]), textdec.Clip(strings.TrimSpace(src)))
					continue
				}
			}
		}
		f := b.f
		if f.Values+len(s.Values) > maxValues {
			return badinput.Errorf("line %d: more than %d values: expected a batch file of tweaks", b.line, maxValues)
		}
		s.Line = b.line
		for j := range s.Values {
			s.Values[j].Line = b.line
		}
		f.Values += len(s.Values)
		f.Sections = append(f.Sections, s)
	}
	return nil
}

// asSystem says which launcher, among the words before the command it
// starts (reg, or cmd /c), runs that command as the SYSTEM account, or
// "": NSudo with -U:S (System) or -U:T (TrustedInstaller, whose token is
// SYSTEM's too), in either case and with / for - (NSudo's Readme:
// "All NSudo command arguments is case-insensitive", "/U:T and -U:T are
// equivalent"), and PsExec with -s ("Run the remote process in the
// System account"). What runs as SYSTEM writes HKCU into LocalSystem's
// hive: "The registry key HKEY_CURRENT_USER is associated with the
// default user, not the current user" (Microsoft, "LocalSystem
// Account"), HKEY_USERS\.DEFAULT.
func asSystem(args []string) string {
	if len(args) == 0 {
		return ""
	}
	name := program(args[0])
	for _, w := range args[1:] {
		if p := program(w); p == "reg" || p == "cmd" {
			break // the command itself starts here
		}
		o := strings.ToLower(w)
		switch {
		case strings.HasPrefix(name, "nsudo") && (o == "-u:s" || o == "/u:s" || o == "-u:t" || o == "/u:t"):
			return textdec.Clip(args[0] + " " + w)
		case (name == "psexec" || name == "psexec64") && (o == "-s" || o == "/s"):
			return textdec.Clip(args[0] + " " + w)
		}
	}
	return ""
}

// cutHKCU returns what follows HKCU in a short path ("" for the root
// itself) and whether the path is under HKCU.
func cutHKCU(p string) (string, bool) {
	switch {
	case strings.EqualFold(p, "HKCU"):
		return "", true
	case len(p) > 5 && strings.EqualFold(p[:5], `HKCU\`):
		return p[4:], true
	}
	return "", false
}

// quiet says whether a command of cmd.exe's own reads nothing from its
// input: cd, set without /p, title and the like. Any other program may.
func quiet(cmd string) bool {
	t := strings.TrimLeft(cmd, " \t@")
	for _, w := range []string{"cd", "chdir", "pushd", "popd", "title", "cls", "color", "ver", "setlocal", "endlocal"} {
		if firstWord(t, w) {
			return true
		}
	}
	return firstWord(t, "set") && !strings.Contains(strings.ToLower(t), "/p")
}

// cmdC is the command line that cmd[.exe] [/switches] /c "..." or
// /k "..." runs, cmd standing first or behind a launcher (/k runs it and then stays open, reading commands from
// its input; cmd /? processes the rest of the line after either switch
// alike): cmd.exe strips the first quote and the last one of the line
// (cmd /?: unless exactly two quotes enclose the name of an executable
// file, with no /S and no special character between them, which a reg
// command is not). false for any other command, and for cmd /c without
// a quote, whose words argv reads as they stand.
func cmdC(cmd string) (string, bool) {
	rest := strings.TrimLeft(cmd, " \t@")
	word := func() string {
		rest = strings.TrimLeft(rest, " \t")
		end, quoted := 0, false
		for end < len(rest) && (quoted || rest[end] != ' ' && rest[end] != '\t') {
			if rest[end] == '"' {
				quoted = !quoted
			}
			end++
		}
		w := rest[:end]
		rest = rest[end:]
		return strings.ReplaceAll(w, `"`, "")
	}
	// cmd may stand behind a launcher, as reg may (NSudo -U:S
	// -ShowWindowMode:Hide -wait cmd /c "Reg add ...", in HoneCtrl.bat)
	for {
		w := word()
		if w == "" && strings.TrimSpace(rest) == "" {
			return "", false
		}
		if program(w) == "cmd" {
			break
		}
	}
	for {
		w := word()
		if strings.EqualFold(w, "/c") || strings.EqualFold(w, "/k") {
			break
		}
		if !strings.HasPrefix(w, "/") {
			return "", false
		}
	}
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, `"`) {
		return "", false
	}
	inner := rest[1:]
	if j := strings.LastIndexByte(inner, '"'); j >= 0 {
		inner = inner[:j] + inner[j+1:]
	}
	return inner, true
}

// isComment says whether a batch line (or command) is a comment: rem or
// a label-like ::, after any @ and white space.
func isComment(l string) bool {
	t := strings.TrimLeft(l, " \t@")
	return strings.HasPrefix(t, "::") || firstWord(t, "rem")
}

// isEcho says whether a command prints its words (echo reg add ...)
// instead of running them.
func isEcho(cmd string) bool { return firstWord(strings.TrimLeft(cmd, " \t@"), "echo") }

// firstWord says whether s starts with the word w (any case), followed by
// white space, a dot or nothing (echo. prints an empty line).
func firstWord(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	return len(s) == len(w) || strings.ContainsRune(" \t.:", rune(s[len(w)]))
}

// splitCommands cuts a line at the &, &&, || and | that chain commands,
// outside double quotes; a caret escapes the next character. piped[i]
// says whether a | pipes the output of command i-1 into command i.
func splitCommands(l string) (cmds []string, piped []bool) {
	cmds, piped, _ = splitBlocks(l, 0)
	return cmds, piped
}

// splitBlocks is splitCommands within cmd.exe's ( ) blocks, depth of
// them open when the line starts (a block goes on over lines): a ( that
// starts a command, or follows if's condition, else or a for's do, opens
// one, and an unquoted ) closes the innermost, each ending the command
// before it (if %x%==1 (reg add ...) else (reg add ...)). Elsewhere, a
// ) is a character of its word, as cmd.exe takes it outside a block. It
// returns the depth open at the line's end.
func splitBlocks(l string, depth int) (cmds []string, piped []bool, _ int) {
	quoted, start, pipe := false, 0, false
	for i := 0; i < len(l); i++ {
		switch l[i] {
		case '^':
			if !quoted {
				i++
			}
		case '"':
			quoted = !quoted
		case '(':
			if !quoted && opensBlock(l[start:i]) {
				if c := strings.TrimSpace(l[start:i]); c != "" {
					cmds, piped = append(cmds, l[start:i]), append(piped, pipe)
				}
				start, pipe = i+1, false
				depth++
			}
		case ')':
			if !quoted && depth > 0 {
				if c := strings.TrimSpace(l[start:i]); c != "" {
					cmds, piped = append(cmds, l[start:i]), append(piped, pipe)
				}
				start, pipe = i+1, false
				depth--
			}
		case '&', '|':
			if l[i] == '&' && i > 0 && (l[i-1] == '>' || l[i-1] == '<') {
				break // 2>&1 names a handle: no command follows
			}
			if !quoted {
				cmds, piped = append(cmds, l[start:i]), append(piped, pipe)
				pipe = l[i] == '|'
				if i+1 < len(l) && l[i+1] == l[i] {
					i++
					pipe = false
				}
				start = i + 1
			}
		}
	}
	return append(cmds, l[start:]), append(piped, pipe), depth
}

// opensBlock says whether a ( after before (the command's text up to it)
// opens a block: before is blank, if's condition, or ends with else or
// do.
func opensBlock(before string) bool {
	t := strings.TrimLeft(before, " \t@")
	if strings.TrimSpace(t) == "" || firstWord(t, "if") {
		return true
	}
	f := strings.Fields(t)
	last := strings.ToLower(f[len(f)-1])
	return last == "else" || last == "do"
}

// What reg answers itself with. Without /f, reg add asks before it
// overwrites a value that exists, and reg delete before it deletes
// (Microsoft, "reg add": /f "Adds the registry entry without prompting
// for confirmation"; "reg delete": /f "Deletes an existing registry
// subkey or entry without asking for confirmation"). Those pages do not
// give the question or the answers it takes. On Windows reg asks "Value
// NAME exists, overwrite(Yes/No)?" and reads the answer from its input,
// where a script pipes one: echo y | reg add ... overwrites, echo n |
// reg add ... leaves the value as it is (a new value is written without
// a question), and echo n | reg delete ... deletes nothing. Only y and
// yes, in any case, are read as yes, and n and no as no; any other
// answer, or input from elsewhere (a file, a command latlab does not
// read), leaves the question open, as reg without /f is read when
// nothing answers it.

type regAnswer int

const (
	answerNone regAnswer = iota
	answerYes
	answerNo
)

// echoCmd is cmd.exe's echo, on its own or run by cmd /c: what it
// prints is its text after the one blank that follows echo. Built on
// first use: most runs of latlab read no batch file.
var echoCmd = lazy.Regexp(`(?i)^[ \t]*@?(?:(?:"?[^ \t"]*\\)?cmd(?:\.exe)?"?(?:[ \t]+/[a-z]\b(?::[a-z]+)?)*?[ \t]+/[ck][ \t]+@?)?echo[ \t](.*)$`)

// answer is what the command cmd, piped into reg, answers it with.
func answer(cmd string) regAnswer { return answerAt(cmd, 0) }

func answerAt(cmd string, depth int) regAnswer {
	if inner, ok := cmdC(cmd); ok {
		// cmd /c "echo y": what the one command it runs prints
		cmds, _ := splitCommands(inner)
		if len(cmds) != 1 || depth >= maxCmdDepth {
			return answerNone
		}
		return answerAt(cmds[0], depth+1)
	}
	m := echoCmd().FindStringSubmatch(cmd)
	if m == nil {
		return answerNone
	}
	// echo prints the blanks before the | too: reg reads "y "
	switch strings.ToLower(strings.Trim(m[1], " \t")) {
	case "y", "yes":
		return answerYes
	case "n", "no":
		return answerNo
	}
	return answerNone
}

// regReadsPipe says whether reg, found at args[at-1], reads the input
// piped to the command args: it is the command, or cmd /c runs it (a
// launcher such as PowerRun starts it with input of its own).
func regReadsPipe(args []string, at int) bool {
	if at == 1 {
		return true
	}
	if program(args[0]) != "cmd" || !strings.EqualFold(args[at-2], "/c") && !strings.EqualFold(args[at-2], "/k") {
		return false
	}
	for _, a := range args[1 : at-2] {
		if !strings.HasPrefix(a, "/") {
			return false
		}
	}
	return true
}

// answered marks a reg command's section as answered: yes, and it
// changes what it would change with /f; no, and a reg add writes only a
// value that does not exist yet (NewOnly) while a reg delete deletes
// nothing (true: the section is dropped).
func answered(s *Section, yes bool) (drop bool) {
	switch {
	case yes:
		s.Asks = false
		for i := range s.Values {
			s.Values[i].Asks = false
		}
		return false
	case s.Delete && s.Asks:
		return true
	}
	for i := range s.Values {
		v := &s.Values[i]
		if !v.Asks {
			continue
		}
		if v.Delete {
			return true
		}
		v.Asks, v.NewOnly, v.AnsweredNo = false, true, true
	}
	return false
}

// argv splits a command into words as CommandLineToArgvW does: white
// space separates words outside double quotes; 2n backslashes before a
// quote are n backslashes and the quote opens or closes, 2n+1 are n and
// a literal quote; other backslashes are themselves. Redirections (>nul,
// 2>&1) end the words.
func argv(cmd string) []string {
	var words []string
	var b strings.Builder
	in, quoted := false, false
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == '\\':
			n := 0
			for i < len(cmd) && cmd[i] == '\\' {
				n++
				i++
			}
			if i < len(cmd) && cmd[i] == '"' {
				b.WriteString(strings.Repeat(`\`, n/2))
				if n%2 == 1 {
					b.WriteByte('"')
				} else {
					quoted = !quoted
				}
			} else {
				b.WriteString(strings.Repeat(`\`, n))
				i--
			}
			in = true
		case c == '^' && !quoted && i+1 < len(cmd): // cmd.exe's escape
			i++
			b.WriteByte(cmd[i])
			in = true
		case c == '"':
			quoted, in = !quoted, true
		case (c == ' ' || c == '\t') && !quoted:
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		case (c == '>' || c == '<') && !quoted:
			// a redirection, wherever it stands (>nul reg add ...,
			// reg add ... >nul 2>&1): cmd.exe takes it and its
			// target out of the command line
			if in && (b.String() == "1" || b.String() == "2") { // 2>nul
				b.Reset()
				in = false
			}
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
			for i+1 < len(cmd) && (cmd[i+1] == '>' || cmd[i+1] == '&') { // >>, >&1
				i++
			}
			for i+1 < len(cmd) && (cmd[i+1] == ' ' || cmd[i+1] == '\t') {
				i++
			}
			for q := false; i+1 < len(cmd) && (q || cmd[i+1] != ' ' && cmd[i+1] != '\t' && cmd[i+1] != '>' && cmd[i+1] != '<'); i++ {
				if cmd[i+1] == '"' {
					q = !q
				}
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// program is the program a command word names, as cmd.exe finds it:
// the file name without its directory (either slash) or .exe, in lower
// case (C:\Windows\System32\REG.EXE is reg).
func program(w string) string {
	return strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(w, `\`, "/"))), ".exe")
}

// regCommand finds reg.exe's verb in args: the index of the word after
// "reg" (any path, any case, with or without .exe) that is add or
// delete; -1 when there is none.
func regCommand(args []string) int {
	for i := 0; i+1 < len(args); i++ {
		if program(args[i]) != "reg" {
			continue
		}
		switch strings.ToLower(args[i+1]) {
		case "add", "delete":
			return i + 1
		}
	}
	return -1
}

// hasVariable says whether s holds what cmd.exe replaces when the line
// runs: %VAR%, %1, %~1, %%i, or !VAR! under delayed expansion.
func hasVariable(s string) bool {
	return strings.Contains(s, "%") || strings.Count(s, "!") >= 2
}

// regArgs reads "add KEY ..." or "delete KEY ..." into a section;
// hasVar says whether a word holds a variable of the script (cmd.exe's
// %VAR% in a batch file; PowerShell's are found before).
func regArgs(args []string, hasVar func(string) bool) (Section, error) {
	var s Section
	verb := strings.ToLower(args[0])
	if len(args) < 2 {
		return s, fmt.Errorf("reg %s without a key", verb)
	}
	key := strings.TrimRight(args[1], `\`)
	switch {
	case strings.HasPrefix(key, `\\`):
		return s, fmt.Errorf("a key on another machine")
	case hasVar(key):
		return s, fmt.Errorf("the key holds a batch variable, known only when the script runs")
	}
	short, ok := ShortRoot(key)
	if !ok {
		return s, fmt.Errorf("key %q is under no registry root (HKLM, HKCU, HKU, HKCR, HKCC)", textdec.Clip(key))
	}
	s.Path = short
	var v Value
	named, typ, data, haveData, sep, all, force := false, "REG_SZ", "", false, `\0`, false, false
	for i := 2; i < len(args); i++ {
		a := strings.ToLower(args[i])
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%s without its value", args[i])
			}
			i++
			return args[i], nil
		}
		var err error
		switch a {
		case "/v":
			v.Name, err = next()
			named = true
		case "/ve":
			v.Default, named = true, true
		case "/va":
			all = true
		case "/t":
			typ, err = next()
			typ = strings.ToUpper(typ)
		case "/d":
			data, err = next()
			haveData = true
		case "/s":
			sep, err = next()
		case "/f":
			force = true
		case "/reg:32", "/reg:64":
		default:
			return s, fmt.Errorf("%q is not an argument of reg %s", textdec.Clip(args[i]), verb)
		}
		if err != nil {
			return s, err
		}
	}
	if verb == "delete" {
		// Microsoft, "reg delete": "/f  Deletes an existing registry
		// subkey or entry without asking for confirmation." Without it
		// reg asks before deleting what exists, as reg add asks before
		// overwriting (below).
		switch {
		case all:
			return s, fmt.Errorf("reg delete /va deletes every value of the key, which a script does not list")
		case named:
			v.Delete, v.Asks = true, !force
			s.Values = []Value{v}
		default:
			s.Delete, s.Asks = true, !force
		}
		return s, nil
	}
	if !named {
		// reg add KEY alone creates the key: no value to explain
		return s, nil
	}
	if hasVar(data) {
		return s, fmt.Errorf("the data holds a batch variable, known only when the script runs")
	}
	if err := typedData(&v, typ, data, haveData, sep); err != nil {
		return s, err
	}
	// Microsoft, "reg add": "/f  Adds the registry entry without
	// prompting for confirmation." Without it reg asks before
	// overwriting a value that exists; "This version of reg doesn't ask
	// for confirmation when adding a subkey", nor a value that does not
	// exist yet. A batch file run unattended then waits for an answer,
	// and with its input redirected reads one (No, at the end of input).
	v.Asks = !force
	s.Values = []Value{v}
	return s, nil
}

// typedData stores data as reg add stores it for the type: a DWORD or
// QWORD from decimal or 0x hex, binary from hex digits, strings as
// UTF-16LE with their NUL, a multi-string split at sep.
func typedData(v *Value, typ, data string, haveData bool, sep string) error {
	switch typ {
	case "REG_SZ", "REG_EXPAND_SZ":
		v.Type, v.Data = 1, backend.UTF16Bytes(data)
		if typ == "REG_EXPAND_SZ" {
			v.Type = 2
		}
	case "REG_MULTI_SZ":
		if sep == "" {
			sep = `\0`
		}
		var b []byte
		for _, p := range strings.Split(data, sep) {
			b = append(b, backend.UTF16Bytes(p)...)
		}
		v.Type, v.Data = 7, append(b, 0, 0)
	case "REG_DWORD", "REG_DWORD_LITTLE_ENDIAN", "REG_QWORD":
		if !haveData {
			data = "0"
		}
		bits := 32
		if typ == "REG_QWORD" {
			bits = 64
		}
		// decimal, or hex after 0x: a leading 0 is no octal (Wine's reg
		// tests, which pass on Windows: /D 0123 writes 123, 00x123
		// fails)
		num, base := strings.TrimSpace(data), 10
		if len(num) > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X') {
			num, base = num[2:], 16
		}
		n, err := strconv.ParseUint(num, base, bits)
		if err != nil {
			return fmt.Errorf("%s data %q is not a %d-bit number (decimal, or hex with 0x)", typ, textdec.Clip(data), bits)
		}
		if bits == 32 {
			v.Type, v.Data = 4, binary.LittleEndian.AppendUint32(nil, uint32(n))
		} else {
			v.Type, v.Data = 11, binary.LittleEndian.AppendUint64(nil, n)
		}
	case "REG_BINARY", "REG_NONE":
		digits := data
		if len(digits)%2 == 1 {
			// an odd digit count takes a 0 before the first (Wine's
			// reg tests, which pass on Windows: /d DeAdBeEf0DD writes
			// 0d ea db ee f0 dd)
			digits = "0" + digits
		}
		b, err := hex.DecodeString(digits)
		if err != nil {
			return fmt.Errorf("%s data %q is not hex digits", typ, textdec.Clip(data))
		}
		v.Type, v.Data = 3, b
		if typ == "REG_NONE" {
			v.Type = 0
		}
	default:
		return fmt.Errorf("type %q is none of REG_SZ, REG_EXPAND_SZ, REG_MULTI_SZ, REG_DWORD, REG_QWORD, REG_BINARY, REG_NONE", textdec.Clip(typ))
	}
	return nil
}
