package regfile

import (
	"fmt"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
)

// PowerShell parses a whole script before it runs any of it: a script
// with a syntax error runs nothing, not even the commands above the
// error. psSyntax finds the errors a tokenizer sees, read from
// PowerShell's own (PowerShell/PowerShell at 929903692e55,
// src/System.Management.Automation/engine/parser/tokenizer.cs, MIT):
//
//   - a string without its closing quote (ScanStringLiteral,
//     ScanStringExpandable: TerminatorExpectedAtEndOfString); '' and ""
//     are a quote within, a backtick escapes the next character in "..."
//     only, and the typographic quotes count as theirs;
//   - a here-string without its end: @' and @" must end their line
//     (ScanAfterHereStringHeader: UnexpectedCharactersAfterHereStringHeader),
//     and the closing '@ or "@ must start a line
//     (ScanPossibleHereStringFooter; one after blanks is
//     WhitespaceBeforeHereStringFooter);
//   - a block comment <# without its #> (ScanBlockComment:
//     MissingTerminatorMultiLineComment);
//   - (), {} and [] that do not pair, outside strings and comments, and
//     within the $(...) of a string, which the parser refuses
//     ("Missing closing '}'", "Unexpected token ')'").
//
// Which of these a character starts depends on where it stands, as in
// the tokenizer: # and <# start a comment only where a token starts (in
// a command's bare word, a#b and a<#b are text: ScanGenericToken reads
// on to a blank or one of &(),;{}|); a [ where a token starts opens a
// bracket, and a ] closes one when a [ is open. Within a word a [ is an
// index ($a[0]) or text (an argument C:\a[1]), which only the parser
// tells apart: it is paired with a ] when one follows and otherwise let
// be, as is a ] no [ opened, so where the two readings differ the check
// takes the one that finds no error. A backtick escapes the next
// character (a line end included, and PowerShell 7's `u{...} whole);
// --% makes the rest of its line verbatim (GetVerbatimCommandArgument).

// maxSyntaxDepth bounds the brackets and strings the check keeps open:
// deeper nesting is not judged (PowerShell's parser gives up at a depth
// its stack sets, ScriptTooComplicated).
const maxSyntaxDepth = 1 << 16

// psFrame is an open bracket or string: what opened it, and its line.
type psFrame struct {
	// ( { [; 's' a [ within a word ($a[0], or a bare word's text: not
	// reported); '"' a string; 'h' a here-string @"
	open byte
	line int
	word bool // a string within a bare word ("a"# is a comment, a"b"# text)
}

// syntaxError is a script PowerShell would refuse to run: the line of
// the error and what it is.
type syntaxError struct {
	line int
	what string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("line %d: %s: a syntax error, so PowerShell would run none of the script (it parses all of it first); expected a script PowerShell can parse", e.line, e.what)
}

// psSyntax checks the text of a script (lines joined by \n) for the
// syntax errors a tokenizer sees; nil when it finds none.
func psSyntax(s string) error {
	var st []psFrame
	line := 1
	word := false // within a bare word, where # [ ] are text
	i := 0
	fail := func(l int, format string, a ...any) error {
		return badinput.Wrap(&syntaxError{line: l, what: fmt.Sprintf(format, a...)})
	}
	push := func(open byte) bool {
		st = append(st, psFrame{open: open, line: line})
		return len(st) <= maxSyntaxDepth
	}
	for i < len(s) {
		// in a double-quoted string or here-string
		if n := len(st); n > 0 && (st[n-1].open == '"' || st[n-1].open == 'h') {
			f := st[n-1]
			c := s[i]
			switch {
			case f.open == '"' && isDoubleQuote(s[i:]):
				q := quoteLen(s[i:])
				if i+q < len(s) && isDoubleQuote(s[i+q:]) { // "" is a quote
					i += q + quoteLen(s[i+q:])
					continue
				}
				i += q
				st = st[:n-1]
				word = f.word
				continue
			case c == '`':
				if i+1 < len(s) && s[i+1] == '\n' {
					line++ // an escaped line end: no here-string ends there
				}
				i += escapeLen(s, i)
				continue
			case c == '$' && i+1 < len(s) && s[i+1] == '(':
				i += 2
				if !push('(') {
					return nil
				}
				word = false
				continue
			case c == '$' && i+1 < len(s) && s[i+1] == '{':
				end, ok := bracedVariable(s, i+1)
				if !ok {
					return fail(line, "a variable ${ without its }")
				}
				line += strings.Count(s[i:end], "\n")
				i = end
				continue
			case c == '\n':
				line++
				i++
				if f.open == 'h' {
					if at, ok := hereFooter(s, i, isDoubleQuote); ok {
						i = at
						st = st[:n-1]
						word = false
					}
				}
				continue
			}
			i++
			continue
		}
		c := s[i]
		switch {
		case c == '\n':
			line++
			i++
			word = false
		case c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r':
			i++
			word = false
		case strings.HasPrefix(s[i:], "\u00a0"):
			i += len("\u00a0")
			word = false
		case c == '`':
			if i+1 < len(s) && s[i+1] == '\n' {
				line++
				word = false // a continued line: the word ends
			} else {
				word = true
			}
			i += escapeLen(s, i)
		case !word && c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case !word && c == '<' && i+1 < len(s) && s[i+1] == '#':
			end := strings.Index(s[i+2:], "#>")
			if end < 0 {
				return fail(line, "a block comment <# without its #>")
			}
			line += strings.Count(s[i:i+2+end], "\n")
			i += 2 + end + 2
		case isSingleQuote(s[i:]):
			start := line
			j, ok := singleQuoted(s, i)
			if !ok {
				return fail(start, "a string ' without its closing quote")
			}
			line += strings.Count(s[i:j], "\n")
			i = j // within a word, the word goes on; else a token ends
		case isDoubleQuote(s[i:]):
			if !push('"') {
				return nil
			}
			st[len(st)-1].word = word
			i += quoteLen(s[i:])
		case !word && c == '@' && i+1 < len(s) && (isSingleQuote(s[i+1:]) || isDoubleQuote(s[i+1:])):
			start := line
			dq := isDoubleQuote(s[i+1:])
			mark := "@'"
			if dq {
				mark = `@"`
			}
			j := i + 1 + quoteLen(s[i+1:])
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j >= len(s) {
				return fail(start, "a here-string %s without its end", mark)
			}
			if s[j] != '\n' {
				return fail(start, "a here-string %s with text after it on its line (PowerShell takes %s only at the end of a line)", mark, mark)
			}
			line++
			j++
			if dq {
				i = j
				if at, ok := hereFooter(s, i, isDoubleQuote); ok {
					i = at
					continue
				}
				if !push('h') {
					return nil
				}
				st[len(st)-1].line = start
				continue
			}
			// a literal here-string: to a line that starts with '@
			at, ok := hereFooter(s, j, isSingleQuote)
			for !ok {
				nl := strings.IndexByte(s[j:], '\n')
				if nl < 0 {
					return fail(start, "a here-string @' without a line that starts with '@ to end it%s", indented(s[i:], "'@"))
				}
				j += nl + 1
				at, ok = hereFooter(s, j, isSingleQuote)
			}
			line += strings.Count(s[i:at], "\n") - 1
			i = at
		case c == '$' && i+1 < len(s) && s[i+1] == '(':
			if !push('(') {
				return nil
			}
			i += 2
			word = false
		case c == '$' && i+1 < len(s) && s[i+1] == '{':
			end, ok := bracedVariable(s, i+1)
			if !ok {
				return fail(line, "a variable ${ without its }")
			}
			line += strings.Count(s[i:end], "\n")
			i = end
			word = true
		case c == '(' || c == '{' || c == '[':
			open := c
			if c == '[' && word {
				open = 's' // $a[0], or text: closed by a ], else dropped
			}
			if !push(open) {
				return nil
			}
			i++
			word = false
		case c == ']':
			// after a type ([int]) a token starts; after an index or
			// text (a[1]), or a ] no [ opened, the word goes on
			word = true
			if n := len(st); n > 0 && (st[n-1].open == '[' || st[n-1].open == 's') {
				word = st[n-1].open == 's'
				st = st[:n-1]
			}
			i++
		case c == ')' || c == '}':
			want := byte('(')
			if c == '}' {
				want = '{'
			}
			for len(st) > 0 && st[len(st)-1].open == 's' {
				st = st[:len(st)-1]
			}
			switch n := len(st); {
			case n == 0:
				return fail(line, "a %c that closes nothing", c)
			case st[n-1].open != want:
				f := st[n-1]
				return fail(line, "a %c where the %c of line %d is still open", c, f.open, f.line)
			}
			st = st[:len(st)-1]
			i++
			word = false
		case c == ';' || c == ',' || c == '|' || c == '&' || c == '=':
			// = ends no bare word of a command (a=b is one), but an
			// assignment's right side starts a token: $a=@' is a
			// here-string, and reading it so finds no error
			i++
			word = false
		case !word && strings.HasPrefix(s[i:], "--%") && (i+3 == len(s) || strings.IndexByte(" \t\r\n", s[i+3]) >= 0):
			i = verbatimEnd(s, i+3)
		default:
			i++
			word = true
		}
	}
	// what is still open at the end: the outermost is named, where the
	// reader looks first
	for _, f := range st {
		switch f.open {
		case '"':
			return fail(f.line, `a string " without its closing quote`)
		case 'h':
			return fail(f.line, `a here-string @" without a line that starts with "@ to end it%s`, indentedFrom(s, f.line, `"@`))
		case 's':
			continue // text in a bare word ($a[ is an error the parser finds)
		default:
			return fail(f.line, "a %c that is never closed", f.open)
		}
	}
	return nil
}

// escapeLen is the length of the backtick escape at i: `u{2195} (one
// to six hex digits: PowerShell 7's Backtick, ScanUnicodeEscape) or the
// backtick and the byte after it.
func escapeLen(s string, i int) int {
	if strings.HasPrefix(s[i:], "`u{") {
		for j := i + 3; j < len(s) && j <= i+3+6; j++ {
			switch c := s[j]; {
			case c == '}' && j > i+3:
				return j + 1 - i
			case c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
				continue
			}
			break
		}
	}
	return 2
}

// singleQuoted is the end of the '...' string at i (” is a quote); false
// when it has none.
func singleQuoted(s string, i int) (int, bool) {
	i += quoteLen(s[i:])
	for i < len(s) {
		if isSingleQuote(s[i:]) {
			n := quoteLen(s[i:])
			if i+n < len(s) && isSingleQuote(s[i+n:]) {
				i += n + quoteLen(s[i+n:])
				continue
			}
			return i + n, true
		}
		i++
	}
	return i, false
}

// bracedVariable is the end of ${name} whose { is at i: the name runs to
// the first } not escaped by a backtick.
func bracedVariable(s string, i int) (int, bool) {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '`':
			j += escapeLen(s, j) - 1
		case '}':
			return j + 1, true
		}
	}
	return len(s), false
}

// hereFooter says whether the line starting at i ends a here-string: a
// quote of the kind and @, in its first column; at is past them.
func hereFooter(s string, i int, quote func(string) bool) (at int, ok bool) {
	if i >= len(s) || !quote(s[i:]) {
		return i, false
	}
	q := quoteLen(s[i:])
	if i+q < len(s) && s[i+q] == '@' {
		return i + q + 1, true
	}
	return i, false
}

// indented notes a closing mark after blanks in text, which PowerShell
// does not take for the end.
func indented(text, mark string) string {
	for _, l := range strings.Split(text, "\n")[1:] {
		if t := strings.TrimLeft(l, " \t"); t != l && strings.HasPrefix(t, mark) {
			return fmt.Sprintf(" (a %s after blanks does not end it)", mark)
		}
	}
	return ""
}

// indentedFrom is indented for the text from line n on.
func indentedFrom(s string, n int, mark string) string {
	i := 0
	for k := 1; k < n && i >= 0; k++ {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return ""
		}
		i += j + 1
	}
	return indented(s[i:], mark)
}

// verbatimEnd is where the verbatim argument after --% ends: at the line
// end, or at | or && outside double quotes.
func verbatimEnd(s string, i int) int {
	quoted := false
	for ; i < len(s); i++ {
		switch {
		case s[i] == '\n':
			return i
		case isDoubleQuote(s[i:]):
			quoted = !quoted
			i += quoteLen(s[i:]) - 1
		case !quoted && (s[i] == '|' || s[i] == '&' && i+1 < len(s) && s[i+1] == '&'):
			return i
		}
	}
	return i
}
