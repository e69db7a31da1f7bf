package secrets

import "strings"

// ProjectSecretName reports whether a base name marks a project secret file (.env, *.pem, id_*).
func ProjectSecretName(name string) bool { return projectSecret(name) != "" }

// StoreRow is one entry of the credential-store table, for the documentation and its test.
type StoreRow struct {
	Path, What, Source string
	Dir, HomeOnly      bool
}

// Stores lists the credential-store table: each store's path (home-relative unless it starts
// with /), what it holds and where its location is documented. ~/.ssh's private keys and
// /etc/ssh's host keys are matched by rule and listed last.
func Stores() []StoreRow {
	out := make([]StoreRow, 0, len(stores)+2)
	for _, s := range stores {
		p := strings.Join(s.elems, "/")
		if s.elems[0] == "/" {
			p = "/" + strings.Join(s.elems[1:], "/")
		} else {
			p = "~/" + p
		}
		out = append(out, StoreRow{Path: p, What: s.what, Source: s.source, Dir: s.dir, HomeOnly: s.home})
	}
	return append(out, StoreRow{Path: "~/.ssh/* (but *.pub, known_hosts, config, authorized_keys)", What: "SSH private keys", Source: sshSource},
		StoreRow{Path: "/etc/ssh/ssh_host_*_key", What: "SSH host private keys", Source: sshSource})
}
