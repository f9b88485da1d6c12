package regfile

import (
	"fmt"
	"strconv"
	"strings"
)

// The scopes of a script's registry drives. New-PSDrive creates a drive in
// the current scope unless -Scope names another (Microsoft Learn,
// New-PSDrive -Scope: "Global, Local, and Script, or a number relative to
// the current scope ... Local is the default"; PowerShell's
// SessionStateScopeAPIs.cs GetScopeByID, where Private is the current
// scope too), and a scope ends with what opened it (about_Scopes): a
// function's when it returns, unless it was dot-sourced (. Func), which
// runs it in the caller's scope; a script block's run with & or by a
// trap when it ends. The blocks of if, loops, switch, try/catch and the
// script blocks ForEach-Object and Where-Object run (their
// InvokeUsingCmdlet, useLocalScope: false) are no scopes. -Persist makes
// no drive outlive its scope: PowerShell refuses it for any provider but
// the FileSystem's (Navigation.cs NewPSDriveCommand.ProcessRecord:
// PersistNotSupported), so a registry drive with it is not created.
//
// The reader follows the script's lines, not its run: a drive a block
// maps is gone below the block when the block's scope surely ends there,
// and undecided (the command noted, skipped) when how the block runs is
// the script's to say: a function it dot-sources, a script block stored
// or handed to another command, a -Scope counted from a caller's scope, or
// a line within another function, which may be called from within the
// block while the drive is there.

// psBlockKind is how the body of a { } block runs.
type psBlockKind int

const (
	psSame   psBlockKind = iota // in the scope around it: if, loops, try, switch, ForEach-Object, . { }
	psFunc                      // a function's body: a scope of its own for each call, the caller's when dot-sourced
	psCalled                    // a scope of its own, run where it stands: & { }, trap { }
	psOpaque                    // a script block stored or handed on ($sb = { }, Invoke-Command { }): how it runs is the script's to say
	psBare                      // a script block that is a statement of its own: made, never run
)

// psBlock is a { } block open at a point of the script.
type psBlock struct {
	kind     psBlockKind
	name     string // the function's name as written (psFunc)
	line     int
	isSwitch bool // a switch's body, whose clauses' blocks are no scopes
	// regLine is the line of the first registry command within a
	// psBare block (0: none)
	regLine int
	// restore are the drives of the scopes around a function, by name,
	// as they were before a Remove-PSDrive within it: back when its
	// block ends
	restore map[string][]psDrive
}

// psGone is a drive the script mapped in a scope that has ended, or
// failed to map: why a path on it is not written (sure), or may or may
// not be.
type psGone struct {
	why  string
	sure bool
	// removed: a Remove-PSDrive above removed it, which a function's
	// line below runs after too
	removed bool
}

// psHeaders are the keywords whose block runs in the scope around it.
var psHeaders = map[string]bool{
	"if": true, "elseif": true, "else": true, "foreach": true, "for": true, "while": true, "do": true,
	"until": true, "switch": true, "try": true, "catch": true, "finally": true, "begin": true,
	"process": true, "end": true, "dynamicparam": true, "data": true,
	// cmdlets that run their script blocks in the caller's scope
	"foreach-object": true, "%": true, "where-object": true, "?": true, "where": true,
}

// level is the number of scopes open: 0 at the script's top.
func (p *psReader) level() int {
	n := 0
	for _, b := range p.blocks {
		if b.kind != psSame {
			n++
		}
	}
	return n
}

// callable is the innermost block open whose body runs wherever the
// script calls it (a function, an opaque script block); nil when none.
func (p *psReader) callable() *psBlock {
	for i := len(p.blocks) - 1; i >= 0; i-- {
		if k := p.blocks[i].kind; k == psFunc || k == psOpaque {
			return &p.blocks[i]
		}
	}
	return nil
}

// open reads a { : st is the command it ends (nil: none), op the
// operator before a bare { (& or .).
func (p *psReader) open(st *psStmt, op byte, line int) {
	head := st
	if head == nil && op == 0 {
		head = p.header // function F, then { on the next line
	}
	b := psBlock{kind: psOpaque, line: line}
	var first string
	if head != nil {
		first = headWord(head)
	}
	inSwitch := len(p.blocks) > 0 && p.blocks[len(p.blocks)-1].isSwitch
	switch {
	case head == nil && op == 0 && !inSwitch && !p.continued():
		// a { where a statement starts is a script block expression
		// (Parser.cs PrimaryExpressionRule: LCurly,
		// ScriptBlockExpressionRule): PowerShell makes the block and
		// writes it to the output, and runs none of it
		b.kind = psBare
		p.bare++
	case head == nil && op == '&':
		b.kind = psCalled
	case head == nil && op == '.':
		b.kind = psSame
	case first == ".":
		b.kind = psSame // .{ }, the dot written against the brace
	case inSwitch:
		b.kind = psSame // a clause: 'a' { ... }, default { ... }
	case first == "function" || first == "filter" || first == "workflow":
		b.kind, b.name = psFunc, funcName(head.raw)
	case first == "trap":
		b.kind = psCalled
	case psHeaders[first] && strings.Contains(strings.ToLower(head.raw), "-parallel"):
		b.kind = psCalled // ForEach-Object -Parallel: runspaces of their own
	case psHeaders[first]:
		b.kind, b.isSwitch = psSame, first == "switch"
	}
	if head != nil {
		b.line = head.line
	}
	p.blocks = append(p.blocks, b)
	p.header = nil
}

// funcName is the name in "function [scope:]NAME ...".
func funcName(raw string) string {
	f := strings.Fields(raw)
	if len(f) < 2 {
		return ""
	}
	name, _, _ := strings.Cut(f[1], "(")
	if _, after, ok := strings.Cut(name, ":"); ok {
		name = after // Global:Set-Tweak
	}
	return name
}

// continued says whether a { with no command before it on its line
// continues the statement above ($sb =, a list's comma, a pipe).
func (p *psReader) continued() bool {
	if p.prev == nil {
		return false
	}
	raw := p.prev.raw
	return p.prev.pipeOut || strings.HasSuffix(raw, "=") || strings.HasSuffix(raw, ",")
}

// unrun notes what a command within a script block nothing runs would
// have done: the first registry command is named when the block ends.
func (p *psReader) unrun(st *psStmt) {
	var outer *psBlock
	for i := range p.blocks {
		if p.blocks[i].kind == psBare {
			outer = &p.blocks[i]
			break
		}
	}
	if outer == nil || outer.regLine > 0 || st.tooLong {
		return
	}
	first := st.toks[0].val
	name := strings.ToLower(first.s)
	if first.dyn == "" && first.kind == psString && (psNames[name] != "" || name == "reg" || name == "reg.exe" ||
		name == "new-psdrive" || name == "remove-psdrive") || looksLikeRegistryWrite(st.raw) {
		outer.regLine = st.line
	}
}

// close reads a } : the drives of a scope that ends go with it. next is
// the character after it.
func (p *psReader) close(next byte) {
	if len(p.blocks) == 0 {
		return // psSyntax pairs braces: not reached
	}
	b := p.blocks[len(p.blocks)-1]
	lvl := p.level()
	p.blocks = p.blocks[:len(p.blocks)-1]
	p.header = nil
	if b.kind == psBare {
		p.bare--
		switch {
		case b.regLine == 0:
		case next == '.':
			p.note(b.line, "the script block { } of this line is a value whose method (.Invoke() and the like) the script calls, which latlab does not follow: its registry commands (line %d on) are not read: skipped", b.regLine)
		default:
			p.note(b.line, "the script block { } of this line is a statement of its own, which PowerShell makes and does not run: its registry commands (line %d on) are not run, so not read", b.regLine)
		}
		return
	}
	if b.kind == psSame {
		return
	}
	for name, d := range p.drives {
		if d.level != lvl {
			continue
		}
		if d.shadow != nil {
			p.drives[name] = *d.shadow // the drive of that name in the scope around
		} else {
			delete(p.drives, name)
		}
		p.gone[name] = p.goneWhy(name, d, b)
	}
	for name, saved := range b.restore {
		var keep []psDrive
		for _, d := range saved {
			if d.level < lvl {
				keep = append(keep, d)
			}
		}
		p.setChain(name, keep)
	}
}

// goneWhy says why a path on the drive d, mapped in the block b, is not
// written below the block, or may not be.
func (p *psReader) goneWhy(name string, d psDrive, b psBlock) psGone {
	where := blockName(b)
	switch {
	case d.unsure != "":
		return psGone{why: fmt.Sprintf("the New-PSDrive of line %d maps %s: %s", d.line, name, d.unsure)}
	case b.kind == psOpaque:
		return psGone{why: fmt.Sprintf("the New-PSDrive of line %d maps %s: within %s, which the script stores or hands to a command: whether the drive outlives it depends on how that runs it", d.line, name, where)}
	case b.kind == psFunc:
		if at, ok := p.dotted[strings.ToLower(b.name)]; ok {
			return psGone{why: fmt.Sprintf("the New-PSDrive of line %d maps %s: within %s, which the script dot-sources on line %d (. %s runs it in the caller's scope, where the drive stays); called otherwise it goes when the function returns", d.line, name, where, at, b.name)}
		}
	}
	return psGone{sure: true, why: fmt.Sprintf("the New-PSDrive of line %d maps %s: within %s, and without -Scope Global or Script the drive goes when %s", d.line, name, where, blockEnd(b))}
}

func blockName(b psBlock) string {
	switch b.kind {
	case psFunc:
		return fmt.Sprintf("the function %s (line %d)", b.name, b.line)
	case psCalled:
		return fmt.Sprintf("the script block of line %d, run in a scope of its own", b.line)
	}
	return fmt.Sprintf("the script block of line %d", b.line)
}

func blockEnd(b psBlock) string {
	if b.kind == psFunc {
		return "the function returns"
	}
	return "the block ends"
}

// driveLevel is the scope New-PSDrive -Scope names, as a level of
// p.blocks' scopes; unsure, when set, says the scope is a caller's the
// reader does not know, and the level is the current one.
func (p *psReader) driveLevel(scope psValue, given bool) (lvl int, unsure string, ok bool) {
	cur := p.level()
	if !given {
		return cur, "", true
	}
	if scope.dyn != "" || scope.kind == psArray || scope.kind == psBytes || scope.kind == psNull {
		// at the script's top any scope outlives its lines: the guess
		// counts for which drive a name finds, not for how long
		return cur, "with a -Scope only the running script knows", true
	}
	s := strings.ToLower(strings.TrimSpace(scope.s))
	switch s {
	case "local", "private":
		// Private is the current scope (GetScopeByID), and a drive
		// has no Private option: unlike a variable's or an alias's
		// (ScopedItemOptions), a drive made with it is found from the
		// scopes below as any other (SessionStateScope.GetDrive,
		// SessionStateScopeEnumerator walk up with no such check)
		return cur, "", true
	case "global":
		return psGlobal, "", true
	case "script":
		return 0, "", true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, "", false // GetScopeByID refuses it: no drive
	}
	// n scopes up: known while each scope crossed is a block run where
	// it stands; one above the script's is the global scope, and one
	// above that none (GetScopeByID: ScopeIDExceedsAvailableScopes)
	lvl = cur
	for i := len(p.blocks) - 1; i >= 0 && n > 0 && lvl > 0; i-- {
		switch p.blocks[i].kind {
		case psSame:
			continue
		case psCalled:
			lvl--
			n--
			continue
		}
		return cur, fmt.Sprintf("with -Scope %s, a scope that depends on where %s is called from", scope.s, blockName(p.blocks[i])), true
	}
	if lvl -= n; lvl < psGlobal {
		return 0, "", false
	}
	return lvl, "", true
}

// addDrive maps a drive in the scope at level lvl: one of that name
// already there stays (SessionStateScope.NewDrive: DriveAlreadyExists),
// one in a scope around is shadowed until this one's scope ends.
func (p *psReader) addDrive(name string, d psDrive) {
	old, ok := p.drives[name]
	if !ok {
		p.drives[name] = d
		delete(p.gone, name)
		return
	}
	// the drives of a name, innermost first, each shadowing the next
	chain := []psDrive{old}
	for c := old.shadow; c != nil; c = c.shadow {
		chain = append(chain, *c)
	}
	at := len(chain)
	for i, c := range chain {
		if c.level == d.level {
			return // New-PSDrive fails
		}
		if c.level < d.level {
			at = i
			break
		}
	}
	chain = append(chain[:at], append([]psDrive{d}, chain[at:]...)...)
	var next *psDrive
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		c.shadow = next
		next = &c
	}
	p.drives[name] = *next
}

// psOtherHeads are the other keywords whose { may follow on the next
// line.
var psOtherHeads = map[string]bool{
	"function": true, "filter": true, "workflow": true, "trap": true, "class": true, "enum": true,
	"configuration": true, "parallel": true, "sequence": true, "inlinescript": true,
}

// headsBlock says whether st may head a block whose { follows on the
// next line: function F, if (...), else, trap.
func headsBlock(st *psStmt) bool {
	first := headWord(st)
	return psHeaders[first] || psOtherHeads[first]
}

// headWord is the first word of st in lower case, "" when it holds an
// expression. A keyword written against its parenthesis, If(...),
// ForEach($x in $y), is the keyword: the tokenizer ends the word at the
// ( (tokenizer.cs ScanIdentifier; ( is ForceStartNewToken in
// CharTraits.cs) and finds it in its keyword table (s_keywordTable).
func headWord(st *psStmt) string {
	if v := st.toks[0].val; v.dyn == "" {
		return strings.ToLower(v.s)
	}
	end := 0
	for end < len(st.raw) && (st.raw[end] >= 'a' && st.raw[end] <= 'z' || st.raw[end] >= 'A' && st.raw[end] <= 'Z') {
		end++
	}
	if w := strings.ToLower(st.raw[:end]); end < len(st.raw) && st.raw[end] == '(' && psCondHeads[w] {
		return w
	}
	return ""
}

// psCondHeads are the keywords a ( condition follows, on the same line
// or below (Parser.cs IfStatementRule, WhileStatementRule... skip the
// newlines before the parenthesis).
var psCondHeads = map[string]bool{
	"if": true, "elseif": true, "foreach": true, "for": true, "while": true, "until": true, "switch": true,
}

// condFollows says whether st is the condition, (...), of the keyword
// header alone on the line above: if, then (...) on lines of its own.
func condFollows(header, st *psStmt) bool {
	return header != nil && len(header.toks) == 1 && psCondHeads[headWord(header)] && strings.HasPrefix(st.raw, "(")
}

// prescan finds, before the script is read, the functions it
// dot-sources, the drives its New-PSDrive commands map and its first
// command that moves the current location: a line of a function may run
// after any of them, wherever it stands.
func (p *psReader) prescan(text string) {
	sc := &psScanner{s: text, line: 1}
	for {
		st, more := sc.statement()
		if st != nil && !st.tooLong {
			first := st.toks[0].val
			name := strings.ToLower(first.s)
			if first.dyn == "" && first.kind == psString && psLocation[name] && p.locAt == 0 {
				p.locAt, p.locCmd = st.line, first.s
			}
			if st.op == '.' && first.dyn == "" && first.kind == psString {
				if _, ok := p.dotted[name]; !ok {
					p.dotted[name] = st.line
				}
			}
			if d := driveStmt(st); d != nil {
				if b, err := bind("New-PSDrive", psNewDriveParams, d.toks); err == nil && !b.set["Persist"] && maybeRegistry(b.named["PSProvider"]) {
					if v := b.named["Name"]; v.dyn == "" && v.kind == psString {
						if _, ok := p.mapsAt[strings.ToUpper(v.s)]; !ok {
							p.mapsAt[strings.ToUpper(v.s)] = st.line
						}
					}
				}
			}
		}
		if !more {
			return
		}
	}
}

// maybeRegistry says whether New-PSDrive's -PSProvider may be the
// registry's: it is, or only the running script knows it.
func maybeRegistry(prov psValue) bool {
	return prov.dyn != "" || prov.kind != psString || strings.EqualFold(prov.s, "Registry") ||
		strings.EqualFold(prov.s, `Microsoft.PowerShell.Core\Registry`)
}
