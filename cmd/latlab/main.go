// Command latlab is a latency laboratory: it measures how precisely the OS
// wakes threads, controls the timer resolution, decodes and safely changes
// latency settings, and analyses evidence files.
package main

import (
	"os"

	"github.com/latlab/latlab/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
