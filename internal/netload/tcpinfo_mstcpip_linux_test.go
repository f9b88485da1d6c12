package netload

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// The byte offsets used to decode Windows TCP_INFO_v0/v1 match mstcpip.h:
// the MinGW-w64 compiler checks each against offsetof in the header, for
// x64, where latlab.exe runs.
func TestWindowsTCPInfoOffsetsMatchMstcpip(t *testing.T) {
	gcc := testutil.NeedTool(t, "x86_64-w64-mingw32-gcc")
	var src strings.Builder
	src.WriteString("#include <winsock2.h>\n#include <mstcpip.h>\n#include <stddef.h>\n")
	for _, c := range []struct {
		field string
		off   int
	}{
		{"State", wiState}, {"Mss", wiMss}, {"RttUs", wiRttUs}, {"MinRttUs", wiMinRttUs},
		{"BytesInFlight", wiBytesInFlight}, {"Cwnd", wiCwnd}, {"SndWnd", wiSndWnd}, {"BytesOut", wiBytesOut},
		{"BytesReordered", wiBytesReordered}, {"BytesRetrans", wiBytesRetrans}, {"FastRetrans", wiFastRetrans},
		{"DupAcksIn", wiDupAcksIn}, {"TimeoutEpisodes", wiTimeoutEpisodes}, {"SynRetrans", wiSynRetrans},
		{"SndLimTransRwin", wiSndLimTransRwin}, {"SndLimTimeRwin", wiSndLimTimeRwin}, {"SndLimBytesRwin", wiSndLimBytesRwin},
		{"SndLimTransCwnd", wiSndLimTransCwnd}, {"SndLimTimeCwnd", wiSndLimTimeCwnd}, {"SndLimBytesCwnd", wiSndLimBytesCwnd},
		{"SndLimTransSnd", wiSndLimTransSnd}, {"SndLimTimeSnd", wiSndLimTimeSnd}, {"SndLimBytesSnd", wiSndLimBytesSnd},
	} {
		fmt.Fprintf(&src, "_Static_assert(offsetof(TCP_INFO_v1, %s) == %d, \"TCP_INFO_v1.%s is not at byte %d\");\n", c.field, c.off, c.field, c.off)
		if c.off < WinTCPInfoV0Size {
			fmt.Fprintf(&src, "_Static_assert(offsetof(TCP_INFO_v0, %s) == %d, \"TCP_INFO_v0.%s is not at byte %d\");\n", c.field, c.off, c.field, c.off)
		}
	}
	fmt.Fprintf(&src, "_Static_assert(sizeof(TCP_INFO_v0) == %d, \"sizeof TCP_INFO_v0\");\n", WinTCPInfoV0Size)
	fmt.Fprintf(&src, "_Static_assert(sizeof(TCP_INFO_v1) == %d, \"sizeof TCP_INFO_v1\");\n", WinTCPInfoV1Size)
	f := filepath.Join(testutil.TempDir(t), "tcpinfo.c")
	if err := os.WriteFile(f, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// TCP_INFO_v1 is declared for Windows 10 1809 (NTDDI_WIN10_RS5) and later.
	out, err := exec.Command(gcc, "-D_WIN32_WINNT=0x0A00", "-DNTDDI_VERSION=0x0A000006", "-fsyntax-only", f).CombinedOutput()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
}
