package exporter

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/latlab/latlab/internal/testutil"
)

// selfSigned writes a certificate for 127.0.0.1 and its key to dir.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "latlab test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

// --tls-config takes exporter-toolkit's web configuration: the endpoint
// is served over TLS and asks for the basic-auth user it names.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	dir := testutil.TempDir(t)
	certFile, keyFile, pool := selfSigned(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte("s3cret"), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "web.yml")
	conf := "tls_server_config:\n  cert_file: " + filepath.ToSlash(certFile) + "\n  key_file: " + filepath.ToSlash(keyFile) +
		"\nbasic_auth_users:\n  prometheus: " + string(hash) + "\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	o := fastOptions()
	o.WebConfig = cfg
	addr, _ := started(t, o)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 30 * time.Second}
	for _, tc := range []struct {
		user, pass string
		want       int
	}{
		{"", "", http.StatusUnauthorized},
		{"prometheus", "wrong", http.StatusUnauthorized},
		{"prometheus", "s3cret", http.StatusOK},
	} {
		req, _ := http.NewRequest("GET", "https://"+addr+"/metrics", nil)
		if tc.user != "" {
			req.SetBasicAuth(tc.user, tc.pass)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("user %q password %q: %d, want %d", tc.user, tc.pass, resp.StatusCode, tc.want)
		}
	}
	// Plain HTTP is not served.
	if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP served the metrics")
		}
	}
}

// A web configuration that does not parse is bad input, found before
// anything starts.
func TestWebConfigInvalid(t *testing.T) {
	cfg := filepath.Join(testutil.TempDir(t), "web.yml")
	if err := os.WriteFile(cfg, []byte("tls_server_config:\n  cert_file: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := Defaults()
	o.WebConfig = cfg
	if err := Validate(o); err == nil {
		t.Fatal("an unparsable web configuration was accepted")
	}
}
