package mom

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/pki"
)

// testPKIDir holds the test binary's cluster CA, the server certificate
// the fake servers present and the agent certificate of "testhost"
// (created once by TestMain, like shepherdCommand).
var testPKIDir string

func setupTestPKI(dir string) error {
	testPKIDir = filepath.Join(dir, "tls")
	if err := pki.Init(testPKIDir, []string{"127.0.0.1"}); err != nil {
		return err
	}
	cert, key := pki.AgentFiles(testPKIDir, "testhost")
	_, err := pki.Issue(testPKIDir, pki.RoleAgent, []string{"testhost"}, cert, key)
	return err
}

func testAgentFiles() pki.Files {
	cert, key := pki.AgentFiles(testPKIDir, "testhost")
	return pki.Files{CA: filepath.Join(testPKIDir, pki.CAFile), Cert: cert, Key: key}
}

// startTLSServer serves mux over HTTPS with the cluster's server
// certificate, as the real server's TCP API does.
func startTLSServer(t *testing.T, mux http.Handler) *httptest.Server {
	t.Helper()
	src, err := pki.NewSource(pki.Files{CA: filepath.Join(testPKIDir, pki.CAFile),
		Cert: filepath.Join(testPKIDir, pki.ServerFile), Key: filepath.Join(testPKIDir, pki.ServerKeyFile)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(mux)
	srv.Listener = tls.NewListener(srv.Listener, src.ServerConfig(tls.RequireAndVerifyClientCert, pki.RoleAgent))
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func testAgentCerts(t *testing.T) *pki.Source {
	t.Helper()
	src, err := pki.NewSource(testAgentFiles())
	if err != nil {
		t.Fatal(err)
	}
	return src
}
