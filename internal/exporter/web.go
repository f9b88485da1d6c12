package exporter

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v2"
)

// Defaults of the HTTP server.
const (
	// DefaultMaxConns bounds the connections open at once: idle
	// keep-alive connections used to pile up until a low file limit
	// starved a real scrape (55 were enough). A newcomer takes the slot
	// of a connection that is not being answered (conns.go), or waits
	// in the kernel's accept queue when every one is.
	DefaultMaxConns = 64
	// DefaultIdleTimeout closes a keep-alive connection idle this long;
	// above Prometheus's usual scrape intervals, so a scraper keeps its
	// connection.
	DefaultIdleTimeout = 2 * time.Minute
	// readHeaderTimeout is the time a request's header may take to
	// arrive: a scraper sends it in one packet.
	readHeaderTimeout = 5 * time.Second
)

// Basic auth checks a password with bcrypt (some 57 ms of CPU), before
// knowing who asks: with users configured and no rate_limit of its own,
// the web configuration gets exporter-toolkit's limiter at these values,
// which a scraper never reaches (its password's result is cached).
const (
	authRateInterval = 200 * time.Millisecond
	authRateBurst    = 10
)

// webConfig is what latlab reads of an exporter-toolkit web configuration.
type webConfig struct {
	TLS struct {
		CertFile string `yaml:"cert_file"`
		Cert     string `yaml:"cert"`
	} `yaml:"tls_server_config"`
	Users     map[string]string `yaml:"basic_auth_users"`
	RateLimit struct {
		Interval time.Duration `yaml:"interval"`
	} `yaml:"rate_limit"`
}

func readWebConfig(path string) (webConfig, []byte, error) {
	var c webConfig
	b, err := os.ReadFile(path)
	if err != nil {
		return c, nil, err
	}
	return c, b, yaml.Unmarshal(b, &c)
}

// ExposureWarning says what is wrong with serving o to other machines
// ("" when nothing is): /metrics shows the settings, NIC and IRQ names and
// traffic totals, so beyond loopback it wants TLS and basic auth.
func ExposureWarning(o Options) string {
	host, _, err := net.SplitHostPort(o.Listen)
	if err != nil || host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	var c webConfig
	if o.WebConfig != "" {
		c, _, _ = readWebConfig(o.WebConfig)
	}
	var missing []string
	if c.TLS.CertFile == "" && c.TLS.Cert == "" {
		missing = append(missing, "TLS")
	}
	if len(c.Users) == 0 {
		missing = append(missing, "basic auth")
	}
	if len(missing) == 0 {
		return ""
	}
	return fmt.Sprintf("listening on %s without %s: whoever reaches it reads /metrics (the settings, NIC and IRQ names, traffic totals); give --tls-config with %s",
		o.Listen, strings.Join(missing, " or "), strings.Join(missing, " and "))
}

// effectiveWebConfig returns the web configuration to serve with: path
// itself, or, when it sets basic auth users without a rate_limit, a copy
// in dir with one added (and its relative file names made absolute, since
// exporter-toolkit reads them beside the configuration).
func effectiveWebConfig(path, dir string) (string, error) {
	if path == "" {
		return "", nil
	}
	c, raw, err := readWebConfig(path)
	if err != nil {
		return "", fmt.Errorf("read --tls-config %s: %w", path, err)
	}
	if len(c.Users) == 0 || c.RateLimit.Interval != 0 {
		return path, nil
	}
	var doc yaml.MapSlice
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return "", fmt.Errorf("read --tls-config %s: %w", path, err)
	}
	base, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	doc = setRateLimit(doc, base)
	out, err := yaml.Marshal(doc)
	if err != nil {
		return "", err
	}
	eff := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(eff, out, 0o600); err != nil {
		return "", fmt.Errorf("write the web configuration: %w", err)
	}
	return eff, nil
}

func setRateLimit(doc yaml.MapSlice, base string) yaml.MapSlice {
	for i, it := range doc {
		if it.Key != "tls_server_config" {
			continue
		}
		tls, ok := it.Value.(yaml.MapSlice)
		if !ok {
			continue
		}
		for j, f := range tls {
			switch f.Key {
			case "cert_file", "key_file", "client_ca_file":
				if s, ok := f.Value.(string); ok && s != "" && !filepath.IsAbs(s) {
					tls[j].Value = filepath.Join(base, s)
				}
			}
		}
		doc[i].Value = tls
	}
	return append(doc, yaml.MapItem{Key: "rate_limit", Value: yaml.MapSlice{
		{Key: "interval", Value: authRateInterval.String()}, {Key: "burst", Value: authRateBurst}}})
}
