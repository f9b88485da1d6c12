package regfile

import (
	"math"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/textdec"
)

// Scanning a PowerShell script into commands, as PowerShell's tokenizer
// splits them in argument mode (about_Parsing, about_Quoting_Rules,
// about_Special_Characters): words separated by blanks; '...' verbatim
// with '' for a quote; "..." with backtick escapes and $ expanding a
// variable or $(...); here-strings @'...'@ and @"..."@; a backtick before
// a line end continues the command; # and <# #> comments; ;, |, &&, ||,
// { and } between commands; redirections (>, 2>&1, *>$null) dropped.
// Whatever only the running script can evaluate is kept as a value with
// dyn saying what it is, never guessed at.

// --- scanning ---

type psScanner struct {
	s    string
	i    int
	line int
	// unclosed: a string ran to the end of the script without its
	// closing quote, a parse error for which PowerShell runs nothing
	unclosed bool
	// brace is the { or } that ended the last statement scanned (0:
	// none), and braceOp the operator before a { that opened a
	// statement: & (a call) or . (dot-sourcing); 0 for none
	brace, braceOp byte
}

// psTok is a word of a command: a parameter (-Name, with its value when
// written -Name:value), a value, or a comma.
type psTok struct {
	param    string
	colonVal *psValue
	val      psValue
	comma    bool
}

type psStmt struct {
	line    int
	raw     string
	toks    []psTok
	pipeIn  bool // the command's input is piped from the one before
	pipeOut bool // its output is piped to the next
	tooLong bool // longer than maxStatement: its words are not kept
	op      byte // & (the call operator) or . (dot-sourcing) before it; 0 for none
	param   bool // a param(...) block
}

func (sc *psScanner) peek(k int) byte {
	if sc.i+k < len(sc.s) {
		return sc.s[sc.i+k]
	}
	return 0
}

func (sc *psScanner) adv() {
	if sc.s[sc.i] == '\n' {
		sc.line++
	}
	sc.i++
}

// space skips blanks, backtick-continued line ends and <# #> comments;
// not a line end.
func (sc *psScanner) space() {
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case c == ' ' || c == '\t' || c == '\f' || c == '\v':
			sc.i++
		case c == '`' && sc.peek(1) == '\n':
			sc.adv()
			sc.adv()
		case c == '<' && sc.peek(1) == '#':
			end := strings.Index(sc.s[sc.i+2:], "#>")
			stop := len(sc.s)
			if end >= 0 {
				stop = sc.i + 2 + end + 2
			}
			sc.line += strings.Count(sc.s[sc.i:stop], "\n")
			sc.i = stop
		default:
			return
		}
	}
}

// statement scans the next command: nil when there was none before the
// separator; more is false at the end of the script. A { or } always
// ends the scan, with or without a command before it, and is left in
// sc.brace: the blocks of a script are scopes to its reader.
func (sc *psScanner) statement() (st *psStmt, more bool) {
	st = &psStmt{}
	sc.brace, sc.braceOp = 0, 0
	start := -1
	var op byte
	done := func() (*psStmt, bool) {
		if len(st.toks) == 0 {
			return nil, sc.i < len(sc.s)
		}
		end := min(sc.i, len(sc.s))
		st.raw = strings.TrimSpace(sc.s[start:end])
		st.op = op
		return st, sc.i < len(sc.s)
	}
	for {
		sc.space()
		if sc.i >= len(sc.s) {
			return done()
		}
		c := sc.s[sc.i]
		if start < 0 && c != '\n' && c != '#' {
			start, st.line = sc.i, sc.line
		}
		switch {
		case c == '\n':
			sc.adv()
			if len(st.toks) > 0 {
				return done()
			}
			start, op = -1, 0
		case c == '#':
			for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
				sc.i++
			}
		case c == '{' || c == '}':
			sc.i++
			sc.brace = c
			if len(st.toks) == 0 {
				sc.braceOp = op
			}
			return done()
		case c == ';' || c == ')':
			sc.i++
			if len(st.toks) > 0 {
				return done()
			}
			start, op = -1, 0
		case c == '|' || c == '&' && sc.peek(1) == '&':
			sc.i++
			if c == '|' && sc.peek(0) != '|' {
				st.pipeOut = true
			} else {
				sc.i++
			}
			if len(st.toks) > 0 {
				return done()
			}
			start, op = -1, 0
		case c == '&' && len(st.toks) == 0: // the call operator
			sc.i++
			op = '&'
		case c == '&':
			sc.i++ // run in the background: the command ends here
			return done()
		case c == ',':
			sc.i++
			st.toks = append(st.toks, psTok{comma: true})
		case sc.redirection():
		case c == '-' && len(st.toks) > 0 && isParamStart(sc.peek(1)):
			st.toks = append(st.toks, sc.param())
		case c == '.' && len(st.toks) == 0 && (sc.peek(1) == ' ' || sc.peek(1) == '\t'): // dot-sourcing
			sc.i++
			op = '.'
		case sc.paramBlock(st):
			return done() // param(...) ends its statement
		case c == '[' && sc.peek(1) != 0 && !wordEnd(sc.peek(1)) && inCommand(st):
			// in a command's arguments a [ starts a word, not a type:
			// [byte[]](1,2) is the string [byte[]] and then (1,2)
			// (tokenizer.cs NextToken: in command mode, [ before a
			// character that starts no new token is ScanGenericToken's)
			st.toks = append(st.toks, psTok{val: sc.typeWord()})
		default:
			st.toks = append(st.toks, psTok{val: sc.value(true, 0)})
		}
		if sc.i-start > maxStatement && start >= 0 {
			// the rest of an overlong command is skipped to its line end
			for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
				sc.i++
			}
			st.toks, st.tooLong = []psTok{{}}, true
			return done()
		}
	}
}

// paramBlock reads a param(...) block where a statement starts, after
// its attributes ([CmdletBinding()]): the block ends there, and a
// command may follow it on the same line (Parser.cs ScriptBlockRule:
// "param-block:opt statement-terminators:opt script-block-body:opt";
// ParamBlockRule takes new lines between param and its parenthesis).
// false, having read nothing, where there is none.
func (sc *psScanner) paramBlock(st *psStmt) bool {
	for _, t := range st.toks {
		if !strings.HasPrefix(t.val.dyn, "the expression [") {
			return false // a command's argument named param
		}
	}
	j := sc.atParam()
	if j < 0 {
		return false
	}
	word := psValue{kind: psString, s: sc.s[sc.i : sc.i+len("param")], bare: true}
	for sc.i < j {
		sc.adv()
	}
	st.toks = append(st.toks, psTok{val: word}, psTok{val: sc.list(0)})
	st.param = true
	return true
}

// atParam is where the ( of a param block starting at sc.i stands; -1
// when none does.
func (sc *psScanner) atParam() int {
	const kw = "param"
	if len(sc.s)-sc.i < len(kw) || !strings.EqualFold(sc.s[sc.i:sc.i+len(kw)], kw) {
		return -1
	}
	j := sc.i + len(kw)
	for j < len(sc.s) && strings.IndexByte(" \t\f\v\n", sc.s[j]) >= 0 || j+1 < len(sc.s) && sc.s[j] == '`' && sc.s[j+1] == '\n' {
		j++
	}
	if j >= len(sc.s) || sc.s[j] != '(' {
		return -1
	}
	return j
}

// typeWord reads a command's argument that starts with [: a word to the
// first character that starts a new token, a ( there being the next
// argument, not a call.
func (sc *psScanner) typeWord() psValue {
	j := sc.i
	for j < len(sc.s) && !wordEnd(sc.s[j]) && strings.IndexByte("`$\"'", sc.s[j]) < 0 {
		j++
	}
	if j < len(sc.s) && !wordEnd(sc.s[j]) {
		return sc.bare(true) // escapes, variables, quotes: the word reader's
	}
	v := psValue{kind: psString, bare: true, s: sc.s[sc.i:j]}
	sc.i = j
	return v
}

// inCommand says whether the words scanned into st are a command's
// name and arguments: its first is a bare word, no keyword.
func inCommand(st *psStmt) bool {
	if len(st.toks) == 0 {
		return false
	}
	first := st.toks[0].val
	return first.bare && first.dyn == "" && first.kind == psString && !psKeywords[strings.ToLower(first.s)]
}

func isParamStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '?'
}

// redirection skips >, >>, 2>, 2>&1, *>$null and their target.
func (sc *psScanner) redirection() bool {
	j := sc.i
	if j < len(sc.s) && (sc.s[j] >= '1' && sc.s[j] <= '6' || sc.s[j] == '*') && j+1 < len(sc.s) && sc.s[j+1] == '>' {
		j++
	}
	if j >= len(sc.s) || sc.s[j] != '>' {
		return false
	}
	j++
	if j < len(sc.s) && sc.s[j] == '>' {
		j++
	}
	if j+1 < len(sc.s) && sc.s[j] == '&' && sc.s[j+1] >= '1' && sc.s[j+1] <= '6' {
		sc.i = j + 2
		return true
	}
	sc.i = j
	sc.space()
	if sc.i < len(sc.s) && !strings.ContainsRune("\n;|}", rune(sc.s[sc.i])) {
		sc.value(true, 0) // the file redirected to
	}
	return true
}

// param scans -Name or -Name:value.
func (sc *psScanner) param() psTok {
	sc.i++
	j := sc.i
	for j < len(sc.s) && (isParamStart(sc.s[j]) || sc.s[j] >= '0' && sc.s[j] <= '9' || sc.s[j] == '-') {
		j++
	}
	t := psTok{param: sc.s[sc.i:j]}
	sc.i = j
	if sc.i < len(sc.s) && sc.s[sc.i] == ':' {
		sc.i++
		sc.space() // -Name: value
		v := psValue{dyn: "no value after -" + t.param + ":"}
		if sc.i < len(sc.s) && !wordEnd(sc.s[sc.i]) || sc.i < len(sc.s) && sc.s[sc.i] == '(' {
			v = sc.value(true, 0)
		}
		t.colonVal = &v
	}
	return t
}

// psSplatted starts the dyn of a splatted variable, @params.
const psSplatted = "the splatted variable"

// wordEnd ends a bare word.
func wordEnd(c byte) bool {
	return strings.IndexByte(" \t\f\v\n;|,(){}&", c) >= 0
}

// value scans one argument (arg: in a command's arguments, where a bare
// word is a string; else in an expression, where it is a command).
func (sc *psScanner) value(arg bool, depth int) psValue {
	if sc.i >= len(sc.s) {
		return psValue{dyn: "nothing where a value was expected"}
	}
	if depth > maxDepth {
		sc.skipBalanced()
		return psValue{dyn: "parentheses nested too deep"}
	}
	c := sc.s[sc.i]
	switch {
	case isSingleQuote(sc.s[sc.i:]), isDoubleQuote(sc.s[sc.i:]):
		v := psValue{kind: psString}
		if isSingleQuote(sc.s[sc.i:]) {
			v.s = sc.single()
			if sc.unclosed {
				v.dyn = "a string without its closing quote"
			}
		} else {
			v = sc.double()
		}
		// a quoted string is a token of its own (tokenizer.cs NextToken:
		// ScanStringExpandable, ScanStringLiteral), an argument
		// (Parser.cs GetCommandArgument: PrimaryExpressionRule) that
		// ends at its closing quote: "HKLM:\X"-Force is the key and
		// -Force, "a"b two arguments. A . or [ against the quote is a
		// member or an index of the string.
		if arg && sc.i < len(sc.s) && (sc.s[sc.i] == '.' || sc.s[sc.i] == '[' || sc.s[sc.i] == ':' && sc.peek(1) == ':') {
			w := sc.bareFrom(psValue{kind: psString}, v.s, arg)
			return psValue{dyn: "the expression " + textdec.Clip(w.s)}
		}
		return v
	case c == '@' && (sc.peek(1) == '\'' || sc.peek(1) == '"'):
		return sc.hereString()
	case c == '@' && sc.peek(1) == '(':
		sc.i++
		return sc.list(depth)
	case c == '(':
		return sc.list(depth)
	case c == '@' && sc.peek(1) == '{':
		sc.i++
		sc.skipBalanced()
		return psValue{dyn: "a hashtable"}
	case c == '@' && arg && (isParamStart(sc.peek(1)) || sc.peek(1) >= '0' && sc.peek(1) <= '9'):
		// @params: a splatted variable (tokenizer.cs NextToken: @
		// before a variable's first character, ScanVariable(splatted))
		sc.i++
		start := sc.i
		for sc.i < len(sc.s) && (isParamStart(sc.s[sc.i]) || sc.s[sc.i] >= '0' && sc.s[sc.i] <= '9' || sc.s[sc.i] == ':') {
			sc.i++
		}
		return psValue{dyn: psSplatted + " @" + sc.s[start:sc.i]}
	case c == '$':
		return sc.variable()
	case c == '[':
		return sc.cast(depth)
	}
	return sc.bare(arg)
}

// single reads '...' (” is a quote).
func (sc *psScanner) single() string {
	var b strings.Builder
	sc.i += quoteLen(sc.s[sc.i:])
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if isSingleQuote(sc.s[sc.i:]) {
			n := quoteLen(sc.s[sc.i:])
			if isSingleQuote(sc.s[sc.i+n:]) {
				b.WriteByte('\'')
				sc.i += n + quoteLen(sc.s[sc.i+n:])
				continue
			}
			sc.i += n
			return b.String()
		}
		if c == '\n' {
			sc.line++
		}
		b.WriteByte(c)
		sc.i++
	}
	sc.unclosed = true
	return b.String()
}

// isSingleQuote: PowerShell takes the typographic quotes ‘ ’ ‚ ‛ for ',
// and “ ” „ for ", as editors and web pages write them.
func isSingleQuote(s string) bool {
	return strings.HasPrefix(s, "'") || strings.HasPrefix(s, "\u2018") || strings.HasPrefix(s, "\u2019") ||
		strings.HasPrefix(s, "\u201a") || strings.HasPrefix(s, "\u201b")
}

func isDoubleQuote(s string) bool {
	return strings.HasPrefix(s, `"`) || strings.HasPrefix(s, "\u201c") || strings.HasPrefix(s, "\u201d") ||
		strings.HasPrefix(s, "\u201e")
}

func quoteLen(s string) int {
	if s[0] == '\'' || s[0] == '"' {
		return 1
	}
	return 3
}

// backtick is the character a backtick escape stands for.
func backtick(c byte) string {
	switch c {
	case '0':
		return "\x00"
	case 'a':
		return "\a"
	case 'b':
		return "\b"
	case 'e':
		return "\x1b"
	case 'f':
		return "\f"
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case 'v':
		return "\v"
	}
	return string([]byte{c}) // the byte itself, whatever it begins
}

// isVarStart says whether $ followed by c is expanded in a double-quoted
// string or a bare word: a variable, ${...} or $(...).
func isVarStart(c byte) bool {
	return isParamStart(c) || c >= '0' && c <= '9' || c == '{' || c == '(' || c == '$' || c == '^' || c == ':'
}

// double reads "..." with backtick escapes; "" is a quote; $ starts a
// variable or subexpression, which only the running script knows.
func (sc *psScanner) double() psValue {
	var b strings.Builder
	v := psValue{kind: psString}
	sc.i += quoteLen(sc.s[sc.i:])
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		switch {
		case isDoubleQuote(sc.s[sc.i:]):
			n := quoteLen(sc.s[sc.i:])
			if isDoubleQuote(sc.s[sc.i+n:]) {
				b.WriteByte('"')
				sc.i += n + quoteLen(sc.s[sc.i+n:])
				continue
			}
			sc.i += n
			v.s = b.String()
			return v
		case c == '`' && sc.i+1 < len(sc.s):
			if sc.s[sc.i+1] == '\n' {
				sc.line++
			}
			b.WriteString(backtick(sc.s[sc.i+1]))
			sc.i += 2
			continue
		case c == '$' && sc.i+1 < len(sc.s) && isVarStart(sc.s[sc.i+1]):
			if v.dyn == "" {
				v.dyn = "a variable or subexpression in a string"
			}
			if sc.s[sc.i+1] == '(' {
				sc.i++
				sc.skipBalanced()
				continue
			}
		case c == '\n':
			sc.line++
		}
		b.WriteByte(c)
		sc.i++
	}
	sc.unclosed = true
	v.s = b.String()
	v.dyn = "a string without its closing quote"
	return v
}

// hereString reads @'...'@ and @"..."@: their text is on the lines
// between.
func (sc *psScanner) hereString() psValue {
	dq := sc.s[sc.i+1] == '"'
	closer := "\n'@"
	if dq {
		closer = "\n\"@"
	}
	start := strings.IndexByte(sc.s[sc.i:], '\n')
	if start < 0 {
		sc.i = len(sc.s)
		return psValue{dyn: "a here-string without its end"}
	}
	start += sc.i + 1
	end := strings.Index(sc.s[start-1:], closer)
	if end < 0 {
		sc.line += strings.Count(sc.s[sc.i:], "\n")
		sc.i = len(sc.s)
		return psValue{dyn: "a here-string without its end"}
	}
	end += start - 1
	text := ""
	if end > start {
		text = sc.s[start:end]
	}
	sc.line += strings.Count(sc.s[sc.i:end+len(closer)], "\n")
	sc.i = end + len(closer)
	v := psValue{kind: psString, s: text}
	if dq && (strings.Contains(text, "$") || strings.Contains(text, "`")) {
		v.dyn = "a here-string with variables or escapes"
	}
	return v
}

// skipBalanced skips from an opening bracket to its match, past quoted
// strings, escapes and comments. It keeps its own stack of what it is
// in (brackets, a double-quoted string, a $(...) within one) rather than
// recursing, so no nesting in a hostile script deepens the Go stack.
func (sc *psScanner) skipBalanced() {
	const str = -1 // a double-quoted string; else a frame's bracket depth
	frames := []int{0}
	for sc.i < len(sc.s) {
		top := &frames[len(frames)-1]
		c := sc.s[sc.i]
		if *top == str {
			switch {
			case c == '`':
				sc.adv()
				if sc.i < len(sc.s) {
					sc.adv()
				}
			case isDoubleQuote(sc.s[sc.i:]):
				n := quoteLen(sc.s[sc.i:])
				if isDoubleQuote(sc.s[sc.i+n:]) { // "" is a quote
					sc.i += n + quoteLen(sc.s[sc.i+n:])
					continue
				}
				sc.i += n
				frames = frames[:len(frames)-1]
			case c == '$' && sc.peek(1) == '(':
				sc.i += 2
				frames = append(frames, 1)
			default:
				sc.adv()
			}
			continue
		}
		switch {
		case c == '(' || c == '{' || c == '[':
			*top++
		case c == ')' || c == '}' || c == ']':
			*top--
			if *top <= 0 {
				sc.i++
				frames = frames[:len(frames)-1]
				if len(frames) == 0 {
					return
				}
				continue
			}
		case isSingleQuote(sc.s[sc.i:]):
			sc.single()
			continue
		case isDoubleQuote(sc.s[sc.i:]):
			sc.i += quoteLen(sc.s[sc.i:])
			frames = append(frames, str)
			continue
		case c == '`': // an escaped character, or a continued line
			sc.adv()
			if sc.i < len(sc.s) {
				sc.adv()
			}
			continue
		case c == '<' && sc.peek(1) == '#': // a comment, which may hold quotes and brackets
			sc.space()
			continue
		case c == '#' && (sc.i == 0 || strings.IndexByte(" \t\n;{(", sc.s[sc.i-1]) >= 0):
			for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
				sc.i++
			}
			continue
		}
		sc.adv()
	}
	sc.unclosed = true
}

// variable reads $name, ${name}, $(...): only $null is known before the
// script runs.
func (sc *psScanner) variable() psValue {
	sc.i++
	if sc.i < len(sc.s) && (sc.s[sc.i] == '(' || sc.s[sc.i] == '{') {
		sc.skipBalanced()
		sc.rest()
		return psValue{dyn: "a subexpression $(...)"}
	}
	j := sc.i
	for j < len(sc.s) && (isParamStart(sc.s[j]) || sc.s[j] >= '0' && sc.s[j] <= '9' || sc.s[j] == ':') {
		j++
	}
	name := sc.s[sc.i:j]
	sc.i = j
	if sc.rest() || !strings.EqualFold(name, "null") {
		return psValue{dyn: "the variable $" + name}
	}
	return psValue{kind: psNull, s: "$null"}
}

// rest skips what follows a variable or a bracket in the same word
// (.Property, [index], .Method(...), text): true when there was any.
// The ( of a method's arguments, against its name, belongs to the
// argument ($data.Split(","), [Environment]::GetFolderPath('x');
// Parser.cs MemberAccessRule takes the ( against the member, through
// NextInvokeMemberToken, as its invocation),
// where a ( alone would start another.
func (sc *psScanner) rest() bool {
	start := sc.i
	for sc.i < len(sc.s) && (!wordEnd(sc.s[sc.i]) || sc.s[sc.i] == '(' && sc.i > start) {
		switch {
		case sc.s[sc.i] == '[' || sc.s[sc.i] == '(':
			sc.skipBalanced()
			continue
		case isSingleQuote(sc.s[sc.i:]):
			sc.single()
			continue
		case isDoubleQuote(sc.s[sc.i:]):
			sc.double()
			continue
		}
		sc.i++
	}
	return sc.i > start
}

// cast reads [byte[]] before (...) or @(...) as Binary data; any other
// cast or type is an expression latlab does not evaluate.
func (sc *psScanner) cast(depth int) psValue {
	start := sc.i
	sc.skipBalanced()
	typ := strings.ToLower(strings.ReplaceAll(sc.s[start:sc.i], " ", ""))
	if (typ == "[byte[]]" || typ == "[system.byte[]]") && sc.i < len(sc.s) &&
		(sc.s[sc.i] == '(' || sc.s[sc.i] == '@' && sc.peek(1) == '(') {
		if sc.s[sc.i] == '@' {
			sc.i++
		}
		v := sc.list(depth)
		if v.dyn != "" {
			return v
		}
		return toBytes(v)
	}
	if sc.atParam() < 0 { // [CmdletBinding()]param(...): the attribute's own
		sc.rest()
	}
	return psValue{dyn: "the expression " + textdec.Clip(sc.s[start:sc.i])}
}

// toBytes is [byte[]] of a value: each element a number from 0 to 255.
func toBytes(v psValue) psValue {
	elems := v.elems
	if v.kind != psArray {
		elems = []psValue{v}
	}
	b := make([]byte, 0, len(elems))
	for _, e := range elems {
		if (e.kind != psInt && e.kind != psLong) || e.n < 0 || e.n > 255 {
			return psValue{dyn: "a [byte[]] of something other than numbers from 0 to 255"}
		}
		b = append(b, byte(e.n))
	}
	return psValue{kind: psBytes, bytes: b}
}

// list reads (...) or @(...): values separated by commas (and, in
// @(...), line ends and semicolons). One value in parentheses is itself;
// a command or operator in them is an expression not evaluated.
func (sc *psScanner) list(depth int) psValue {
	start, startLine := sc.i, sc.line
	sc.i++
	var elems []psValue
	commas := false
	for {
		sc.space()
		if sc.i >= len(sc.s) {
			break
		}
		c := sc.s[sc.i]
		switch {
		case c == ')':
			sc.i++
			if len(elems) == 1 && !commas && sc.s[start] == '(' {
				return elems[0]
			}
			return psValue{kind: psArray, elems: elems}
		case c == ',':
			commas = true
			sc.i++
			continue
		case c == '\n' || c == ';':
			sc.adv()
			continue
		case c == '#':
			for sc.i < len(sc.s) && sc.s[sc.i] != '\n' {
				sc.i++
			}
			continue
		}
		before := sc.i
		v := sc.value(false, depth+1)
		elems = append(elems, v)
		if v.dyn != "" && strings.HasPrefix(v.dyn, "a [byte[]]") {
			sc.i, sc.line = start, startLine
			sc.skipBalanced()
			return v
		}
		if v.dyn != "" || sc.i == before {
			break
		}
		if len(elems) > maxValues {
			break
		}
	}
	// not a list of values: skip the rest of the parentheses
	sc.i, sc.line = start, startLine
	sc.skipBalanced()
	return psValue{dyn: "the expression " + textdec.Clip(strings.ReplaceAll(sc.s[start:sc.i], "\n", " "))}
}

// bare reads a word: a number when it reads as one, else a string (in an
// expression, a command). Backticks escape; $ starts a variable.
func (sc *psScanner) bare(arg bool) psValue {
	return sc.bareFrom(psValue{kind: psString, bare: true}, "", arg)
}

// bareFrom reads the rest of a word that began with prefix. A quoted
// string within a word is joined to it, as PowerShell joins
// /subcategory:"{...}" into one argument; joined says so.
func (sc *psScanner) bareFrom(v psValue, prefix string, arg bool) psValue {
	var b strings.Builder
	b.WriteString(prefix)
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if wordEnd(c) {
			break
		}
		switch {
		case c == '`' && sc.i+1 < len(sc.s):
			if sc.s[sc.i+1] == '\n' { // a continued line ends the word
				return sc.word(v, b.String(), arg)
			}
			b.WriteString(backtick(sc.s[sc.i+1]))
			sc.i += 2
			continue
		case c == '$' && sc.i+1 < len(sc.s) && isVarStart(sc.s[sc.i+1]):
			if v.dyn == "" {
				v.dyn = "a variable in the word " + textdec.Clip(b.String()+"$...")
			}
			sc.i++
			if sc.s[sc.i] == '(' || sc.s[sc.i] == '{' {
				sc.skipBalanced()
			}
			continue
		case isSingleQuote(sc.s[sc.i:]):
			v.joined = true
			b.WriteString(sc.single())
			if sc.unclosed && v.dyn == "" {
				v.dyn = "a string without its closing quote"
			}
			continue
		case isDoubleQuote(sc.s[sc.i:]):
			v.joined = true
			d := sc.double()
			if v.dyn == "" {
				v.dyn = d.dyn
			}
			b.WriteString(d.s)
			continue
		case c == '>' && b.Len() > 0: // a redirection ends the word
			return sc.word(v, b.String(), arg)
		}
		b.WriteByte(c)
		sc.i++
	}
	return sc.word(v, b.String(), arg)
}

func (sc *psScanner) word(v psValue, s string, arg bool) psValue {
	if sc.i < len(sc.s) && sc.s[sc.i] == '(' && s != "" { // a method call or a function call
		sc.skipBalanced()
		return psValue{dyn: "the expression " + textdec.Clip(s+"(...)")}
	}
	v.s = s
	if v.dyn != "" {
		return v
	}
	switch n, kind, ok := psNumber(s); {
	case v.joined:
	case ok:
		// a number argument written otherwise than its value prints
		// (0x26, 007, 5l) reaches a command as a PSObject keeping the
		// text (Compiler.cs GetCommandArgumentExpression,
		// ParserOps.WrappedNumber)
		return psValue{kind: kind, n: n, s: s, wrapped: arg && s != strconv.FormatInt(n, 10)}
	case kind == psNull: // a number form latlab does not read
		return psValue{s: s, dyn: "the number " + textdec.Clip(s) + " (a form latlab does not read)"}
	}
	if !arg && !strings.EqualFold(s, "") {
		v.dyn = "the command or operator " + textdec.Clip(s) + " in an expression"
	}
	return v
}

// psNumber types a number literal as PowerShell does: decimal digits are
// an int when they fit in one, else a long; 0x hex digits are an int
// when they fit in 32 bits (0xFFFFFFFF is -1), else a long in 64; the
// suffix l makes a long. ok is false, with kind psNull, for other forms
// of numbers (1.5, 1kb, 1e3, 1u) latlab does not read, and with kind
// psString for what is no number.
func psNumber(s string) (int64, psKind, bool) {
	t := strings.ToLower(s)
	neg := strings.HasPrefix(t, "-")
	if neg || strings.HasPrefix(t, "+") {
		t = t[1:]
	}
	if t == "" || t[0] < '0' || t[0] > '9' {
		if strings.HasPrefix(t, ".") && len(t) > 1 && t[1] >= '0' && t[1] <= '9' {
			return 0, psNull, false
		}
		return 0, psString, false
	}
	long := strings.HasSuffix(t, "l")
	if long {
		t = t[:len(t)-1]
	}
	var n int64
	kind := psInt
	if strings.HasPrefix(t, "0x") {
		u, err := strconv.ParseUint(t[2:], 16, 64)
		if err != nil || t == "0x" {
			return 0, psNull, false
		}
		switch {
		case u <= math.MaxUint32 && !long:
			n = int64(int32(uint32(u)))
		default:
			n, kind = int64(u), psLong
		}
	} else {
		u, err := strconv.ParseUint(t, 10, 64)
		if err != nil || u > math.MaxInt64 {
			return 0, psNull, false
		}
		n = int64(u)
		if n > math.MaxInt32 || long {
			kind = psLong
		}
	}
	if neg {
		n = -n
		if kind == psInt && n < math.MinInt32 {
			kind = psLong
		}
	}
	if long {
		kind = psLong
	}
	return n, kind, true
}
