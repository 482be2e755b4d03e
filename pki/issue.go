package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Role is what a certificate lets its holder be.
type Role string

const (
	// RoleServer is a Strata server: it serves the API and Raft and dials
	// other servers' Raft.
	RoleServer Role = "server"
	// RoleAgent is a node agent (mom) of one host.
	RoleAgent Role = "agent"
	// RoleSimulator is `strata mom --simulate`: one process that speaks
	// for many simulated hosts, all named <prefix>-<digits> after the
	// certificate's CN (the prefix), and for no other host.
	RoleSimulator Role = "simulator"
)

// Name is the DNS name that carries the role in a certificate; a peer
// verifies it as the expected host name.
func (r Role) Name() string { return string(r) + ".strata" }

// File names inside a PKI directory.
const (
	CAFile        = "ca.pem"
	CAKeyFile     = "ca-key.pem"
	ServerFile    = "server.pem"
	ServerKeyFile = "server-key.pem"
)

// Validity of what Init and Issue create.
const (
	CAValidity   = 10 * 365 * 24 * time.Hour
	CertValidity = 2 * 365 * 24 * time.Hour
)

// ErrExists is returned by Init when the directory already holds a CA.
var ErrExists = errors.New("a cluster CA already exists")

// Init creates a cluster CA in dir (created 0700 if needed) and a server
// certificate for hosts (names or IP addresses, besides server.strata). It
// refuses to replace an existing CA: every certificate of the cluster
// depends on it.
func Init(dir string, hosts []string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return fmt.Errorf("chmod %s: %w", dir, err)
	}
	for _, f := range []string{CAFile, CAKeyFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, f), ErrExists)
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	serial, err := newSerial()
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Strata cluster CA " + serial.Text(16)[:8], Organization: []string{"Strata"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(CAValidity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		MaxPathLenZero:        true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("create CA certificate: %w", err)
	}
	if err := writeKey(filepath.Join(dir, CAKeyFile), key); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, CAFile), pemBlock("CERTIFICATE", der), 0o644); err != nil {
		return err
	}
	_, err = Issue(dir, RoleServer, hosts, filepath.Join(dir, ServerFile), filepath.Join(dir, ServerKeyFile))
	return err
}

// AgentFiles are where Issue puts an agent certificate for host by default.
func AgentFiles(dir, host string) (cert, key string) {
	return filepath.Join(dir, "agent-"+host+".pem"), filepath.Join(dir, "agent-"+host+"-key.pem")
}

// SimulatorFiles are where Issue puts a simulator certificate for a
// prefix by default.
func SimulatorFiles(dir, prefix string) (cert, key string) {
	return filepath.Join(dir, "simulator-"+prefix+".pem"), filepath.Join(dir, "simulator-"+prefix+"-key.pem")
}

// Issue signs a certificate for role with the CA in dir and writes it to
// certPath and keyPath (key 0600), replacing what is there: reissuing over
// the files a daemon reads is how a certificate is rotated. For an agent,
// hosts[0] is the host the agent is; for a server, hosts are extra names
// and addresses. It returns the certificate.
func Issue(dir string, role Role, hosts []string, certPath, keyPath string) (*x509.Certificate, error) {
	ca, caKey, err := loadCA(dir)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(CertValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		DNSNames:     []string{role.Name()},
	}
	switch role {
	case RoleServer:
		tmpl.Subject = pkix.Name{CommonName: role.Name(), Organization: []string{"Strata"}}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else if h != "" && h != role.Name() {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	case RoleAgent:
		if len(hosts) == 0 || !validHost(hosts[0]) {
			return nil, fmt.Errorf("agent certificate: %q is not a host name (letters, digits, '-', '.', '_'; not a *.strata role name)", strings.Join(hosts, ","))
		}
		tmpl.Subject = pkix.Name{CommonName: hosts[0], Organization: []string{"Strata"}}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		tmpl.DNSNames = append(tmpl.DNSNames, hosts[0])
	case RoleSimulator:
		// The prefix is a host name itself, so the same rules keep it
		// from passing as a role name.
		if len(hosts) == 0 || !validHost(hosts[0]) {
			return nil, fmt.Errorf("simulator certificate: %q is not a host name prefix (letters, digits, '-', '.', '_')", strings.Join(hosts, ","))
		}
		tmpl.Subject = pkix.Name{CommonName: hosts[0], Organization: []string{"Strata"}}
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	default:
		return nil, fmt.Errorf("unknown role %q", role)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign certificate: %w", err)
	}
	if err := writeKey(keyPath, key); err != nil {
		return nil, err
	}
	if err := writeFile(certPath, pemBlock("CERTIFICATE", der), 0o644); err != nil {
		return nil, err
	}
	return x509.ParseCertificate(der)
}

// validHost accepts the host names agents register with. Names ending in
// .strata are refused: they are role names, and an agent named
// server.strata would pass as a server.
func validHost(h string) bool {
	if h == "" || len(h) > 253 || strings.HasSuffix(h, ".strata") || h == "strata" {
		return false
	}
	for _, c := range h {
		ok := c == '-' || c == '.' || c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

func loadCA(dir string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	certs, err := readCerts(filepath.Join(dir, CAFile))
	if err != nil {
		return nil, nil, err
	}
	kb, err := os.ReadFile(filepath.Join(dir, CAKeyFile))
	if err != nil {
		return nil, nil, fmt.Errorf("read CA key: %w", err)
	}
	blk, _ := pem.Decode(kb)
	if blk == nil {
		return nil, nil, fmt.Errorf("%s: no PEM key", filepath.Join(dir, CAKeyFile))
	}
	key, err := x509.ParseECPrivateKey(blk.Bytes)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", filepath.Join(dir, CAKeyFile), err)
	}
	// The CA file may list several CAs during a rotation; the one that
	// signs is the one matching the key.
	for _, c := range certs {
		if pub, ok := c.PublicKey.(*ecdsa.PublicKey); ok && pub.Equal(&key.PublicKey) {
			return c, key, nil
		}
	}
	return nil, nil, fmt.Errorf("%s: no certificate matches %s", filepath.Join(dir, CAFile), CAKeyFile)
}

// readCerts parses every certificate of a PEM file.
func readCerts(path string) ([]*x509.Certificate, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read certificates: %w", err)
	}
	var out []*x509.Certificate
	for {
		var blk *pem.Block
		blk, b = pem.Decode(b)
		if blk == nil {
			break
		}
		if blk.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(blk.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no certificate", path)
	}
	return out, nil
}

func newSerial() (*big.Int, error) {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("serial number: %w", err)
	}
	return n.Add(n, big.NewInt(1)), nil
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func writeKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("encode key: %w", err)
	}
	return writeFile(path, pemBlock("EC PRIVATE KEY", der), 0o600)
}

// writeFile replaces path atomically (temporary file and rename), so a
// daemon that reloads on change never reads half a file.
func writeFile(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
