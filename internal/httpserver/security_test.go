package httpserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an initialize to path with the given headers.
func post(t *testing.T, hc *http.Client, url string, hdr map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestAuth_BearerToken(t *testing.T) {
	const token = "s3cret-token"
	s := startServer(t, &Options{Token: token})
	for _, tc := range []struct {
		name     string
		path     string
		auth     string
		want     int
		wantBody string
	}{
		{"missing", "/mcp", "", 401, "needs a bearer token"},
		{"wrong", "/mcp", "Bearer nope", 401, "the bearer token is wrong"},
		{"wrong scheme", "/mcp", "Basic " + token, 401, "needs a bearer token"},
		{"prefix of the token", "/mcp", "Bearer s3cret", 401, "the bearer token is wrong"},
		{"right", "/mcp", "Bearer " + token, 200, `"protocolVersion":"2025-11-25"`},
		{"right, lower-case scheme", "/mcp", "bearer " + token, 200, `"protocolVersion"`},
		{"sse missing", "/sse", "", 401, "needs a bearer token"},
		{"sse wrong", "/sse", "Bearer nope", 401, "the bearer token is wrong"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := map[string]string{}
			if tc.auth != "" {
				hdr["Authorization"] = tc.auth
			}
			if tc.path == "/sse" {
				req, _ := http.NewRequest(http.MethodGet, s.base+tc.path, nil)
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tc.want || !strings.Contains(string(b), tc.wantBody) {
					t.Fatalf("GET %s: %d %q, want %d containing %q", tc.path, resp.StatusCode, b, tc.want, tc.wantBody)
				}
				if got := resp.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
					t.Errorf("WWW-Authenticate = %q", got)
				}
				return
			}
			code, body := post(t, http.DefaultClient, s.base+tc.path, hdr)
			if code != tc.want || !strings.Contains(body, tc.wantBody) {
				t.Fatalf("POST %s: %d %q, want %d containing %q", tc.path, code, body, tc.want, tc.wantBody)
			}
		})
	}
	t.Run("client with the token", func(t *testing.T) {
		c := s.connect(t, transports[0], clientOpts{token: token})
		catSession(c)
	})
	t.Run("healthz needs no token", func(t *testing.T) {
		if h := s.health(t); h.Status != "ok" {
			t.Fatalf("healthz = %+v", h)
		}
	})
}

func TestOrigin_Checked(t *testing.T) {
	s := startServer(t, &Options{AllowedOrigins: []string{"https://console.example.com"}})
	_, port, _ := net.SplitHostPort(s.Addr().String())
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"no origin (not a browser)", nil, 200},
		{"foreign origin", map[string]string{"Origin": "http://evil.example"}, 403},
		{"foreign origin with our port", map[string]string{"Origin": "http://evil.example:" + port}, 403},
		{"null origin", map[string]string{"Origin": "null"}, 403},
		{"localhost origin", map[string]string{"Origin": "http://localhost:3000"}, 200},
		{"loopback origin", map[string]string{"Origin": "http://127.0.0.1:" + port}, 200},
		{"allowed origin, default port", map[string]string{"Origin": "https://console.example.com:443"}, 200},
		{"allowed host, other scheme", map[string]string{"Origin": "http://console.example.com"}, 403},
		// DNS rebinding: a foreign name resolving to 127.0.0.1.
		{"rebound host header", map[string]string{"Host": "evil.example:" + port}, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, http.DefaultClient, s.base+"/mcp", tc.hdr)
			if code != tc.want {
				t.Fatalf("status %d (%q), want %d", code, body, tc.want)
			}
			if code == 403 && tc.hdr["Origin"] != "" && !strings.Contains(body, "not allowed") {
				t.Errorf("403 body %q does not say why", body)
			}
		})
	}
}

func TestNew_SafeDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want error
	}{
		{"all interfaces without token", Options{Addr: "0.0.0.0:0"}, ErrInsecureBind},
		{"empty host without token", Options{Addr: ":0"}, ErrInsecureBind},
		{"ipv6 any without token", Options{Addr: "[::]:0"}, ErrInsecureBind},
		{"all interfaces with token", Options{Addr: "0.0.0.0:0", Token: "t"}, nil},
		{"localhost without token", Options{Addr: "localhost:0"}, nil},
		{"cert without key", Options{Addr: "127.0.0.1:0", TLSCert: "c.pem"}, ErrTLSConfig},
		{"unreadable cert", Options{Addr: "127.0.0.1:0", TLSCert: "missing.pem", TLSKey: "missing.key"}, ErrTLSConfig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(mcpServerForTest(t), &tc.opts)
			if s != nil {
				defer s.ln.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("New(%+v) = %v, want %v", tc.opts, err, tc.want)
			}
		})
	}
}

func TestTLS_Serves(t *testing.T) {
	cert, key, pool := selfSigned(t)
	s := startServer(t, &Options{TLSCert: cert, TLSKey: key, Token: "tok"})
	if !strings.HasPrefix(s.base, "https://") {
		t.Fatalf("URL %s is not https", s.base)
	}
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	code, body := post(t, hc, s.base+"/mcp", map[string]string{"Authorization": "Bearer tok"})
	if code != 200 || !strings.Contains(body, `"serverInfo"`) {
		t.Fatalf("initialize over TLS: %d %q", code, body)
	}
	// Plain HTTP to the TLS port gets nowhere.
	plain := strings.Replace(s.base, "https://", "http://", 1)
	if code, _ := post(t, http.DefaultClient, plain+"/mcp", map[string]string{"Authorization": "Bearer tok"}); code == 200 {
		t.Fatal("plain HTTP accepted on the TLS port")
	}
}

// selfSigned writes a certificate for 127.0.0.1 and returns its files and a
// pool trusting it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agentty test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(c)
	return certFile, keyFile, pool
}
