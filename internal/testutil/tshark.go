package testutil

import (
	"bufio"
	"bytes"
	"os/exec"
	"strconv"
	"strings"
)

// TsharkFields runs tshark (bin) over the capture path as
// `tshark -n -r PATH OPTS -T fields -E separator=TAB -e FIELD...` and
// returns each frame's columns by frame number; fields[0] must be
// frame.number. Lines with fewer columns, or no frame number, are
// skipped. When tshark fails, err carries its exit and stderr its
// message, and the frames it printed before are returned as well: a
// capture cut short still has them.
func TsharkFields(bin, path string, opts, fields []string) (rows map[int][]string, stderr string, err error) {
	args := append([]string{"-n", "-r", path}, opts...)
	args = append(args, "-T", "fields", "-E", "separator=\t")
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	cmd := exec.Command(bin, args...)
	var eb bytes.Buffer
	cmd.Stderr = &eb
	out, err := cmd.Output()
	rows = map[int][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) < len(fields) {
			continue
		}
		n, aerr := strconv.Atoi(cols[0])
		if aerr != nil {
			continue
		}
		rows[n] = cols
	}
	return rows, eb.String(), err
}
