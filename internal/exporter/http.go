package exporter

import (
	"fmt"
	"html"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves /metrics, /healthz and a short page at /.
func (e *Exporter) Handler() http.Handler {
	mux := http.NewServeMux()
	metrics := promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{
		// A scrape that cannot gather one collector still serves the
		// others, and says so in promhttp_metric_handler_errors_total.
		ErrorHandling:       promhttp.ContinueOnError,
		Registry:            e.reg,
		MaxRequestsInFlight: 4,
		Timeout:             10 * time.Second,
	})
	mux.Handle("/metrics", promhttp.InstrumentMetricHandler(e.reg, metrics))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ok, msg := e.prober.health(time.Now())
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if !ok {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		fmt.Fprintln(w, msg)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, landingPage(e.o))
	})
	return mux
}

func landingPage(o Options) string {
	return fmt.Sprintf(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>latlab exporter</title></head>
<body>
<h1>latlab exporter</h1>
<p>OS wake-up latency, timer state and latency settings of this machine, for Prometheus.</p>
<p>Probes %s: a %s burst of %s intervals every %s (duty %g%%).</p>
<ul>
<li><a href="metrics">metrics</a></li>
<li><a href="healthz">healthz</a></li>
</ul>
</body></html>
`, html.EscapeString(fmt.Sprint(o.Probes)), o.burst(), o.Interval, o.cycle(), o.Duty*100)
}
