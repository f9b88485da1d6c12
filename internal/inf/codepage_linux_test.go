package inf

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The language IDs ansiCodePage tells code pages by are winnt.h's: the
// MinGW-w64 compiler checks each against the header's LANG_*/SUBLANG_*.
func TestLangIDsMatchWinnt(t *testing.T) {
	// In parallel with the package's other parallel tests: it waits on
	// the compiler, checking a file of its own.
	t.Parallel()
	gcc := testutil.NeedTool(t, "x86_64-w64-mingw32-gcc")
	var src strings.Builder
	src.WriteString("#include <windows.h>\n")
	for _, c := range []struct {
		name string
		v    int
	}{
		{"LANG_ARABIC", langArabic}, {"LANG_BULGARIAN", langBulgarian}, {"LANG_CHINESE", langChinese}, {"LANG_CZECH", langCzech},
		{"LANG_GREEK", langGreek}, {"LANG_HEBREW", langHebrew}, {"LANG_HUNGARIAN", langHungarian}, {"LANG_JAPANESE", langJapanese},
		{"LANG_KOREAN", langKorean}, {"LANG_POLISH", langPolish}, {"LANG_ROMANIAN", langRomanian}, {"LANG_RUSSIAN", langRussian},
		{"LANG_CROATIAN", langCroatian}, {"LANG_SERBIAN", langCroatian}, {"LANG_BOSNIAN", langCroatian}, {"LANG_SLOVAK", langSlovak},
		{"LANG_ALBANIAN", langAlbanian}, {"LANG_THAI", langThai}, {"LANG_TURKISH", langTurkish}, {"LANG_URDU", langUrdu},
		{"LANG_UKRAINIAN", langUkrainian}, {"LANG_BELARUSIAN", langBelarusian}, {"LANG_SLOVENIAN", langSlovenian},
		{"LANG_ESTONIAN", langEstonian}, {"LANG_LATVIAN", langLatvian}, {"LANG_LITHUANIAN", langLithuanian}, {"LANG_FARSI", langFarsi},
		{"LANG_VIETNAMESE", langVietnamese}, {"LANG_MACEDONIAN", langMacedonian}, {"LANG_KAZAK", langKazak},
		{"SUBLANG_CHINESE_SIMPLIFIED", sublangChineseSimplified}, {"SUBLANG_CHINESE_SINGAPORE", sublangChineseSingapore},
		{"SUBLANG_SERBIAN_CYRILLIC", sublangSerbianCyrillic}, {"SUBLANG_SERBIAN_BOSNIA_HERZEGOVINA_CYRILLIC", sublangSerbianBosniaCyrillic},
		{"SUBLANG_BOSNIAN_BOSNIA_HERZEGOVINA_CYRILLIC", sublangBosnianBosniaCyrillic},
		{"SUBLANG_SERBIAN_SERBIA_CYRILLIC", sublangSerbianSerbiaCyrillic}, {"SUBLANG_SERBIAN_MONTENEGRO_CYRILLIC", sublangSerbianMontenegroCyrillic},
	} {
		fmt.Fprintf(&src, "_Static_assert(%s == %d, \"%s is not %#x\");\n", c.name, c.v, c.name, c.v)
	}
	// and MAKELANGID puts the sublanguage above the 10 bits ansiCodePage masks
	src.WriteString("_Static_assert(MAKELANGID(LANG_CHINESE, SUBLANG_CHINESE_SIMPLIFIED) == 0x0804, \"MAKELANGID\");\n")
	f := filepath.Join(testutil.TempDir(t), "langid.c")
	if err := os.WriteFile(f, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(gcc, "-fsyntax-only", f).CombinedOutput(); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
}
