package knob

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Settings files such as /etc/default/grub are shell scripts that a
// program sources (grub-mkconfig runs ". /etc/default/grub", then each
// /etc/default/grub.d/*.cfg on Debian and Ubuntu). latlab reads them
// without running them: it follows what /bin/sh does with plain
// assignments (quotes, backslashes, comments, line continuations,
// $NAME and ${NAME}, "export", the last assignment winning) and, for
// anything else, says why it cannot know the value rather than guess.

// shellVar is a variable as the files sourced so far leave it.
type shellVar struct {
	Value string
	Set   bool
	// File, Line and End are where it was last assigned (or unset):
	// the lines the command takes, with its continuation lines. Alone is
	// true when that command is the only thing on them (one assignment,
	// perhaps exported), so they can be replaced whole.
	File      string
	Line, End int
	Alone     bool
	// Plain is true when the assignment is NAME=value or NAME="value"
	// alone on its line, with no expansion, backslash or comment after
	// it: a line systemd's EnvironmentFile= parser reads as sh does (it
	// takes a comment after a quoted value as part of the value).
	Plain bool
	// Prev is the value this assignment started from when it begins
	// with the variable itself (NAME="$NAME more", as drop-ins append),
	// and Suffix what it added; nil otherwise.
	Prev   *shellVar
	Suffix string
	// Unknown says why the value cannot be known without running the
	// file (a command substitution, an expansion latlab does not
	// follow); "" when Value is what sh would hold.
	Unknown string
}

// shellState is what sourcing settings files, in order, leaves.
type shellState struct {
	vars map[string]shellVar
	// Blocked is the first command found that is not an assignment
	// (if, case, a function, a command, a redirection), which could set
	// anything: where it is and what it is. "" when there was none.
	Blocked string
	// own are the variables the files are for: unset, they are empty.
	// Any other variable the files expand without setting it first
	// would come from the program that sources them (grub-mkconfig sets
	// GRUB_DEVICE, GRUB_FS and more before it sources /etc/default/grub)
	// or its environment, which latlab cannot know.
	own map[string]bool
}

func newShellState(own ...string) *shellState {
	s := &shellState{vars: map[string]shellVar{}, own: map[string]bool{}}
	for _, n := range own {
		s.own[n] = true
	}
	return s
}

// get is a variable after the files sourced so far. A command that is
// not an assignment makes every variable unknown.
func (s *shellState) get(name string) shellVar {
	v := s.vars[name]
	if s.Blocked != "" && v.Unknown == "" {
		v.Value, v.Unknown = "", s.Blocked
	}
	return v
}

// maxShellValue bounds a value latlab carries: longer than any kernel
// command line (COMMAND_LINE_SIZE is 2048 on x86, 4096 on arm64).
const maxShellValue = 8192

// source reads one file's text as ". file" would.
func (s *shellState) source(file, text string) {
	l := shellLexer{src: text, line: 1, state: s}
	for {
		cmd, more := l.command()
		if l.err != "" {
			s.block(file, cmd.line, l.err)
			return
		}
		s.run(file, cmd)
		if !more {
			return
		}
	}
}

func (s *shellState) block(file string, line int, why string) {
	if s.Blocked == "" {
		s.Blocked = fmt.Sprintf("%s line %d %s", file, line, why)
	}
}

// run applies one simple command: assignments only, "export" or
// "readonly" of assignments and names, or "unset NAME...". Anything else
// blocks.
func (s *shellState) run(file string, c shellCommand) {
	if c.complex != "" {
		s.block(file, c.line, c.complex)
		return
	}
	words := c.words
	if len(words) == 0 {
		return
	}
	if w := words[0]; w.name == "" && w.plain {
		switch w.value {
		case "export", "readonly":
			var assigns []shToken
			for _, w := range words[1:] {
				if w.name == "" && !(w.plain && isShellName(w.value)) {
					s.block(file, c.line, "runs "+c.words[0].value+" with "+quoteWord(w.value)+", which latlab does not follow")
					return
				}
				if w.name != "" {
					assigns = append(assigns, w)
				}
			}
			s.assign(file, c, assigns, len(words) == 2)
			if len(assigns) == 1 {
				v := s.vars[assigns[0].name]
				v.Plain = false
				s.vars[assigns[0].name] = v
			}
			return
		case "unset":
			for _, w := range words[1:] {
				if !w.plain || !isShellName(w.value) {
					s.block(file, c.line, "runs unset with "+quoteWord(w.value)+", which latlab does not follow")
					return
				}
			}
			for _, w := range words[1:] {
				s.vars[w.value] = shellVar{File: file, Line: c.line, End: c.end, Alone: len(words) == 2 && !c.shared}
			}
			return
		}
	}
	for i, w := range words {
		if w.name == "" {
			if i == 0 && w.plain && len(words) > 1 && strings.HasPrefix(words[1].value, "=") && isShellName(w.value) {
				s.block(file, c.line, "has "+w.value+" followed by a space and =: sh takes it for a command, not an assignment (write "+w.value+"=\"...\" with no spaces)")
				return
			}
			s.block(file, c.line, "runs a command ("+quoteWord(w.value)+"), which latlab does not run")
			return
		}
	}
	s.assign(file, c, words, len(words) == 1)
}

// assign sets the variables of assignment words; one: they are the
// command's only words.
func (s *shellState) assign(file string, c shellCommand, words []shToken, one bool) {
	line := c.line
	for _, w := range words {
		v := shellVar{Value: w.value, Set: true, File: file, Line: line, End: c.end, Alone: one && !c.shared}
		v.Plain = v.Alone && !c.comment && !w.escaped && c.end == c.line
		if w.self >= 0 && w.unknown == "" {
			prev := s.get(w.name)
			v.Prev, v.Suffix = &prev, w.value[w.self:]
		}
		why := w.unknown
		if why == "" && hasControl(v.Value) {
			why = "sets " + w.name + " to a value with control characters"
		}
		if why == "" && len(v.Value) > maxShellValue {
			why = fmt.Sprintf("sets %s to %d bytes, longer than any kernel command line", w.name, len(v.Value))
		}
		if why != "" {
			v.Value, v.Unknown = "", fmt.Sprintf("%s line %d %s", file, line, why)
		}
		s.vars[w.name] = v
	}
}

func quoteWord(s string) string {
	s = shortShell(s)
	if hasControl(s) {
		return "a word with control characters"
	}
	return "\"" + s + "\""
}

func isShellName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// shToken is one word of a command after expansion.
type shToken struct {
	// name is set when the word is an assignment NAME=value; value is
	// then the value.
	name  string
	value string
	// plain: no quoting or expansion at all (a keyword or command name
	// as written).
	plain bool
	// unknown says why the value cannot be known.
	unknown string
	// escaped: a backslash or an expansion made the value.
	escaped bool
	// self is the length of the assigned variable's own value that
	// begins the value ("$NAME ..."), -1 when it does not begin so.
	self int
}

type shellCommand struct {
	// line and end are its first and last lines; shared is true when
	// another command is on them too (after or before a ";").
	line, end int
	shared    bool
	comment   bool // a comment follows the command on its last line
	words     []shToken
	// complex says why the command is more than a simple command of
	// words (an operator, a redirection, a compound command).
	complex string
}

type shellLexer struct {
	src   string
	pos   int
	line  int
	state *shellState
	err   string
	// semiLine is the line of the last ";" that ended a command.
	semiLine int
	// word0 is the word being read.
	word0 *shToken
}

func (l *shellLexer) peek(off int) byte {
	if l.pos+off < len(l.src) {
		return l.src[l.pos+off]
	}
	return 0
}

// skipContinuations drops backslash-newline pairs at the cursor: sh
// removes them before it reads words.
func (l *shellLexer) skipContinuations() {
	for l.peek(0) == '\\' && l.peek(1) == '\n' {
		l.pos += 2
		l.line++
	}
}

// command reads up to the end of the next simple command (newline or
// ";"); more is false at the end of the text.
func (l *shellLexer) command() (c shellCommand, more bool) {
	c.line = l.line
	started := false
	for {
		l.skipContinuations()
		ch := l.peek(0)
		switch {
		case l.pos >= len(l.src):
			c.end = l.line
			c.shared = c.shared || started && l.semiLine == c.line
			return c, false
		case ch == ' ' || ch == '\t':
			l.pos++
		case ch == '\n':
			if started {
				c.end = l.line
				c.shared = c.shared || l.semiLine == c.line
				l.pos++
				l.line++
				return c, true
			}
			l.pos++
			l.line++
			c.line = l.line
		case ch == '#':
			c.comment = c.comment || started
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case ch == ';':
			l.pos++
			if l.peek(0) == ';' {
				c.complex = "has ;;, which latlab does not follow"
			}
			c.end, c.shared = l.line, true
			l.semiLine = l.line
			return c, true
		case strings.IndexByte("&|<>()", ch) >= 0:
			if c.complex == "" {
				c.complex = "has " + string(ch) + " (a pipe, list, redirection or subshell), which latlab does not follow"
			}
			l.pos++
		default:
			if !started {
				c.line = l.line
			}
			started = true
			w := l.word(len(c.words) == 0 || allAssignments(c.words) || isExport(c.words[0]))
			if l.err != "" {
				return c, false
			}
			if len(c.words) == 0 && w.plain && isShellKeyword(w.value) {
				c.complex = "has " + w.value + ", which latlab does not follow"
			}
			c.words = append(c.words, w)
		}
	}
}

func isExport(w shToken) bool {
	return w.name == "" && w.plain && (w.value == "export" || w.value == "readonly")
}

func allAssignments(ws []shToken) bool {
	for _, w := range ws {
		if w.name == "" {
			return false
		}
	}
	return true
}

func isShellKeyword(s string) bool {
	switch s {
	case "if", "then", "else", "elif", "fi", "case", "esac", "for", "while", "until", "do", "done", "{", "}", "!", "function", "[[", "]]":
		return true
	}
	return false
}

// word reads one word. assign: the word may be an assignment (it comes
// before any command name).
func (l *shellLexer) word(assign bool) shToken {
	var w shToken
	var b strings.Builder
	w.plain, w.self = true, -1
	startLine := l.line
	// An assignment is a name, unquoted, then "=".
	if assign {
		i := l.pos
		for i < len(l.src) && (l.src[i] == '_' || l.src[i] >= 'a' && l.src[i] <= 'z' || l.src[i] >= 'A' && l.src[i] <= 'Z' || l.src[i] >= '0' && l.src[i] <= '9') {
			i++
		}
		if i > l.pos && i < len(l.src) && l.src[i] == '=' && isShellName(l.src[l.pos:i]) {
			w.name = l.src[l.pos:i]
			l.pos = i + 1
			w.plain = false
		}
	}
	l.word0 = &w
	unknown := func(why string) {
		if w.unknown == "" {
			w.unknown = why
		}
	}
	for {
		l.skipContinuations()
		if l.pos >= len(l.src) {
			break
		}
		ch := l.src[l.pos]
		if ch == ' ' || ch == '\t' || ch == '\n' || strings.IndexByte(";&|<>()", ch) >= 0 {
			break
		}
		switch ch {
		case '\'':
			w.plain = false
			end := strings.IndexByte(l.src[l.pos+1:], '\'')
			if end < 0 {
				l.err = fmt.Sprintf("has a ' that is never closed (sh stops with a syntax error; it opened on line %d)", startLine)
				return w
			}
			s := l.src[l.pos+1 : l.pos+1+end]
			b.WriteString(s)
			l.line += strings.Count(s, "\n")
			l.pos += end + 2
		case '"':
			w.plain = false
			l.pos++
			closed := false
			for l.pos < len(l.src) && !closed {
				c := l.src[l.pos]
				switch c {
				case '"':
					closed = true
					l.pos++
				case '\\':
					w.escaped = true
					n := l.peek(1)
					switch n {
					case '\n':
						l.pos += 2
						l.line++
					case '$', '`', '"', '\\':
						b.WriteByte(n)
						l.pos += 2
					default:
						b.WriteByte('\\')
						l.pos++
					}
				case '$':
					w.escaped = true
					l.dollar(&b, unknown)
				case '`':
					l.backquote(unknown)
				default:
					if c == '\n' {
						l.line++
					}
					b.WriteByte(c)
					l.pos++
				}
				if l.err != "" {
					return w
				}
			}
			if !closed {
				l.err = fmt.Sprintf("has a \" that is never closed (sh stops with a syntax error; it opened on line %d)", startLine)
				return w
			}
		case '\\':
			w.plain, w.escaped = false, true
			if l.pos+1 < len(l.src) {
				b.WriteByte(l.src[l.pos+1])
				l.pos += 2
			} else {
				l.pos++
			}
		case '$':
			w.plain, w.escaped = false, true
			l.dollar(&b, unknown)
		case '`':
			w.plain = false
			l.backquote(unknown)
		default:
			if ch == '~' && b.Len() == 0 {
				unknown("starts with ~, which sh expands to a home directory")
			}
			b.WriteByte(ch)
			l.pos++
		}
		if l.err != "" {
			return w
		}
	}
	w.value = b.String()
	if w.unknown != "" {
		w.value = ""
	}
	return w
}

// dollar expands $NAME and ${NAME} from the variables set so far; any
// other expansion (a command, arithmetic, a parameter operator, a
// positional or special parameter) makes the word unknown.
func (l *shellLexer) dollar(b *strings.Builder, unknown func(string)) {
	l.pos++ // the $
	c := l.peek(0)
	switch {
	case c == '(':
		unknown("runs a command ($(...)) for its value")
		l.skipBalanced('(', ')')
	case c == '{':
		end := closingBrace(l.src[l.pos:])
		if end < 0 {
			l.err = "has a ${ that is never closed (sh stops with a syntax error)"
			return
		}
		inner := l.src[l.pos+1 : l.pos+end]
		l.line += strings.Count(inner, "\n")
		l.pos += end + 1
		if !isShellName(inner) {
			unknown("expands ${" + shortShell(inner) + "}, which latlab does not follow")
			return
		}
		l.expand(b, inner, unknown)
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		i := l.pos
		for i < len(l.src) && (l.src[i] == '_' || l.src[i] >= 'a' && l.src[i] <= 'z' || l.src[i] >= 'A' && l.src[i] <= 'Z' || l.src[i] >= '0' && l.src[i] <= '9') {
			i++
		}
		name := l.src[l.pos:i]
		l.pos = i
		l.expand(b, name, unknown)
	case c >= '0' && c <= '9' || strings.IndexByte("@*#?-$!", c) >= 0 && c != 0:
		unknown("expands $" + string(c) + ", a parameter of the script that sources it")
		l.pos++
	default:
		b.WriteByte('$') // a lone $ is itself
	}
}

// closingBrace is the index in s, which starts with "{", of the "}"
// that closes it, past nested ${...} and quoted text; -1 when none does.
func closingBrace(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return -1
			}
			i += end + 1
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			if i >= len(s) {
				return -1
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// shortShell cuts s to 40 bytes, at a character boundary, for a message.
func shortShell(s string) string {
	if len(s) <= 40 {
		return s
	}
	s = s[:40]
	for !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s + "..."
}

func (l *shellLexer) expand(b *strings.Builder, name string, unknown func(string)) {
	v := l.state.get(name)
	if v.Unknown != "" {
		unknown("expands $" + name + ", whose value latlab cannot know (" + v.Unknown + ")")
		return
	}
	if _, seen := l.state.vars[name]; !seen && !l.state.own[name] {
		unknown("expands $" + name + ", which these files do not set: its value would come from the program that sources them")
		return
	}
	if w := l.word0; w != nil && w.name == name && b.Len() == 0 && w.self < 0 {
		w.self = len(v.Value)
	}
	b.WriteString(v.Value)
}

// backquote skips a `command`: its output is the value, which latlab
// does not run.
func (l *shellLexer) backquote(unknown func(string)) {
	unknown("runs a command (`...`) for its value")
	l.pos++
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case '\\':
			l.pos += 2
			continue
		case '`':
			l.pos++
			return
		case '\n':
			l.line++
		}
		l.pos++
	}
	l.err = "has a ` that is never closed (sh stops with a syntax error)"
}

// skipBalanced skips from an open bracket to its matching close,
// roughly (quotes inside are skipped whole).
func (l *shellLexer) skipBalanced(open, close byte) {
	depth := 0
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch c {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				l.pos++
				return
			}
		case '\'', '"':
			end := strings.IndexByte(l.src[l.pos+1:], c)
			if end < 0 {
				l.pos = len(l.src)
				break
			}
			l.line += strings.Count(l.src[l.pos+1:l.pos+1+end], "\n")
			l.pos += end + 1
		case '\\':
			l.pos++
		case '\n':
			l.line++
		}
		l.pos++
	}
	l.err = "has a $( that is never closed (sh stops with a syntax error)"
}

// shellQuote writes v as a double-quoted sh word that reads back as v.
func shellQuote(v string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
