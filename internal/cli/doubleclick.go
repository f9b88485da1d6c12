package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
)

func init() {
	// cobra's own answer to a double-click is a help text shown for five
	// seconds; latlab runs the check-up instead (see doubleClick).
	cobra.MousetrapHelpText = ""
}

// isExplorer reports whether a parent process image name is Windows
// Explorer's, i.e. latlab.exe was started by a double-click and has a
// console window of its own that closes when it exits.
func isExplorer(parentImage string) bool {
	// The snapshot gives a bare name; split both separators anyway, so the
	// decision is the same whichever OS runs the test.
	if i := strings.LastIndexAny(parentImage, `\/`); i >= 0 {
		parentImage = parentImage[i+1:]
	}
	return strings.EqualFold(parentImage, "explorer.exe")
}

// doubleClickEnv is what the double-click path needs from the OS, so tests
// can run it without Explorer, a browser or a person at the keyboard.
type doubleClickEnv struct {
	Dir  string             // where the page goes: Documents, else the temp folder
	Open func(string) error // opens a file in the default browser
	Now  func() time.Time
}

// doubleClick is what a double-clicked latlab.exe does: instead of
// flashing a help text in a console that closes at once, it runs the
// check-up, writes the page to a file a person can find again, opens it,
// says where it is and keeps the window open until Enter.
func doubleClick(ctx context.Context, io *IO, env doubleClickEnv) error {
	var text bytes.Buffer
	tee := *io
	tee.Out = &multiWriter{io.Out, &text}
	err := runDoctor(ctx, &DoctorOptions{IO: &tee})
	if err != nil {
		fmt.Fprintf(io.Out, "\nthe check-up failed: %v\n", err)
	}
	name := fmt.Sprintf("latlab-checkup-%s.html", env.Now().Format("20060102-150405"))
	path := filepath.Join(env.Dir, name)
	if werr := os.WriteFile(path, checkupPage(text.String(), env.Now()), 0o644); werr != nil {
		fmt.Fprintf(io.Out, "\ncould not write the page: %v\n", werr)
	} else {
		fmt.Fprintf(io.Out, "\nThe check-up is saved as\n  %s\n", path)
		if oerr := env.Open(path); oerr != nil {
			fmt.Fprintf(io.Out, "(could not open it in the browser: %v)\n", oerr)
		}
	}
	fmt.Fprintln(io.Out, "\nlatlab is a command-line tool: open a terminal and run `latlab --help`")
	fmt.Fprint(io.Out, "to see everything it can do. Press Enter to close this window.")
	_, _ = bufio.NewReader(io.In).ReadString('\n')
	return err
}

// checkupPage is a self-contained page with the check-up's text.
func checkupPage(text string, now time.Time) []byte {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	b.WriteString("<title>latlab check-up</title>\n<style>body{font-family:system-ui,sans-serif;margin:1.5em;max-width:60em}")
	b.WriteString("pre{background:#f4f4f4;padding:1em;overflow-x:auto;font-size:0.9em}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>latlab check-up</h1>\n<p>%s</p>\n<pre>%s</pre>\n", html.EscapeString(now.Format(time.RFC1123)), html.EscapeString(text))
	b.WriteString("</body></html>\n")
	return []byte(b.String())
}

type multiWriter struct {
	a, b interface{ Write([]byte) (int, error) }
}

func (m *multiWriter) Write(p []byte) (int, error) {
	if n, err := m.a.Write(p); err != nil {
		return n, err
	}
	return m.b.Write(p)
}

// nowLocal names the saved page by the wall-clock time a person sees.
func nowLocal() time.Time { return time.Now() }
