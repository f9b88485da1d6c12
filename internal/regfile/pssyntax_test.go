package regfile

import (
	"errors"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/badinput"
)

// A script PowerShell's tokenizer or parser refuses runs nothing: it is
// bad input naming the line and what does not pair. Scripts that parse,
// however their brackets, quotes and comments mix, are read.
func TestPowerShellSyntax(t *testing.T) {
	const sp = "Set-ItemProperty HKCU:\\X a 1 -Type DWord\n"
	for _, c := range []struct {
		name, script string
		want         string // "" when the script parses
	}{
		// brackets
		{"balanced", "if ($a) { " + sp + "} else { @(1, 2)[0] }\n" + sp, ""},
		{"missing }", "function f {\n" + sp + "\n" + sp, "line 1: a { that is never closed"},
		{"missing )", "if ((Test-Path HKCU:\\X) {\n" + sp + "}\n", "line 1: a ( that is never closed"},
		{"} meets an open (", "if ($a) {\n  $x = (1\n}\n", "line 3: a } where the ( of line 2 is still open"},
		{"extra }", sp + "}\n" + sp, "line 2: a } that closes nothing"},
		{"extra )", sp + "$x = 1)\n", "line 2: a ) that closes nothing"},
		{"missing ]", "[int\n" + sp, "line 1: a [ that is never closed"},
		{"[ closed by }", "if ($a) { [int }\n", "line 1: a } where the [ of line 1 is still open"},
		{"mismatch nested", "$a = @{\n  b = (1, 2}\n", "line 2: a } where the ( of line 2 is still open"},
		{"type and attribute", "[CmdletBinding()]\nparam([Parameter(Mandatory)][string]$n)\n[int]$x = 1\n" + sp, ""},
		{"index with blanks", "$a[ 0 ] = 1\n$b[$c[0]] = 2\n" + sp, ""},
		{"wildcard argument", "Get-ChildItem C:\\a[0-9]* -Filter x]\n" + sp, ""},
		{"hashtable", "$h = @{ a = 1; b = @{ c = '}' } }\n" + sp, ""},
		{"subexpression", "$x = $(Get-Item HKCU:\\X)\n" + sp, ""},
		{"missing ) of $(", "$x = $(Get-Item HKCU:\\X\n" + sp, "line 1: a ( that is never closed"},
		// strings
		{"brackets in strings", "Write-Host '(' \"{\" ')' \"[\"\n" + sp, ""},
		{"doubled quotes", "Write-Host 'it''s (' \"say \"\"}\"\"\"\n" + sp, ""},
		{"backtick quote", "Write-Host \"a`\"(b\"\n" + sp, ""},
		{"backtick in single quotes", "Write-Host 'a`'\n" + sp, ""},
		{"unclosed single", sp + "Write-Host 'open\n" + sp, "line 2: a string ' without its closing quote"},
		{"unclosed double", sp + "Write-Host \"open\n" + sp, "line 2: a string \" without its closing quote"},
		{"typographic quotes", "Write-Host \u2018(\u2019 \u201c{\u201d\n" + sp, ""},
		{"string across lines", "$s = \"a\n(b\n\"\n" + sp, ""},
		{"subexpression in string", "Write-Host \"$(Get-Date -Format 'yy)') and $($a[0])\"\n" + sp, ""},
		{"string in subexpression in string", "Write-Host \"a $(\"b ) $(\"c\")\") d\"\n" + sp, ""},
		{"unclosed subexpression in string", "Write-Host \"a $(Get-Date\"\n" + sp, "line 1: a string \" without its closing quote"},
		{"braced variable", "${a}b} = 1\n" + sp, "line 1: a } that closes nothing"},
		{"braced variable escaped", "${a`}b} = 1\n${x`u{2195}} = 2\n" + sp, ""},
		{"unicode escape", "Write-Output `u{a9}` Acme\nWrite-Host \"`u{2195}\"\n" + sp, ""},
		{"quote in a word", "Write-Host don't\n" + sp, "line 1: a string ' without its closing quote"},
		// here-strings
		{"here-strings", "$a = @'\n(\"{'\n'@\n$b = @\"\n}$(1 + (2))\n\"@\n" + sp, ""},
		{"empty here-string", "$a = @'\n'@\n$b = @\"\n\"@\n" + sp, ""},
		{"here-string unclosed", sp + "$a = @'\nx\n" + sp, "line 2: a here-string @' without a line that starts with '@"},
		{"here-string indented end", "$a = @\"\nx\n  \"@\n" + sp, "line 1: a here-string @\" without a line that starts with \"@ to end it (a \"@ after blanks does not end it)"},
		{"here-string text after header", "$a = @'x\n'@\n" + sp, "line 1: a here-string @' with text after it on its line"},
		{"here-string end escaped", "$a = @\"\nx`\n\"@\n" + sp, "line 1: a here-string @\" without a line"},
		{"here-string at the end", "$a = @'", "line 1: a here-string @' without its end"},
		{"here-string after =", "$a=@'\nit's (\n'@\n$b=@\"\n\"@\n" + sp, ""},
		{"here-string in a word", "Write-Host a@'b'\n" + sp, ""},
		// comments
		{"comments", "# ( { [\n<# ) } ]\n'\n#>\n" + sp + "Write-Host x # )\n", ""},
		{"unclosed block comment", sp + "<# (\n" + sp, "line 2: a block comment <# without its #>"},
		{"# in a word", "Write-Host a#b{\n" + sp, "line 1: a { that is never closed"},
		{"# after a string", "Write-Host \"a\"# {\n" + sp, ""},
		{"# after a string in a word", "Write-Host a\"b\"#{\n" + sp, "line 1: a { that is never closed"},
		{"<# in a word", "Write-Host a<#b\n" + sp, ""},
		{"backtick continues", "Set-ItemProperty `\n  HKCU:\\X a 1 `\n  -Type DWord # (\n", ""},
		{"escaped bracket", "Write-Host `( `{\n" + sp, ""},
		{"stop parsing", "icacls C:\\x --% /grant \"(a\" ) {\n" + sp, ""},
		{"stop parsing ends at a pipe", "icacls --% a | Write-Host (\n" + sp, "line 1: a ( that is never closed"},
		{"CRLF", "if ($a) {\r\n" + sp + "}\r\n", ""},
	} {
		_, err := ReadPowerShell(strings.NewReader(c.script))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want == "":
		case err == nil:
			t.Errorf("%s: read, want %q", c.name, c.want)
		case !badinput.Is(err) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%s: %v, want a one-line bad input error with %q", c.name, err, c.want)
		case !strings.Contains(err.Error(), "PowerShell would run none of the script"):
			t.Errorf("%s: %v does not say PowerShell runs none of it", c.name, err)
		}
	}
}

// Nesting deeper than the check follows is left to the reader, which
// reads it without recursing: no error, no stack growth.
func TestPowerShellSyntaxDeep(t *testing.T) {
	deep := strings.Repeat("(", maxSyntaxDepth+1)
	if err := psSyntax(deep); err != nil {
		t.Errorf("beyond the depth followed: %v", err)
	}
	if err := psSyntax(strings.Repeat("(", maxSyntaxDepth-1)); err == nil {
		t.Errorf("an unclosed ( within the depth followed is not found")
	}
}

// FuzzPowerShellSyntax: the check never panics; an error names a line of
// the script; and a script parses within a block of its own (& {
// SCRIPT }) when it parses alone, and fails there when it fails alone,
// unless its error was a closer the block's { pairs with.
func FuzzPowerShellSyntax(f *testing.F) {
	for _, s := range []string{
		"if ($a) { @(1)[0] } else { $h = @{ a = '}' } }",
		"$a = @'\n(\n'@\n$b = @\"\n$(1 + (2))`\n\"@\n",
		"<# ) #> Write-Host a#{ \"b\"# (\n",
		"${a`}b} `u{2195} [int]$x[ 0 ] --% \"(\" ) | Write-Host (\n",
		"Write-Host \u2018(\u2019 \u201c$(\u201d)\u201d",
		"$x = @'x\n'@",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		err := psSyntax(s)
		if err != nil {
			var se *syntaxError
			if !errors.As(err, &se) || se.line < 1 || se.line > strings.Count(s, "\n")+1 {
				t.Fatalf("error %v outside the script's %d lines", err, strings.Count(s, "\n")+1)
			}
		}
		if len(s) > maxSyntaxDepth/2 {
			return
		}
		// a closer that closes nothing alone may close the block's {
		wrapped := psSyntax("& {\n" + s + "\n}")
		if err == nil && wrapped != nil || wrapped == nil && err != nil && !strings.Contains(err.Error(), "closes nothing") {
			t.Fatalf("alone: %v; in a block: %v", err, wrapped)
		}
	})
}
