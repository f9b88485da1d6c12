package regfile

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path"
	"strconv"
	"strings"

	"github.com/latlab/latlab/internal/badinput"
	"github.com/latlab/latlab/internal/knob/backend"
	"github.com/latlab/latlab/internal/textdec"
)

// Reading the registry changes of a PowerShell script (.ps1, .psm1),
// without running it. The commands read are the registry provider's:
//
//	Set-ItemProperty (sp)    [-Path] KEY [-Name] NAME [-Value] DATA [-Type KIND]
//	New-ItemProperty         [-Path] KEY [-Name] NAME -Value DATA [-PropertyType KIND] [-Force]
//	Remove-ItemProperty (rp) [-Path] KEY [-Name] NAME[,NAME...]
//	New-Item (ni, mkdir, md) [-Path] KEY [-Name CHILD] [-Value DEFAULT] [-Force]
//	Remove-Item (ri, rm, del, erase, rd, rmdir) [-Path] KEY
//
// with -LiteralPath for -Path, parameter names in any case, shortened to
// any unambiguous prefix or given by alias, and positional arguments
// where the cmdlet gives positions; and reg add / reg delete run from
// the script. Keys are HKLM:\..., HKCU:\... (the provider's drives), a
// path on a drive the script maps with New-PSDrive (HKU:, HKCR:, HKCC:
// or a name of its own; a command on HKU:, HKCR: or HKCC: before the
// script maps them fails, and is noted as not written, as is one on a
// drive whose scope has ended: psscope.go), or Registry::HKEY_...\...
// with or without the provider's module name.
//
// What PowerShell writes, read from its source (PowerShell/PowerShell at
// 929903692e55, src/System.Management.Automation/namespaces/
// RegistryProvider.cs and RegistryWrapper.cs, MIT; and .NET's
// RegistryKey.SetValue, dotnet/runtime's Microsoft.Win32.Registry):
//
//   - SetProperty and NewProperty hand the value and the kind (-Type,
//     -PropertyType; Unknown when not given) to SetRegistryValue.
//   - SetRegistryValue: when the kind is Unknown and the value exists, its
//     kind (GetValueKindForProperty) is used and the data converted to it
//     (ConvertValueToKind); when the value does not exist, or the
//     conversion fails, the kind is GetValueKindFromObject's: byte[]
//     Binary, int DWord, string String, string[] MultiString, long QWord,
//     and String for $null. Any other object (an object[] array, a double)
//     stays Unknown and reaches .NET's RegistryKey.SetValue, whose
//     CalculateValueKind refuses an array that is neither byte[] nor
//     string[].
//   - New-ItemProperty writes nothing over an existing value without
//     -Force (NewProperty): without -Force and -PropertyType, the kind is
//     the data's; with -Force it is the existing value's again.
//   - ConvertValueToKind: DWord takes the data as an int, or failing that
//     a UInt32 (RegistryWrapper.cs ConvertUIntToValueForRegistryIfNeeded
//     then stores its bits); QWord a long or a UInt64; String and
//     ExpandString its text; MultiString a string[]; Binary a byte[];
//     $null is 0, "" or no bytes.
//   - NewItem with -Force on a key that exists deletes it, with its values
//     and subkeys, and creates it empty (RemoveItem, then CreateSubKey;
//     PowerShell/PowerShell#5444).
//
//   - A number argument written otherwise than its value prints (0x26,
//     007, 5l) reaches the cmdlet as a PSObject keeping its text
//     (Compiler.cs GetCommandArgumentExpression): made a string it is
//     that text, "0x26" (LanguagePrimitives.ConvertNumericToString);
//     made another type of number, its text is parsed again
//     (ConvertNumericIConvertible, ConvertStringToInteger: ScanNumber
//     types it as the literal was, so the number is the same); untyped,
//     GetValueKindFromObject sees the PSObject, not the number, and .NET
//     then stores an int as a DWord and a long as a string.
//
// So the type of a value is read only where the script fixes it: with
// -Type or -PropertyType, or New-ItemProperty without -Force. A
// Set-ItemProperty without -Type is listed with the type PowerShell
// writes when the value does not exist yet and a note saying an existing
// value keeps its own type (Value.TypeNote). Literals are typed as
// PowerShell types them: 1 is an int, 4294967295 a long, 0xFFFFFFFF the
// int -1, "1" and '1' strings.
//
// A command whose key, name or data holds a variable, a subexpression or
// an expression latlab does not evaluate, that takes its key from the
// pipeline, that uses wildcards or -WhatIf, or that Invoke-Expression,
// Start-Process or .NET's registry methods run is skipped with a note
// naming its line: so is every write a loop varies, through its
// variable. A command with none of these is read wherever it stands (in
// a loop, which writes the same value each time; under an if; in a
// function), as the batch reader reads a reg command under a label.
// Other commands are counted, not read. Before any of this, a script
// with a syntax error a tokenizer sees (psSyntax) is refused whole:
// PowerShell parses all of a script first and runs none of it then.

const wantPS = "a PowerShell script (.ps1, .psm1) of registry commands"

// MaxStatement bounds one command of a script, its continued lines
// joined: a longer one is skipped with a note.
const MaxStatement = textdec.MaxLine

// maxDepth bounds the nesting of parentheses and arrays read.
const maxDepth = 32

// ReadPowerShell reads the registry commands of a PowerShell script of at
// most MaxInput bytes into a File: each command a section of its own.
// File.PowerShell is set and File.Other counts its other commands.
func ReadPowerShell(r io.Reader) (*File, error) {
	lines, enc, err := textdec.ReadLines(r, maxInput, wantPS)
	if err != nil {
		return nil, badinput.Wrap(err)
	}
	text := strings.Join(lines, "\n")
	if err := psSyntax(text); err != nil {
		return nil, err
	}
	p := &psReader{f: &File{Encoding: enc, PowerShell: true}, drives: psDefaultDrives(),
		gone: map[string]psGone{}, dotted: map[string]int{}, mapsAt: map[string]int{}, funcRemoves: map[string][]psRemove{}}
	p.prescan(text)
	sc := &psScanner{s: text, line: 1}
	pipeIn := false
	for {
		st, more := sc.statement()
		brace, op, at := sc.brace, sc.braceOp, sc.line
		if st != nil {
			st.pipeIn = pipeIn
			if err := p.statement(st); err != nil {
				return nil, err
			}
		}
		switch {
		case brace == '{':
			p.open(st, op, at)
		case brace == '}':
			var next byte
			if sc.i < len(sc.s) {
				next = sc.s[sc.i]
			}
			p.close(next)
		case st != nil && headsBlock(st):
			p.header = st // its { may follow on the next line
		case st != nil && condFollows(p.header, st):
			// if, then its (...) and { on the lines below: still the if's
		case st != nil:
			p.header = nil
		}
		if !more {
			break
		}
		pipeIn = st != nil && st.pipeOut
		p.prev = st
	}
	if p.skipped > 0 {
		p.f.Notes = append(p.f.Notes, fmt.Sprintf("%d more commands skipped", p.skipped))
	}
	return p.f, nil
}

// --- values ---

type psKind int

const (
	psString psKind = iota // a string: quoted, or a bare word
	psInt                  // an int (Int32) literal
	psLong                 // a long (Int64) literal
	psNull                 // $null
	psArray                // a comma list or @(...): object[]
	psBytes                // [byte[]](...)
)

// psValue is an argument as PowerShell binds it. dyn, when set, says why
// only the running script knows it.
type psValue struct {
	kind   psKind
	s      string // the string, or the token as written
	n      int64
	elems  []psValue
	bytes  []byte
	dyn    string
	bare   bool // a bare word (a command name, a parameter's value)
	joined bool // quoted strings joined to other text in one word
	// wrapped: a number argument that keeps its text (0x26): converted
	// to a string it is that text (LanguagePrimitives
	// ConvertNumericToString), to another number type the text is
	// parsed again (ConvertNumericIConvertible)
	wrapped bool
}

// Literal is the data of a value whose type the script leaves to the
// machine (Value.TypeNote): AsKind converts it as PowerShell would to the
// type of the value already there.
type Literal struct{ v psValue }

func dynOf(vs []psValue) string {
	for _, v := range vs {
		if v.dyn != "" {
			return v.dyn
		}
		if d := dynOf(v.elems); d != "" {
			return d
		}
	}
	return ""
}

// --- commands ---

type psReader struct {
	f       *File
	skipped int
	// drives are the registry drives known at this point of the script,
	// by name in upper case: the provider's own (HKLM:, HKCU:) and those
	// the script's New-PSDrive commands map, each to its root key.
	drives map[string]psDrive
	// unreadDrive is the line of a New-PSDrive latlab does not read: its
	// arguments do not bind, or its name, provider or root only the
	// running script knows (0: none)
	unreadDrive int
	// blocks are the { } blocks open at this point (psscope.go), and
	// header the last command when it may head a block whose { is on
	// the next line (function F, if (...)).
	blocks []psBlock
	header *psStmt
	// gone are the drives, by name in upper case, the script mapped in a
	// scope that has ended (or failed to map), and why a path on one
	// is not written, or may not be
	gone map[string]psGone
	// dotted are the functions the script dot-sources (. Func), by name
	// in lower case, each with the line of the first; mapsAt the drives
	// a New-PSDrive maps anywhere in it, each with the line of the first
	dotted, mapsAt map[string]int
	// locAt is the line of the script's first command that changes the
	// current location (Set-Location, cd, Push-Location...; 0: none),
	// and locCmd that command as written
	locAt  int
	locCmd string
	// prev is the command before the one read, which pipes its output
	// into it when that one's pipeIn is set
	prev *psStmt
	// bare counts the script blocks open that nothing runs (psBare):
	// within one, commands are not read
	bare int
	// funcRemoves are the Remove-PSDrive commands each function runs
	// when called, by its name in lower case
	funcRemoves map[string][]psRemove
}

// psDrive is a registry drive: the key it stands for (HKU, or a key
// below a root), the line that maps it (0 for the provider's own), and
// its scope: level counts the scopes open around it (0: the script's,
// -1: the global scope around it), unsure says why the scope is only a
// guess, and shadow is the drive of the same name in a scope around,
// which comes back when this one's scope ends. doubt, when set, says
// why a path on it is neither read nor refused: the drive may have been
// removed, or may not be this one.
type psDrive struct {
	root   string
	line   int
	level  int
	unsure string
	doubt  string
	shadow *psDrive
}

// psGlobal is the level of the global scope. A script is read as
// PowerShell runs a script file (.\tweaks.ps1, powershell -File): in a
// scope of its own, level 0, whose parent is the global scope, where
// the session's own drives are (about_Scopes: the Script scope is the
// one created while a script file runs; SessionStateScopeAPIs.cs
// NewScope makes it a child of the current scope). A script dot-sourced
// at the prompt would run in the global scope itself.
const psGlobal = -1

// psDefaultDrives are the registry provider's drives in every session
// (RegistryProvider.cs InitializeDefaultDrives: HKLM and HKCU alone), in
// the global scope. HKU:, HKCR: and HKCC: exist only once a script maps
// them.
func psDefaultDrives() map[string]psDrive {
	return map[string]psDrive{"HKLM": {root: "HKLM", level: psGlobal}, "HKCU": {root: "HKCU", level: psGlobal}}
}

// psSessionDrives are the drives other than the registry's that every
// session has in its global scope from its start (the Alias, Environment,
// Function and Variable providers' InitializeDefaultDrives), and
// psMaybeDrives those it has depending on the machine or the version:
// Temp: (PowerShell 7.4 on), Cert: and WSMan: (once their modules
// load), and a letter of a disk. New-PSDrive of such a name in the
// global scope fails (SessionStateScope.NewDrive: DriveAlreadyExists).
var (
	psSessionDrives = map[string]bool{"ALIAS": true, "ENV": true, "FUNCTION": true, "VARIABLE": true}
	psMaybeDrives   = map[string]bool{"TEMP": true, "CERT": true, "WSMAN": true}
)

// psHives are the registry roots a script reaches through a drive it
// must map first, and the New-PSDrive that maps the usual name.
var psHives = map[string]string{
	"HKU": "HKEY_USERS", "HKCR": "HKEY_CLASSES_ROOT", "HKCC": "HKEY_CURRENT_CONFIG",
}

func (p *psReader) note(line int, format string, a ...any) {
	if len(p.f.Notes) < MaxNotes {
		p.f.Notes = append(p.f.Notes, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, a...))
	} else {
		p.skipped++
	}
}

// psParam is a parameter of a cmdlet: its name, aliases, whether it is a
// switch, and its position (-1: none).
type psParam struct {
	name    string
	aliases []string
	sw      bool
	pos     int
}

// psCommon are the common parameters every cmdlet takes, -WhatIf and
// -Confirm, and Windows PowerShell 5.1's -UseTransaction.
var psCommon = []psParam{
	{"Verbose", []string{"vb"}, true, -1}, {"Debug", []string{"db"}, true, -1},
	{"ErrorAction", []string{"ea"}, false, -1}, {"WarningAction", []string{"wa"}, false, -1},
	{"InformationAction", []string{"infa"}, false, -1}, {"ProgressAction", []string{"proga"}, false, -1},
	{"ErrorVariable", []string{"ev"}, false, -1}, {"WarningVariable", []string{"wv"}, false, -1},
	{"InformationVariable", []string{"iv"}, false, -1}, {"OutVariable", []string{"ov"}, false, -1},
	{"OutBuffer", []string{"ob"}, false, -1}, {"PipelineVariable", []string{"pv"}, false, -1},
	{"WhatIf", []string{"wi"}, true, -1}, {"Confirm", []string{"cf"}, true, -1},
	{"UseTransaction", []string{"usetx"}, true, -1},
}

var (
	psPath    = psParam{"Path", nil, false, 0}
	psLiteral = psParam{"LiteralPath", []string{"PSPath", "LP"}, false, -1}
	psFilters = []psParam{{"Filter", nil, false, -1}, {"Include", nil, false, -1}, {"Exclude", nil, false, -1},
		{"Credential", nil, false, -1}, {"Force", nil, true, -1}}
)

// psCmdlets are the parameters of the cmdlets read (PowerShell's
// src/Microsoft.PowerShell.Commands.Management/commands/management:
// SetPropertyCommand.cs, NewPropertyCommand.cs, RemovePropertyCommand.cs,
// Navigation.cs; -Type of Set-ItemProperty is the registry provider's
// dynamic parameter).
var psCmdlets = map[string][]psParam{
	"Set-ItemProperty": append([]psParam{psPath, psLiteral, {"Name", []string{"PSProperty"}, false, 1},
		{"Value", nil, false, 2}, {"InputObject", nil, false, -1}, {"PassThru", nil, true, -1},
		{"Type", nil, false, -1}}, psFilters...),
	"New-ItemProperty": append([]psParam{psPath, psLiteral, {"Name", []string{"PSProperty"}, false, 1},
		{"PropertyType", []string{"Type"}, false, -1}, {"Value", nil, false, -1}}, psFilters...),
	"Remove-ItemProperty": append([]psParam{psPath, psLiteral, {"Name", []string{"PSProperty"}, false, 1}}, psFilters...),
	"New-Item": {psPath, {"Name", nil, false, -1}, {"ItemType", []string{"Type"}, false, -1},
		{"Value", []string{"Target"}, false, -1}, {"Force", nil, true, -1}, {"Credential", nil, false, -1}},
	"Remove-Item": append([]psParam{psPath, psLiteral, {"Recurse", nil, true, -1}, {"Stream", nil, false, -1}}, psFilters...),
}

// psNames are the cmdlets' names and the aliases PowerShell defines for
// them on Windows (mkdir and md are functions running New-Item).
var psNames = map[string]string{
	"set-itemproperty": "Set-ItemProperty", "sp": "Set-ItemProperty",
	"new-itemproperty":    "New-ItemProperty",
	"remove-itemproperty": "Remove-ItemProperty", "rp": "Remove-ItemProperty",
	"new-item": "New-Item", "ni": "New-Item", "mkdir": "New-Item", "md": "New-Item",
	"remove-item": "Remove-Item", "ri": "Remove-Item", "rm": "Remove-Item", "rmdir": "Remove-Item",
	"del": "Remove-Item", "erase": "Remove-Item", "rd": "Remove-Item",
}

// psOtherWriters are commands that write the registry in ways latlab
// does not read: on a registry path, or anywhere for those that only
// write properties, they are noted, never dropped.
var psOtherWriters = map[string]bool{
	"set-item": true, "si": true, "clear-item": true, "cli": true, "clear-itemproperty": true, "clp": true,
	"rename-itemproperty": true, "rnp": true, "copy-itemproperty": true, "cpp": true,
	"move-itemproperty": true, "mp": true, "rename-item": true, "rni": true, "ren": true,
	"copy-item": true, "copy": true, "cp": true, "cpi": true, "move-item": true, "mi": true, "move": true, "mv": true,
	"invoke-expression": true, "iex": true, "start-process": true, "saps": true, "start": true,
	"regedit": true, "regedit.exe": true, "cmd": true, "cmd.exe": true, "invoke-command": true, "icm": true,
}

// psKeywords open statements: they are no commands, and not counted.
var psKeywords = map[string]bool{
	"if": true, "elseif": true, "else": true, "foreach": true, "for": true, "while": true, "do": true,
	"until": true, "switch": true, "function": true, "filter": true, "workflow": true, "param": true,
	"begin": true, "process": true, "end": true, "try": true, "catch": true, "finally": true, "trap": true,
	"return": true, "break": true, "continue": true, "exit": true, "class": true, "enum": true,
	"using": true, "data": true, "dynamicparam": true,
}

// psPrinters print their arguments: a registry command in them is text.
var psPrinters = map[string]bool{
	"write-host": true, "write-output": true, "echo": true, "write": true, "write-verbose": true,
	"write-warning": true, "write-error": true, "write-debug": true, "write-information": true,
	"out-file": true, "add-content": true, "set-content": true, "throw": true, "return": true,
}

// looksLikeRegistryWrite says whether a command latlab did not read may
// change the registry: its text names a registry path, reg.exe's verbs or
// .NET's registry methods.
func looksLikeRegistryWrite(raw string) bool {
	l := strings.ToLower(raw)
	for _, m := range []string{"hklm:", "hkcu:", "hku:", "hkcr:", "hkcc:", "registry::", "hkey_", "itemproperty",
		"reg add", "reg.exe add", "reg delete", "reg.exe delete", "reg import", "reg.exe import",
		"setvalue(", "deletevalue(", "deletesubkey", "createsubkey("} {
		if strings.Contains(l, m) {
			return true
		}
	}
	return false
}

// psBound is a command's arguments bound to its parameters.
type psBound struct {
	named map[string]psValue
	set   map[string]bool // switches and named parameters given
}

// bind binds a command's words to params as PowerShell does: names (any
// case, an unambiguous prefix or an alias) first, then the positional
// values to the positional parameters left, in order of position; a
// comma joins values into an array.
func bind(cmd string, params []psParam, toks []psTok) (*psBound, error) {
	for _, t := range toks[1:] {
		if strings.HasPrefix(t.val.dyn, psSplatted) {
			// @params binds its hashtable's keys as parameters
			// (about_Splatting): which, and their values, only the
			// running script knows
			return nil, fmt.Errorf("its parameters come from %s, known only when the script runs", t.val.dyn)
		}
	}
	all := append(append([]psParam{}, params...), psCommon...)
	b := &psBound{named: map[string]psValue{}, set: map[string]bool{}}
	var positional []psValue
	take := func(i int) (psValue, int) { // a value and the commas after it
		v := toks[i].val
		if i+1 >= len(toks) || !toks[i+1].comma {
			return v, i
		}
		arr := psValue{kind: psArray, elems: []psValue{v}}
		for i+2 < len(toks) && toks[i+1].comma && toks[i+2].param == "" && !toks[i+2].comma {
			arr.elems = append(arr.elems, toks[i+2].val)
			i += 2
		}
		return arr, i
	}
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.comma:
			return nil, fmt.Errorf("a comma latlab does not read")
		case t.param == "":
			v, j := take(i)
			positional = append(positional, v)
			i = j
			continue
		}
		p, err := findParam(cmd, all, t.param)
		if err != nil {
			return nil, err
		}
		b.set[p.name] = true
		switch {
		case t.colonVal != nil && strings.HasPrefix(t.colonVal.dyn, "no value after"):
			return nil, fmt.Errorf("-%s: without its value", p.name)
		case t.colonVal != nil:
			b.named[p.name] = *t.colonVal
			if p.sw && (t.colonVal.kind == psNull || strings.EqualFold(t.colonVal.dyn, "the variable $false")) {
				delete(b.set, p.name) // -Force:$false
			}
		case p.sw:
		case i+1 < len(toks) && toks[i+1].param == "" && !toks[i+1].comma:
			v, j := take(i + 1)
			b.named[p.name] = v
			i = j
		default:
			return nil, fmt.Errorf("-%s without its value", p.name)
		}
	}
	for _, v := range positional {
		var next *psParam
		for k := range params {
			p := &params[k]
			if p.pos < 0 || b.set[p.name] || p.name == "Path" && b.set["LiteralPath"] {
				continue
			}
			if next == nil || p.pos < next.pos {
				next = p
			}
		}
		if next == nil {
			what := strconv.Quote(textdec.Clip(v.s))
			switch {
			case v.kind == psArray:
				what = "a list"
			case v.dyn != "":
				what = v.dyn
			}
			return nil, fmt.Errorf("%s is an argument %s takes at no position", what, cmd)
		}
		b.set[next.name] = true
		b.named[next.name] = v
	}
	return b, nil
}

// findParam finds the parameter -name stands for.
func findParam(cmd string, params []psParam, name string) (*psParam, error) {
	var found *psParam
	for i := range params {
		p := &params[i]
		exact := strings.EqualFold(p.name, name)
		prefix := len(name) <= len(p.name) && strings.EqualFold(p.name[:len(name)], name)
		for _, a := range p.aliases {
			exact = exact || strings.EqualFold(a, name)
			prefix = prefix || len(name) <= len(a) && strings.EqualFold(a[:len(name)], name)
		}
		switch {
		case exact:
			return p, nil
		case prefix && found != nil && found.name != p.name:
			return nil, fmt.Errorf("-%s is ambiguous for %s (-%s, -%s)", name, cmd, found.name, p.name)
		case prefix:
			found = p
		}
	}
	if found == nil {
		return nil, fmt.Errorf("%s has no parameter -%s", cmd, name)
	}
	return found, nil
}

// driveRelative says whether a path on a drive is relative to that
// drive's current location: HKLM:SYSTEM, or HKLM: alone, not HKLM:\SYSTEM.
func driveRelative(s string) bool {
	if strings.Contains(s, "::") {
		return false // a provider path: from the root
	}
	_, after, ok := strings.Cut(s, ":")
	return ok && !strings.HasPrefix(after, `\`) && !strings.HasPrefix(after, "/")
}

// psLocation are the commands that move the current location: the
// Location cmdlets and their aliases, and the cd.. and cd\ functions.
var psLocation = map[string]bool{
	"set-location": true, "sl": true, "cd": true, "chdir": true, "push-location": true, "pushd": true,
	"pop-location": true, "popd": true, "cd..": true, `cd\`: true,
	`microsoft.powershell.management\set-location`: true, `microsoft.powershell.management\push-location`: true,
	`microsoft.powershell.management\pop-location`: true,
}

// regPath reads a registry provider path: DRIVE:\X on a registry drive
// the script has at this point (HKLM:, HKCU:, and those its New-PSDrive
// commands map), Registry::HKEY_LOCAL_MACHINE\X or Registry::HKLM\X
// (with or without the provider's module name). The root is spelt
// short; reg is false for a path that is none of these (a file, or a
// path relative to the location). unmapped, when set, is the drive of a
// path on HKU:, HKCR: or HKCC: that the script has not mapped, which
// PowerShell fails to find ("Cannot find drive").
func (p *psReader) regPath(s string) (path string, reg bool, unmapped string) {
	rest := s
	for _, pre := range []string{`Microsoft.PowerShell.Core\Registry::`, "Registry::"} {
		if len(rest) >= len(pre) && strings.EqualFold(rest[:len(pre)], pre) {
			rest = rest[len(pre):]
			reg = true
			break
		}
	}
	if !reg {
		name, after, ok := strings.Cut(rest, ":")
		if !ok {
			return "", false, ""
		}
		d, mapped := p.drives[strings.ToUpper(name)]
		_, gone := p.gone[strings.ToUpper(name)]
		switch _, hive := psHives[strings.ToUpper(name)]; {
		case mapped && d.doubt != "":
			return "", true, strings.ToUpper(name)
		case mapped:
		case psSessionDrives[strings.ToUpper(name)]:
			// the global scope's drive of another provider (Env:),
			// back once a registry drive hiding it is gone
			return "", false, ""
		case hive || gone || p.mapsAt[strings.ToUpper(name)] > 0:
			return "", true, strings.ToUpper(name)
		default:
			return "", false, ""
		}
		rest = d.root + `\` + after
	}
	// PowerShell takes \\ within a provider path as one separator
	for strings.Contains(rest, `\\`) {
		rest = strings.ReplaceAll(rest, `\\`, `\`)
	}
	rest = strings.TrimRight(rest, `\`)
	short, ok := ShortRoot(rest)
	if !ok {
		return "", true, ""
	}
	return short, true, ""
}

// New-PSDrive's parameters and Remove-PSDrive's (NewPSDriveCommand,
// RemovePSDriveCommand in Microsoft.PowerShell.Commands.Management's
// commands/management/Navigation.cs): -Name, -PSProvider and -Root by
// position, the rest by name.
var (
	psNewDriveParams = []psParam{{"Name", nil, false, 0}, {"PSProvider", nil, false, 1}, {"Root", nil, false, 2},
		{"Description", nil, false, -1}, {"Scope", nil, false, -1}, {"Persist", nil, true, -1}, {"Credential", nil, false, -1}}
	psRemoveDriveParams = []psParam{{"Name", nil, false, 0}, {"LiteralName", nil, false, -1}, {"PSProvider", nil, false, -1},
		{"Scope", nil, false, -1}, {"Force", nil, true, -1}}
)

// newDrive reads a New-PSDrive: a registry drive it maps is known from
// here on, to the end of its scope (psscope.go). Drives are followed in
// the order of the script's lines, not of its run. One whose name,
// provider or root only the running script knows, or whose arguments
// latlab does not bind, leaves every unmapped drive unknown
// (unreadDrive).
func (p *psReader) newDrive(st *psStmt) {
	b, err := bind("New-PSDrive", psNewDriveParams, st.toks)
	if err != nil {
		if strings.Contains(strings.ToLower(st.raw), "registry") {
			p.unreadDrive = st.line
		}
		return
	}
	name, prov, root := b.named["Name"], b.named["PSProvider"], b.named["Root"]
	if !maybeRegistry(prov) {
		return // a drive of files, certificates...
	}
	if dynOf([]psValue{name, prov, root}) != "" || name.kind != psString || root.kind != psString || prov.kind != psString {
		p.unreadDrive = st.line
		return
	}
	var key string
	if k, reg, _ := p.regPath(root.s); reg && k != "" {
		key = k // Registry::HKEY_USERS, or a drive's path: HKLM:\SOFTWARE
	} else if k, ok := ShortRoot(strings.TrimRight(root.s, `\`)); ok {
		key = k // HKEY_USERS, as the provider names its hives (or HKU)
	} else {
		return // no registry key: New-PSDrive fails, no drive
	}
	upper := strings.ToUpper(name.s)
	if upper == "" || strings.ContainsAny(upper, `:\/.~`) {
		return // SessionStateDriveAPIs.cs IsValidDriveName: New-PSDrive fails
	}
	if b.set["Persist"] {
		if _, ok := p.drives[upper]; !ok {
			p.gone[upper] = psGone{sure: true, why: fmt.Sprintf("the New-PSDrive of line %d maps no %s: (PowerShell takes -Persist for FileSystem drives only and refuses the command)", st.line, upper)}
		}
		return
	}
	scope := b.named["Scope"]
	lvl, unsure, ok := p.driveLevel(scope, b.set["Scope"])
	if !ok {
		return // a -Scope PowerShell refuses: no drive
	}
	d := psDrive{root: key, line: st.line, level: lvl, unsure: unsure}
	// a name the global scope has: New-PSDrive fails there, and
	// elsewhere hides the global drive until its scope ends
	// (SessionStateScope.NewDrive looks in its own scope alone;
	// SessionStateDriveAPIs.cs GetDrive takes the innermost)
	session := psSessionDrives[upper] || upper == "HKLM" || upper == "HKCU"
	maybe := psMaybeDrives[upper] || len(upper) == 1 && upper[0] >= 'A' && upper[0] <= 'Z'
	dyn := b.set["Scope"] && (scope.dyn != "" || scope.kind != psString)
	switch {
	case (session || maybe) && dyn:
		d.doubt = fmt.Sprintf("the New-PSDrive of line %d maps %s: with a -Scope only the running script knows: PowerShell refuses it in the global scope, which has a drive %s:, and elsewhere the new drive hides that one", st.line, upper, upper)
	case session && lvl == psGlobal:
		return // the global scope has the name: New-PSDrive fails
	case maybe && lvl == psGlobal:
		d.doubt = fmt.Sprintf("the New-PSDrive of line %d maps %s: in the global scope, which has a drive %s: on some machines or versions of PowerShell, where the command fails", st.line, upper, upper)
	}
	p.addDrive(upper, d)
}

// removeDrive reads a Remove-PSDrive (Navigation.cs
// RemovePSDriveCommand, SessionStateDriveAPIs.cs RemoveDrive): without
// -Scope it removes the drive of the name a path would find, the
// innermost, wherever it was made (PowerShell's own HKLM: and HKCU:
// too: the registry provider keeps DriveProviderBase.cs's RemoveDrive,
// which lets any drive go); with -Scope, only one made in that scope. -Name takes
// wildcards, -LiteralName none; a name no drive has removes nothing.
// One within a function runs where the script calls the function: it is
// applied there (psRemove), and within the function's own lines.
func (p *psReader) removeDrive(st *psStmt) {
	b, err := bind("Remove-PSDrive", psRemoveDriveParams, st.toks)
	if err != nil {
		return
	}
	if prov, ok := b.named["PSProvider"]; ok && !maybeRegistry(prov) && !hasWildcard(prov.s) {
		return // drives of another provider
	}
	r := psRemove{line: st.line, scoped: b.set["Scope"]}
	v := b.named["Name"]
	if r.literal = b.set["LiteralName"]; r.literal {
		v = b.named["LiteralName"]
	}
	r.names = []psValue{v}
	if v.kind == psArray {
		r.names = v.elems
	}
	var ok bool
	if r.lvl, r.unsure, ok = p.driveLevel(b.named["Scope"], b.set["Scope"]); !ok {
		return // a -Scope PowerShell refuses
	}
	if c := p.callable(); c != nil && c.kind == psFunc {
		r.fn = c.name
		p.addFuncRemove(c.name, r)
	}
	p.applyRemove(r, 0)
}

// psRemove is a Remove-PSDrive read: its names (-LiteralName: literal),
// its -Scope as a level (scoped: given; unsure: why the level is a
// guess), its line, and the function it stands in ("" for none).
type psRemove struct {
	names   []psValue
	literal bool
	scoped  bool
	lvl     int
	unsure  string
	line    int
	fn      string
}

// maxFuncRemoves bounds the Remove-PSDrive commands a function's calls
// apply, its own and those of the functions it calls.
const maxFuncRemoves = 64

// applyRemove removes the drives r names as PowerShell does when it runs
// at this point of the script: where it stands, or where the line call
// calls its function (0: where it stands). Within a function, a drive
// made outside it is gone for the function's lines below and back when
// the function's block ends (the definition runs nothing); within a
// script block stored or handed on, it is neither read nor refused from
// here on.
func (p *psReader) applyRemove(r psRemove, call int) {
	what := fmt.Sprintf("the Remove-PSDrive of line %d", r.line)
	if call > 0 {
		what = fmt.Sprintf("the Remove-PSDrive of line %d, in the function %s, run by the call on line %d,", r.line, r.fn, call)
	}
	c := p.callable()
	if c != nil && c.kind == psFunc && call > 0 && !strings.EqualFold(c.name, r.fn) {
		// a call within another function: its calls apply it too
		p.addFuncRemove(c.name, r)
	}
	if dyn := dynOf(r.names) != ""; dyn || r.unsure != "" {
		why := what + " removes a drive only the running script names"
		if !dyn {
			why = fmt.Sprintf("%s may remove it, %s", what, r.unsure)
		}
		for name, d := range p.drives {
			if dyn || psMatchesAny(r.names, name, r.literal) {
				d.doubt = why
				p.drives[name] = d
			}
		}
		return
	}
	// the level of the innermost block that runs where the script
	// calls it: a drive made outside it is removed wherever that is
	callLevel := 0
	if c != nil {
		for i := range p.blocks {
			if p.blocks[i].kind != psSame {
				callLevel++
			}
			if &p.blocks[i] == c {
				break
			}
		}
	}
	for name := range p.drives {
		if !psMatchesAny(r.names, name, r.literal) {
			continue
		}
		chain := p.chain(name)
		at := 0
		if r.scoped {
			at = -1
			for i, d := range chain {
				if d.level == r.lvl {
					at = i
				}
			}
			if at < 0 {
				continue // none in that scope: DriveNotFound
			}
		}
		d := chain[at]
		if c != nil && d.level < callLevel {
			if c.kind != psFunc {
				chain[at].doubt = fmt.Sprintf("%s, within %s, removes it wherever that runs", what, blockName(*c))
				p.setChain(name, chain)
				continue
			}
			if c.restore == nil {
				c.restore = map[string][]psDrive{}
			}
			if _, ok := c.restore[name]; !ok {
				c.restore[name] = append([]psDrive(nil), chain...)
			}
		}
		p.setChain(name, append(chain[:at], chain[at+1:]...))
		mapped := "PowerShell's own"
		if d.line > 0 {
			mapped = fmt.Sprintf("the New-PSDrive of line %d mapped it", d.line)
		}
		if _, ok := p.drives[name]; !ok {
			p.gone[name] = psGone{sure: true, removed: true, why: fmt.Sprintf("%s removes it (%s)", what, mapped)}
		}
	}
}

// addFuncRemove stores r as run by each call of the function fn.
func (p *psReader) addFuncRemove(fn string, r psRemove) {
	key := strings.ToLower(fn)
	for _, o := range p.funcRemoves[key] {
		if o.line == r.line {
			return
		}
	}
	if len(p.funcRemoves[key]) < maxFuncRemoves {
		p.funcRemoves[key] = append(p.funcRemoves[key], r)
	}
}

// callRemoves applies the Remove-PSDrive commands of the function a
// command calls (F, & F, . F), where it calls it.
func (p *psReader) callRemoves(st *psStmt) {
	first := st.toks[0].val
	if first.dyn != "" || first.kind != psString || len(p.funcRemoves) == 0 {
		return
	}
	for _, r := range p.funcRemoves[strings.ToLower(first.s)] {
		p.applyRemove(r, st.line)
	}
}

// psMatchesAny says whether the drive name (upper case) is one of names,
// as -Name matches them (wildcards * ? [ ], any case) or -LiteralName.
func psMatchesAny(names []psValue, name string, literal bool) bool {
	for _, v := range names {
		if v.kind != psString {
			continue
		}
		pat := strings.ToUpper(v.s)
		if literal || !hasWildcard(pat) {
			if pat == name {
				return true
			}
			continue
		}
		if ok, err := path.Match(pat, name); err == nil && ok {
			return true
		}
	}
	return false
}

// chain is the drives of a name, innermost first, each shadowing the
// next; setChain stores them back (none: the name has no drive).
func (p *psReader) chain(name string) []psDrive {
	var c []psDrive
	if d, ok := p.drives[name]; ok {
		c = append(c, d)
		for s := d.shadow; s != nil; s = s.shadow {
			c = append(c, *s)
		}
	}
	return c
}

func (p *psReader) setChain(name string, chain []psDrive) {
	if len(chain) == 0 {
		delete(p.drives, name)
		return
	}
	var next *psDrive
	for i := len(chain) - 1; i >= 0; i-- {
		c := chain[i]
		c.shadow = next
		next = &c
	}
	p.drives[name] = *next
}

// hidden says whether the path s is on PowerShell's own HKLM: or HKCU:
// while a New-PSDrive of the script maps a drive of that name, which a
// function's line sees when called from within its scope.
func hidden(p *psReader, s string) bool {
	name, _, ok := strings.Cut(s, ":")
	if !ok {
		return false
	}
	d, mapped := p.drives[strings.ToUpper(name)]
	return mapped && d.line == 0 && p.mapsAt[strings.ToUpper(name)] > 0
}

// driveStmt is the New-PSDrive that st runs: st itself, or one within
// an expression ($d = New-PSDrive ..., $null = (New-PSDrive ...)); nil
// when none.
func driveStmt(st *psStmt) *psStmt {
	first := st.toks[0].val
	if first.dyn == "" && first.kind == psString {
		switch strings.ToLower(first.s) {
		case "new-psdrive", "ndr", "mount":
			return st
		}
		return nil
	}
	i := strings.Index(strings.ToLower(st.raw), "new-psdrive")
	if i < 0 {
		return nil
	}
	before := strings.TrimRight(st.raw[:i], " \t")
	if !strings.HasSuffix(before, "=") && !strings.HasSuffix(before, "(") {
		return nil
	}
	sc := &psScanner{s: st.raw[i:], line: st.line}
	inner, _ := sc.statement()
	return inner
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?[") }

// statement reads one command.
func (p *psReader) statement(st *psStmt) error {
	n := st.line
	first := st.toks[0].val
	if p.bare > 0 {
		p.unrun(st)
		return nil
	}
	if st.tooLong {
		p.note(n, "a command longer than %d bytes: skipped", maxStatement)
		return nil
	}
	if st.param {
		return nil // param(...): no command
	}
	name := strings.ToLower(first.s)
	if i := strings.LastIndexAny(name, `\/`); i >= 0 && first.dyn == "" {
		mod := name[:i]
		switch {
		case strings.HasSuffix(name, "reg.exe") || strings.HasSuffix(name, `\reg`):
			name = name[i+1:]
		case mod == "microsoft.powershell.management":
			name = name[i+1:]
		}
	}
	if d := driveStmt(st); d != nil {
		p.newDrive(d) // New-PSDrive ..., $null = (New-PSDrive ...)
	} else if first.dyn == "" && first.kind == psString && (name == "remove-psdrive" || name == "rdr") {
		p.removeDrive(st)
	} else {
		p.callRemoves(st)
	}
	if first.dyn != "" || first.kind != psString {
		// an expression, an assignment ($x = New-Item ...): not read
		p.other(st, "", "")
		return nil
	}
	if name == "reg" || name == "reg.exe" {
		return p.reg(st)
	}
	cmd, ok := psNames[name]
	if !ok {
		p.other(st, name, first.s)
		return nil
	}
	b, err := bind(cmd, psCmdlets[cmd], st.toks)
	if err != nil {
		if looksLikeRegistryWrite(st.raw) || cmd != "New-Item" && cmd != "Remove-Item" {
			p.note(n, "%s: %v (%q): skipped", cmd, err, textdec.Clip(st.raw))
		} else {
			p.f.Other++
		}
		return nil
	}
	paths, literal := b.named["Path"], false
	if v, ok := b.named["LiteralPath"]; ok {
		paths, literal = v, true
	}
	// a path only the running script knows: a file or a key?
	if d := dynOf([]psValue{paths}); d != "" || !b.set["Path"] && !b.set["LiteralPath"] {
		if cmd == "New-Item" || cmd == "Remove-Item" {
			if !looksLikeRegistryWrite(st.raw) {
				p.f.Other++
				return nil
			}
		}
		switch {
		case d != "":
			p.note(n, "%s: the key holds %s, known only when the script runs: skipped", cmd, d)
		case st.pipeIn:
			p.note(n, "%s: the key comes from the pipeline, known only when the script runs: skipped", cmd)
		default:
			p.note(n, "%s without a key (-Path): skipped", cmd)
		}
		return nil
	}
	list := []psValue{paths}
	if paths.kind == psArray {
		list = paths.elems
	}
	var keys []string
	for _, v := range list {
		if v.kind != psString {
			p.note(n, "%s: the key %q is no path: skipped", cmd, textdec.Clip(v.s))
			return nil
		}
		key, reg, unmapped := p.regPath(v.s)
		gone, isGone := p.gone[unmapped]
		switch doubt := p.drives[unmapped].doubt; {
		case unmapped != "" && doubt != "":
			p.note(n, "%s: the drive %s: may not exist here, or not be the one it seems: %s: skipped", cmd, unmapped, doubt)
			return nil
		case unmapped != "" && p.unreadDrive > 0:
			p.note(n, "%s: the drive %s: exists only if the script maps it, and latlab does not read the New-PSDrive of line %d (its arguments, or a name or root only the running script knows): skipped", cmd, unmapped, p.unreadDrive)
			return nil
		case isGone && !gone.sure:
			p.note(n, "%s: the drive %s: may not exist here: %s: skipped", cmd, unmapped, gone.why)
			return nil
		case isGone && p.callable() != nil && !gone.removed:
			// a function's lines run where it is called: maybe within
			// the block that maps the drive
			p.note(n, "%s: the drive %s: may not exist here: %s, but this line is in %s, which sees it if called from there: skipped", cmd, unmapped, gone.why, blockName(*p.callable()))
			return nil
		case isGone:
			p.note(n, "%s: no drive %s: here: %s: PowerShell fails the command, so it is not written", cmd, unmapped, gone.why)
			return nil
		case p.callable() != nil && hidden(p, v.s):
			name, _, _ := strings.Cut(v.s, ":")
			p.note(n, "%s: the drive %s: may be another here: this line is in %s, which runs where it is called, and the New-PSDrive of line %d maps a drive of that name, which hides PowerShell's own in its scope: skipped", cmd, strings.ToUpper(name), blockName(*p.callable()), p.mapsAt[strings.ToUpper(name)])
			return nil
		case p.callable() != nil && p.mapsAt[unmapped] > 0:
			p.note(n, "%s: the drive %s: may exist here: this line is in %s, which runs where it is called, and the New-PSDrive of line %d maps it: skipped", cmd, unmapped, blockName(*p.callable()), p.mapsAt[unmapped])
			return nil
		case unmapped != "" && psHives[unmapped] == "":
			p.note(n, "%s: no drive %s: on this line (the script's New-PSDrive of line %d does not map it here): PowerShell fails the command, so it is not written", cmd, unmapped, p.mapsAt[unmapped])
			return nil
		case unmapped != "":
			p.note(n, "%s: no drive %s: (PowerShell has HKLM: and HKCU: alone, and the script has not run New-PSDrive -Name %s -PSProvider Registry -Root %s before this line): PowerShell fails the command, so it is not written", cmd, unmapped, unmapped, psHives[unmapped])
			return nil
		case reg && p.locAt > 0 && driveRelative(v.s):
			// HKLM:SYSTEM is relative to the drive's current location
			// (about_Locations: "PowerShell maintains the current
			// working location for each drive ... you can access items
			// from the current working location by referring only to
			// the drive"), its root until the script moves it
			p.note(n, "%s: the key %q is relative to the drive's current location, which the script's %s of line %d may move: skipped", cmd, textdec.Clip(v.s), p.locCmd, p.locAt)
			return nil
		case !reg && (cmd == "New-Item" || cmd == "Remove-Item") && !strings.Contains(strings.ToLower(v.s), "hkey_"):
			p.f.Other++ // a file
			return nil
		case !reg:
			p.note(n, "%s: %q is no registry path latlab reads (HKLM:\\..., HKCU:\\..., Registry::HKEY_...): skipped", cmd, textdec.Clip(v.s))
			return nil
		case key == "":
			p.note(n, "%s: key %q is under no registry root (HKLM, HKCU, HKU, HKCR, HKCC): skipped", cmd, textdec.Clip(v.s))
			return nil
		case strings.Contains(key, "/"):
			// a separator to some cmdlets on some paths, a character of
			// the key's name to others (PowerShell/PowerShell#5536)
			p.note(n, "%s: the key %q holds a /, which PowerShell reads as a separator or as part of a name depending on the cmdlet and the path: skipped", cmd, textdec.Clip(v.s))
			return nil
		case !literal && cmd != "New-Item" && hasWildcard(v.s):
			p.note(n, "%s: the key %q holds wildcards, matching keys only the machine knows: skipped", cmd, textdec.Clip(v.s))
			return nil
		}
		keys = append(keys, key)
	}
	for _, f := range []string{"Filter", "Include", "Exclude", "InputObject"} {
		if b.set[f] {
			p.note(n, "%s -%s: the values or keys it picks are known only when the script runs: skipped", cmd, f)
			return nil
		}
	}
	if b.set["WhatIf"] {
		p.note(n, "%s -WhatIf changes nothing: not read", cmd)
		return nil
	}
	var secs []Section
	for _, key := range keys {
		s, err := p.command(cmd, b, key)
		if err != nil {
			p.note(n, "%s: %v: skipped", cmd, err)
			return nil
		}
		secs = append(secs, s...)
	}
	return p.add(n, secs)
}

// add stores a command's sections, each value on the command's line.
func (p *psReader) add(n int, secs []Section) error {
	p.f.Commands++
	for _, s := range secs {
		if p.f.Values+len(s.Values) > maxValues {
			return badinput.Errorf("line %d: more than %d values: expected %s", n, maxValues, wantPS)
		}
		s.Line = n
		for j := range s.Values {
			s.Values[j].Line = n
		}
		p.f.Values += len(s.Values)
		p.f.Sections = append(p.f.Sections, s)
	}
	return nil
}

// other counts a command that is not one latlab reads, noting it when it
// may write the registry.
func (p *psReader) other(st *psStmt, name, written string) {
	switch {
	case psPrinters[name]:
	case psOtherWriters[name] && looksLikeRegistryWrite(st.raw),
		strings.Contains(name, "itemproperty") && !strings.HasPrefix(name, "get-") && !strings.HasPrefix(name, "test-"):
		p.note(st.line, "%s is not a command latlab reads (%q): skipped", textdec.Clip(written), textdec.Clip(st.raw))
		return
	case (name == "" || psKeywords[name]) && looksLikeRegistryWrite(st.raw) && writeVerb(st.raw):
		p.note(st.line, "a registry command in an expression latlab does not evaluate (%q): skipped", textdec.Clip(st.raw))
		return
	case psKeywords[name], st.pipeIn:
		return // a statement, or a stage of the command before (| Out-Null)
	}
	p.f.Other++
}

// writeVerb says whether an expression holds a command that writes.
func writeVerb(raw string) bool {
	l := strings.ToLower(raw)
	for _, v := range []string{"set-itemproperty", "new-itemproperty", "remove-itemproperty", "new-item", "remove-item",
		"reg add", "reg.exe add", "reg delete", "reg.exe delete", "setvalue(", "deletevalue(", "deletesubkey", "createsubkey("} {
		if strings.Contains(l, v) {
			return true
		}
	}
	return false
}

// command turns a bound cmdlet on one key into sections.
func (p *psReader) command(cmd string, b *psBound, key string) ([]Section, error) {
	force := b.set["Force"]
	switch cmd {
	case "Remove-Item":
		return []Section{{Path: key, Delete: true}}, nil
	case "New-Item":
		if v, ok := b.named["Name"]; ok {
			if v.dyn != "" || v.kind != psString {
				return nil, fmt.Errorf("the key's name holds %s, known only when the script runs", orExpr(v.dyn))
			}
			key = strings.TrimRight(key+`\`+strings.Trim(v.s, `\`), `\`)
		}
		var secs []Section
		if force {
			secs = append(secs, Section{Path: key, Delete: true,
				Note: "New-Item -Force deletes the key if it exists, with its values and subkeys, and creates it empty"})
		}
		s := Section{Path: key}
		if v, ok := b.named["Value"]; ok { // the new key's default value
			val, err := psTyped(Value{Default: true}, b.named["ItemType"], b.set["ItemType"], v, false, "")
			if err != nil {
				return nil, err
			}
			s.Values = []Value{val}
		}
		return append(secs, s), nil
	case "Remove-ItemProperty":
		v, ok := b.named["Name"]
		if !ok {
			return nil, fmt.Errorf("no value name (-Name)")
		}
		names := []psValue{v}
		if v.kind == psArray {
			names = v.elems
		}
		s := Section{Path: key}
		for _, nv := range names {
			name, def, err := psName(nv)
			if err != nil {
				return nil, err
			}
			if hasWildcard(name) {
				return nil, fmt.Errorf("the value name %q holds wildcards, matching values only the machine knows", textdec.Clip(name))
			}
			s.Values = append(s.Values, Value{Name: name, Default: def, Delete: true})
		}
		return []Section{s}, nil
	}
	// Set-ItemProperty, New-ItemProperty
	nv, ok := b.named["Name"]
	if !ok {
		return nil, fmt.Errorf("no value name (-Name)")
	}
	name, def, err := psName(nv)
	if err != nil {
		return nil, err
	}
	data, ok := b.named["Value"]
	switch {
	case !ok && cmd == "Set-ItemProperty":
		return nil, fmt.Errorf("no -Value, which PowerShell asks for")
	case !ok:
		data = psValue{kind: psNull, s: "$null"}
	}
	kindParam := "Type"
	if cmd == "New-ItemProperty" {
		kindParam = "PropertyType"
	}
	// the type is the existing value's when none is given, unless
	// New-ItemProperty without -Force, which writes only a new value
	open := cmd == "Set-ItemProperty" || force
	val, err := psTyped(Value{Name: name, Default: def}, b.named[kindParam], b.set[kindParam], data, open, cmd)
	if err != nil {
		return nil, err
	}
	val.NewOnly = !open // NewProperty: without -Force, an existing value stays
	return []Section{{Path: key, Values: []Value{val}}}, nil
}

func orExpr(d string) string {
	if d == "" {
		return "an expression"
	}
	return d
}

// psName is a value name: "" and (default) are the key's default value.
func psName(v psValue) (string, bool, error) {
	if v.dyn != "" {
		return "", false, fmt.Errorf("the value name holds %s, known only when the script runs", v.dyn)
	}
	if v.kind == psArray || v.kind == psBytes {
		return "", false, fmt.Errorf("the value name is a list")
	}
	if v.kind == psNull || v.s == "" || strings.EqualFold(v.s, "(default)") {
		return "", true, nil
	}
	return v.s, false, nil
}

// psKinds are RegistryValueKind's names and numbers, as Enum.Parse
// takes them (any case).
var psKinds = map[string]int{
	"string": 1, "expandstring": 2, "binary": 3, "dword": 4, "multistring": 7, "qword": 11,
	"unknown": -2, "none": 0,
	"1": 1, "2": 2, "3": 3, "4": 4, "7": 7, "11": 11, "0": -2, "-1": 0,
}

// psTyped stores data as PowerShell stores it for the kind given (or
// none): open says whether, with no kind, an existing value's type wins.
func psTyped(v Value, kind psValue, haveKind bool, data psValue, open bool, cmd string) (Value, error) {
	if d := dynOf([]psValue{data}); d != "" {
		return v, fmt.Errorf("the data holds %s, known only when the script runs", d)
	}
	typ := -2 // Unknown
	if haveKind {
		if kind.dyn != "" {
			return v, fmt.Errorf("the type holds %s, known only when the script runs", kind.dyn)
		}
		k, ok := psKinds[strings.ToLower(strings.TrimSpace(kind.s))]
		if !ok {
			return v, fmt.Errorf("the type %q is no RegistryValueKind (String, ExpandString, Binary, DWord, MultiString, QWord, None): PowerShell writes nothing", textdec.Clip(kind.s))
		}
		typ = k
	}
	if typ != -2 {
		t, b, err := psConvert(data, uint32(typ))
		if err != nil {
			return v, err
		}
		v.Type, v.Data = t, b
		return v, nil
	}
	t, b, err := psInfer(data)
	if err != nil {
		return v, err
	}
	v.Type, v.Data = t, b
	if open {
		v.TypeNote = fmt.Sprintf("%s without -Type: PowerShell writes %s only if the value does not exist yet; an existing value keeps its type, the data converted to it", cmd, backend.RegTypeName(t))
		if cmd == "New-ItemProperty" {
			v.TypeNote = fmt.Sprintf("New-ItemProperty -Force without -PropertyType: PowerShell writes %s only if the value does not exist yet; an existing value keeps its type, the data converted to it", backend.RegTypeName(t))
		}
		v.Literal = &Literal{data}
	}
	return v, nil
}

// psInfer is GetValueKindFromObject's type for a literal, and the data
// ConvertValueToKind makes of it: an int DWord, a long QWord, a string
// (and $null) String, a byte[] Binary; an object[] array, which .NET's
// RegistryKey.SetValue refuses untyped.
func psInfer(d psValue) (uint32, []byte, error) {
	switch {
	case d.kind == psLong && d.wrapped:
		// GetValueKindFromObject sees the PSObject, not a long: .NET's
		// CalculateValueKind then makes the long a string of its value
		return 1, backend.UTF16Bytes(strconv.FormatInt(d.n, 10)), nil
	case d.kind == psInt:
		return psConvert(d, 4)
	case d.kind == psLong:
		return psConvert(d, 11)
	}
	switch d.kind {
	case psString, psNull:
		return psConvert(d, 1)
	case psBytes:
		return psConvert(d, 3)
	}
	return 0, nil, fmt.Errorf("an array without -Type, which .NET's RegistryKey.SetValue refuses (it takes byte[] and string[] only): PowerShell writes nothing")
}

// AsKind is the value a Set-ItemProperty without -Type writes over an
// existing value of registry type typ: the data converted to that type
// (ConvertValueToKind), false when PowerShell would not convert it, or
// latlab does not follow how.
func (l *Literal) AsKind(typ uint32) (uint32, []byte, bool) {
	switch typ {
	case 1, 2, 3, 4, 7, 11:
	default:
		return 0, nil, false // GetValueKind: Unknown, so the data's own type
	}
	t, b, err := psConvert(l.v, typ)
	return t, b, err == nil
}

// psConvert is ConvertValueToKind followed by what .NET's SetValue
// stores, for the registry type typ (0 REG_NONE, which takes a byte[]).
func psConvert(d psValue, typ uint32) (uint32, []byte, error) {
	name := backend.RegTypeName(typ)
	refuse := func() (uint32, []byte, error) {
		what := map[psKind]string{psString: "the string " + strconv.Quote(textdec.Clip(d.s)), psInt: "the number " + d.s,
			psLong: "the number " + d.s, psNull: "$null", psArray: "an array", psBytes: "a [byte[]]"}[d.kind]
		return 0, nil, fmt.Errorf("%s as %s: PowerShell refuses it and writes nothing, or converts it by rules latlab does not follow", what, name)
	}
	switch typ {
	case 4, 11:
		var n int64
		switch d.kind {
		case psInt, psLong:
			// a number keeping its text is parsed again as the literal
			// was (LanguagePrimitives.ConvertStringToInteger:
			// Parser.ScanNumber, then Convert.ChangeType): the same n
			n = d.n
		case psNull:
		case psString:
			var ok bool
			if n, ok = psParseInt(d.s); !ok {
				return refuse()
			}
		default:
			return refuse()
		}
		if typ == 4 {
			// an int, or a UInt32, stored as its 32 bits
			if n < math.MinInt32 || n > math.MaxUint32 {
				return refuse()
			}
			return 4, binary.LittleEndian.AppendUint32(nil, uint32(n)), nil
		}
		return 11, binary.LittleEndian.AppendUint64(nil, uint64(n)), nil
	case 1, 2:
		switch {
		case d.kind == psString, d.wrapped: // a wrapped number: as written
			return typ, backend.UTF16Bytes(d.s), nil
		}
		switch d.kind {
		case psInt, psLong:
			return typ, backend.UTF16Bytes(strconv.FormatInt(d.n, 10)), nil
		case psNull:
			return typ, backend.UTF16Bytes(""), nil
		}
		return refuse()
	case 7:
		elems := []psValue{d}
		switch d.kind {
		case psArray:
			elems = d.elems
		case psNull:
			elems = nil
		case psBytes:
			return refuse()
		}
		var b []byte
		for _, e := range elems {
			switch {
			case e.kind == psString, e.wrapped:
				b = append(b, backend.UTF16Bytes(e.s)...)
				continue
			}
			switch e.kind {
			case psString:
				b = append(b, backend.UTF16Bytes(e.s)...)
			case psInt, psLong:
				b = append(b, backend.UTF16Bytes(strconv.FormatInt(e.n, 10))...)
			default:
				return refuse()
			}
		}
		return 7, append(b, 0, 0), nil
	case 3:
		switch d.kind {
		case psBytes:
			return 3, d.bytes, nil
		case psNull:
			return 3, []byte{}, nil
		case psArray, psInt, psLong:
			if bv := toBytes(d); bv.dyn == "" {
				return 3, bv.bytes, nil
			}
		}
		return refuse()
	case 0:
		if d.kind == psBytes {
			return 0, d.bytes, nil
		}
		return refuse()
	}
	return refuse()
}

// psParseInt reads a string PowerShell converts to a number
// (LanguagePrimitives.ConvertStringToInteger): decimal or 0x hex, blanks
// around it, "" is 0. Other forms (1e3, 1kb, 1.5) are not read.
func psParseInt(s string) (int64, bool) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, true
	}
	// Parser.ScanNumber types the string as the literal would be typed
	// ("0xFFFFFFFF" is the int -1), Convert.ChangeType then widens it
	n, _, ok := psNumber(t)
	return n, ok
}

// reg reads reg add and reg delete run from the script. PowerShell, not
// cmd.exe, has split the words: its quoting ('...', "...", backtick
// escapes) is undone by the scanner, % and ^ are plain characters, and a
// variable is PowerShell's $x. What reg.exe then receives is the words
// as PowerShell passes them to a native program: unchanged for words
// without double quotes, which Windows PowerShell 5.1 and PowerShell 7
// pass differently, or empty, which 5.1 drops.
func (p *psReader) reg(st *psStmt) error {
	n := st.line
	var args []string
	for _, t := range st.toks {
		v := t.val
		switch {
		case t.comma || t.colonVal != nil:
			p.note(n, "reg: an argument latlab does not read (%q): skipped", textdec.Clip(st.raw))
			return nil
		case t.param != "":
			args = append(args, "-"+t.param)
			continue
		case v.dyn != "":
			p.note(n, "reg: an argument holds %s, known only when the script runs: skipped", v.dyn)
			return nil
		case v.kind == psNull || v.kind == psArray || v.kind == psBytes:
			p.note(n, "reg: an argument latlab does not read (%q): skipped", textdec.Clip(st.raw))
			return nil
		case v.kind == psString && v.s == "" && !v.bare:
			p.note(n, "reg: an empty argument, which Windows PowerShell 5.1 does not pass to reg.exe: skipped")
			return nil
		case v.joined:
			p.note(n, "reg: the argument %q joins quoted text to more, which PowerShell passes to reg.exe with quotes of its own: skipped", textdec.Clip(v.s))
			return nil
		case strings.Contains(v.s, `"`):
			p.note(n, "reg: an argument holds a double quote, which PowerShell 5.1 and 7 pass to reg.exe differently: skipped")
			return nil
		}
		args = append(args, v.s)
	}
	if len(args) < 2 {
		p.f.Other++
		return nil
	}
	verb := strings.ToLower(args[1])
	if verb != "add" && verb != "delete" {
		if looksLikeRegistryWrite(st.raw) || verb == "import" || verb == "copy" || verb == "restore" || verb == "load" {
			p.note(n, "reg %s is not a command latlab reads: skipped", verb)
			return nil
		}
		p.f.Other++
		return nil
	}
	s, err := regArgs(args[1:], func(string) bool { return false })
	if err != nil {
		p.note(n, "%v (%q): skipped", err, textdec.Clip(st.raw))
		return nil
	}
	if st.pipeIn && p.prev != nil {
		// PowerShell writes each string piped into a native program
		// to its input as a line: 'y' | reg add ... answers reg's
		// question as echo y | reg add ... does in a batch file
		switch psAnswer(p.prev) {
		case answerYes:
			answered(&s, true)
		case answerNo:
			if answered(&s, false) {
				p.note(n, "reg %s answered no (%q): nothing is deleted", verb, textdec.Clip(p.prev.raw))
				return nil
			}
		}
	}
	return p.add(n, []Section{s})
}

// psAnswer is what the command st, piped into reg, answers it with: one
// string, written by Write-Output (echo, write) or alone ('y').
func psAnswer(st *psStmt) regAnswer {
	toks := st.toks
	if first := toks[0].val; first.dyn == "" && first.kind == psString && first.bare {
		switch strings.ToLower(first.s) {
		case "echo", "write-output", "write", "microsoft.powershell.utility\\write-output":
			toks = toks[1:]
		default:
			return answerNone // a command of its own
		}
	}
	if len(toks) != 1 || toks[0].param != "" || toks[0].comma || toks[0].colonVal != nil {
		return answerNone
	}
	v := toks[0].val
	if v.dyn != "" || v.kind != psString || v.joined {
		return answerNone
	}
	switch strings.ToLower(strings.TrimSpace(v.s)) {
	case "y", "yes":
		return answerYes
	case "n", "no":
		return answerNo
	}
	return answerNone
}
