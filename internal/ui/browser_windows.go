package ui

import "os/exec"

// OpenBrowser opens url in the default browser through the shell's URL
// handler (url.dll's FileProtocolHandler, what a link click runs) and
// does not wait for it.
func OpenBrowser(url string) error {
	cmd := exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
