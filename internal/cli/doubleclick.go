package cli

import (
	"bufio"
	"context"
	"fmt"
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
	// Live runs the live view (runUI: opened in the browser, until the
	// console window's Ctrl-C or a minute after the page closes) with
	// validated options that carry the check-up just run, and its records
	// going where the check-up's page went; nil when there is none.
	Live func(ctx context.Context, o *UIOptions) error
}

// doubleClick is what a double-clicked latlab.exe does: instead of
// flashing a help text in a console that closes at once, it runs the
// check-up, writes its HTML page to a file a person can find again, opens it,
// says where it is and keeps the window open until Enter. The live view it
// offers next shows that check-up rather than running one of its own.
func doubleClick(ctx context.Context, io *IO, env doubleClickEnv) error {
	name := fmt.Sprintf("latlab-checkup-%s.html", env.Now().Format("20060102-150405"))
	path := filepath.Join(env.Dir, name)
	r, err := checkup(ctx, &DoctorOptions{IO: io, HTML: path})
	done := env.Now()
	if err != nil {
		fmt.Fprintf(io.Out, "\nthe check-up failed: %v\n", err)
	} else {
		fmt.Fprintf(io.Out, "\nThe check-up is saved as\n  %s\n", path)
		if oerr := env.Open(path); oerr != nil {
			fmt.Fprintf(io.Out, "(could not open it in the browser: %v)\n", oerr)
		}
	}
	fmt.Fprintln(io.Out, "\nlatlab is a command-line tool: open a terminal and run `latlab --help`")
	fmt.Fprintln(io.Out, "to see everything it can do.")
	in := bufio.NewReader(io.In)
	if env.Live != nil {
		fmt.Fprint(io.Out, "\nNext: watch the latency live in the browser (latlab ui, read-only):\n"+
			"type L and press Enter. Press Enter alone to close this window.")
		if l, _ := in.ReadString('\n'); strings.EqualFold(strings.TrimSpace(l), "l") {
			o := &UIOptions{IO: io, Duty: "2%", RecordDir: env.Dir, checkup: r, checkupAt: done}
			lerr := o.validate()
			if lerr == nil {
				lerr = env.Live(ctx, o)
			}
			if lerr != nil {
				fmt.Fprintf(io.Out, "\nthe live view failed: %v\n", lerr)
			}
			fmt.Fprint(io.Out, "\nPress Enter to close this window.")
			_, _ = in.ReadString('\n')
		}
		return err
	}
	fmt.Fprint(io.Out, "Press Enter to close this window.")
	_, _ = in.ReadString('\n')
	return err
}

// nowLocal names the saved page by the wall-clock time a person sees.
func nowLocal() time.Time { return time.Now() }
