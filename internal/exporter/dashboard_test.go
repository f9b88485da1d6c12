package exporter

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

const dashboardPath = "../../packaging/grafana/latlab.json"

// dashboardExprs returns every PromQL expression of the Grafana dashboard
// (panel targets, annotations, variables), with Grafana's variables
// replaced by values Prometheus accepts.
func dashboardExprs(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	var exprs []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if s, ok := x.(string); ok && k == "expr" {
					exprs = append(exprs, strings.NewReplacer("$__rate_interval", "1m", "$instance", ".*").Replace(s))
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(doc)
	if len(exprs) < 8 {
		t.Fatalf("%d expressions in the dashboard", len(exprs))
	}
	return exprs
}

// Every metric the dashboard queries is one the exporter serves.
func TestDashboardQueriesServedMetrics(t *testing.T) {
	o := Defaults()
	o.Settings = func(context.Context) ([]Setting, error) { return []Setting{{Knob: "k", Value: "v"}}, nil }
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.settings.refresh(context.Background(), time.Unix(1_700_000_000, 0)); err != nil {
		t.Fatal(err)
	}
	mfs, err := e.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, mf := range mfs {
		served[mf.GetName()] = true
		if mf.GetType().String() == "HISTOGRAM" {
			for _, s := range []string{"_bucket", "_count", "_sum"} {
				served[mf.GetName()+s] = true
			}
		}
	}
	// Both OSes' timer metrics: the dashboard serves a mixed fleet.
	served["latlab_timer_resolution_seconds"], served["latlab_timer_slack_seconds"] = true, true
	name := regexp.MustCompile(`\b(latlab|process)_[a-z_]+`)
	for _, x := range dashboardExprs(t) {
		for _, m := range name.FindAllString(x, -1) {
			if !served[m] {
				t.Errorf("the dashboard queries %s, which the exporter does not serve: %s", m, x)
			}
		}
	}
}
