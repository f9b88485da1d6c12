package exporter

// promtool is a Linux program here (Debian's prometheus package), so
// these tests do not run under Wine.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/latlab/latlab/internal/testutil"
)

// promtool's linter accepts everything the endpoint serves.
func TestPromtoolCheckMetrics(t *testing.T) {
	promtool := testutil.NeedTool(t, "promtool")
	addr, e := started(t, fastOptions())
	waitHealthy(t, "http://"+addr, e, 2)
	_, body := get(t, "http://"+addr+"/metrics")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(body)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out.String())
	}
	if s := strings.TrimSpace(out.String()); s != "" {
		t.Errorf("promtool check metrics:\n%s", s)
	}
}

// promtool parses every expression of the dashboard.
func TestDashboardQueriesParse(t *testing.T) {
	promtool := testutil.NeedTool(t, "promtool")
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, x := range dashboardExprs(t) {
		q, _ := json.Marshal(x) // a JSON string is a YAML string
		fmt.Fprintf(&rules, "      - record: dashboard_expr_%d\n        expr: %s\n", i, q)
	}
	f := filepath.Join(testutil.TempDir(t), "dashboard.rules.yml")
	if err := os.WriteFile(f, []byte(rules.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd := exec.Command(promtool, "check", "rules", f)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out.String())
	}
}
