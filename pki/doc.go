// Package pki is the cluster's public key infrastructure: one certificate
// authority per cluster, certificates that carry a role (server or agent),
// and tls.Config builders that reload certificates from disk when their
// files change, so a rotation needs no restart.
//
// It is a top-level package because four others depend on it and none of
// them owns it: raftstore (the Raft stream layer between servers), server
// (the HTTPS API that identifies agents by certificate), server/api (the
// agent's TLS client) and cmd (strata tls and strata cluster start, which
// create the files).
//
// Roles follow Nomad's scheme: the role is a DNS name in the certificate.
// A server certificate names server.strata (and serves and dials, so it
// carries both the server and client extended key usages); an agent
// certificate names agent.strata plus its host, has CN = host and may only
// act as a client. Peers check the role with the standard x509 name check,
// so an agent certificate can never pass where a server is expected.
package pki
