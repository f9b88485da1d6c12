package try

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/latlab/latlab/internal/etw"
	"github.com/latlab/latlab/internal/systool"
)

// commandTimeout bounds one PowerShell command (its start included).
const commandTimeout = 2 * time.Minute

// runCommand runs argv and returns its standard output (the first 64 KiB).
// Wine has a powershell.exe that runs no script, so it is refused there
// rather than read as an adapter with no name.
func runCommand(ctx context.Context, argv []string) (string, error) {
	if etw.UnderWine() {
		return "", fmt.Errorf("%w; Wine has none: run latlab on Windows", errNoRestart)
	}
	// The command is System32's PowerShell, never one found on PATH.
	exe, err := systool.Path(strings.TrimSuffix(strings.ToLower(argv[0]), ".exe"))
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, argv[1:]...)
	out, errOut := &limitedBuffer{limit: 64 << 10}, &limitedBuffer{limit: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	if err := cmd.Run(); err != nil {
		msg := strings.Join(strings.Fields(string(errOut.b)), " ")
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		if msg != "" {
			return "", fmt.Errorf("%s: %w: %s", argv[0], err, msg)
		}
		return "", fmt.Errorf("%s: %w", argv[0], err)
	}
	return string(out.b), nil
}

// limitedBuffer keeps the first limit bytes written to it: a command's
// output is a name or a status, and anything longer is not read.
type limitedBuffer struct {
	b     []byte
	limit int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.limit - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
	return len(p), nil
}
