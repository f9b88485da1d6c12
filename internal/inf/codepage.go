package inf

import (
	"bytes"
	"strconv"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"

	"github.com/latlab/latlab/internal/textdec"
)

// Primary language and sublanguage IDs of a LANGID (its low 10 bits and
// the 6 above), as winnt.h defines LANG_* and SUBLANG_*;
// codepage_linux_test.go checks them against mingw-w64's header.
const (
	langArabic     = 0x01
	langBulgarian  = 0x02
	langChinese    = 0x04
	langCzech      = 0x05
	langGreek      = 0x08
	langHebrew     = 0x0d
	langHungarian  = 0x0e
	langJapanese   = 0x11
	langKorean     = 0x12
	langPolish     = 0x15
	langRomanian   = 0x18
	langRussian    = 0x19
	langCroatian   = 0x1a // also LANG_SERBIAN and LANG_BOSNIAN, told apart by sublanguage
	langSlovak     = 0x1b
	langAlbanian   = 0x1c
	langThai       = 0x1e
	langTurkish    = 0x1f
	langUrdu       = 0x20
	langUkrainian  = 0x22
	langBelarusian = 0x23
	langSlovenian  = 0x24
	langEstonian   = 0x25
	langLatvian    = 0x26
	langLithuanian = 0x27
	langFarsi      = 0x29
	langVietnamese = 0x2a
	langMacedonian = 0x2f
	langKazak      = 0x3f

	sublangChineseSimplified = 0x02
	sublangChineseSingapore  = 0x04
	// the Cyrillic sublanguages of LANG_SERBIAN and LANG_BOSNIAN
	sublangSerbianCyrillic           = 0x03
	sublangSerbianBosniaCyrillic     = 0x07
	sublangBosnianBosniaCyrillic     = 0x08
	sublangSerbianSerbiaCyrillic     = 0x0a
	sublangSerbianMontenegroCyrillic = 0x0c
)

// ansiCodePage is the ANSI code page of a Windows whose locale is the
// language lang (a LANGID in hex, as in [Strings.0804]): the locale's
// default ANSI code page (LOCALE_IDEFAULTANSICODEPAGE in Microsoft's NLS
// reference). It returns nil for Windows-1252, the code page latlab reads
// an ANSI INF in, and for a LANGID it does not know.
//
// An ANSI INF has no code page of its own: Windows reads it in the
// system's, so each [Strings.LANGID] section holds the bytes of that
// language's code page. Intel's e1r63x64.inf writes [Strings.0804] in
// GBK (936) and [Strings.0404] in Big5 (950); read as Windows-1252 they
// were garbled ("×Ô¶¯¼ì²â" for 自动检测).
func ansiCodePage(lang string) encoding.Encoding {
	id, err := strconv.ParseUint(lang, 16, 16)
	if err != nil {
		return nil
	}
	primary, sub := id&0x3ff, id>>10
	switch primary {
	case langChinese:
		// PRC and Singapore write simplified Chinese; Taiwan, Hong Kong
		// and Macao traditional
		if sub == sublangChineseSimplified || sub == sublangChineseSingapore {
			return simplifiedchinese.GBK
		}
		return traditionalchinese.Big5
	case langJapanese:
		return japanese.ShiftJIS
	case langKorean:
		return korean.EUCKR
	case langThai:
		return charmap.Windows874
	case langCzech, langHungarian, langPolish, langRomanian, langSlovak, langSlovenian, langAlbanian:
		return charmap.Windows1250
	case langCroatian:
		// 041A Croatian, 081A Serbian (Latin) and 141A Bosnian (Latin)
		// are Latin; 0C1A Serbian (Cyrillic) and the like are Cyrillic
		switch sub {
		case sublangSerbianCyrillic, sublangSerbianBosniaCyrillic, sublangBosnianBosniaCyrillic,
			sublangSerbianSerbiaCyrillic, sublangSerbianMontenegroCyrillic:
			return charmap.Windows1251
		}
		return charmap.Windows1250
	case langRussian, langUkrainian, langBelarusian, langBulgarian, langMacedonian, langKazak:
		return charmap.Windows1251
	case langGreek:
		return charmap.Windows1253
	case langTurkish:
		return charmap.Windows1254
	case langHebrew:
		return charmap.Windows1255
	case langArabic, langFarsi, langUrdu:
		return charmap.Windows1256
	case langEstonian, langLatvian, langLithuanian:
		return charmap.Windows1257
	case langVietnamese:
		return charmap.Windows1258
	}
	return nil
}

// recode turns a value of an ANSI INF's [Strings.LANGID] section, which
// the reader decoded as Windows-1252, into what the language's code page
// makes of the same bytes (textdec.ANSIBytes gives them back). A value
// that is not valid in the code page is kept as read.
func recode(s string, cp encoding.Encoding) string {
	if cp == nil || isASCII(s) {
		return s
	}
	raw, ok := textdec.ANSIBytes(s)
	if !ok {
		return s
	}
	out, err := cp.NewDecoder().Bytes(raw)
	if err != nil || bytes.ContainsRune(out, '\uFFFD') {
		return s
	}
	return string(out)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// stringsCodePage is the code page of the named [Strings.LANGID] section
// of f, or nil when its values are already what Windows reads.
func (f *File) stringsCodePage(section string) encoding.Encoding {
	if f.Encoding != string(textdec.ANSI) {
		return nil
	}
	lang, ok := strings.CutPrefix(section, "strings.")
	if !ok {
		return nil
	}
	return ansiCodePage(lang)
}
