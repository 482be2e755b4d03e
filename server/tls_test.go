package server

import (
	"path/filepath"
	"testing"

	"github.com/strata-hpc/strata/pki"
)

// testTLS creates a cluster PKI under dir and returns the server's [tls]
// settings.
func testTLS(t testing.TB, dir string) TLSConfig {
	t.Helper()
	td := filepath.Join(dir, "tls")
	if err := pki.Init(td, []string{"127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	return TLSConfig{CAFile: filepath.Join(td, pki.CAFile), CertFile: filepath.Join(td, pki.ServerFile), KeyFile: filepath.Join(td, pki.ServerKeyFile)}
}
