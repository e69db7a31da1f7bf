package proxy

import (
	"bufio"
	"errors"
	"fmt"
)

// The first message of a TLS connection, read before a byte of it is relayed, for the one thing
// a proxy that does not break TLS open can check: the server name the client asks for (SNI).
// A CDN that serves the allowed host and the attacker's on one address picks by that name, so
// a tunnel to an allowed host whose ClientHello names another is domain fronting.

// maxClientHello caps the ClientHello: a few hundred bytes, 2 KiB with post-quantum key
// shares; a handshake message may in principle be 16 MiB.
const maxClientHello = 64 << 10

// TLS numbers (RFC 8446, RFC 6066, draft-ietf-tls-esni).
const (
	recordHandshake   = 22
	handshakeHello    = 1
	extServerName     = 0
	extECH            = 0xfe0d
	serverNameHost    = 0
	maxRecordLength   = 16384 + 2048
	maxServerNameSize = 255
)

// clientHello is what the proxy reads of a ClientHello.
type clientHello struct {
	// serverName is the SNI host name, "" if there is none.
	serverName string
	// ech: the hello carries an encrypted ClientHello, whose real server name the proxy
	// cannot read (the outer one is the ECH service's public name).
	ech bool
	// raw is every byte read: the records, relayed unchanged once the hello is admitted.
	raw []byte
}

// readClientHello reads TLS records from br until they hold a whole ClientHello. Anything that
// is not one — another record type, a record or message over its bound, a malformed field, an
// extension twice, two host names — is an error: a server might read it otherwise.
func readClientHello(br *bufio.Reader) (*clientHello, error) {
	h := &clientHello{}
	var msg []byte
	for {
		hdr, err := br.Peek(5)
		if err != nil {
			return nil, errors.New("the TLS ClientHello ended early")
		}
		n := int(hdr[3])<<8 | int(hdr[4])
		switch {
		case hdr[0] != recordHandshake:
			return nil, fmt.Errorf("a TLS record of type %d before the ClientHello", hdr[0])
		case hdr[1] != 3:
			return nil, errors.New("not a TLS record")
		case n == 0 || n > maxRecordLength:
			return nil, fmt.Errorf("a TLS record of %d bytes", n)
		case len(h.raw)+5+n > maxClientHello:
			return nil, fmt.Errorf("a TLS ClientHello over %d bytes", maxClientHello)
		}
		rec := make([]byte, 5+n)
		if _, err := readFull(br, rec); err != nil {
			return nil, errors.New("the TLS ClientHello ended early")
		}
		h.raw = append(h.raw, rec...)
		msg = append(msg, rec[5:]...)
		if len(msg) < 4 {
			continue
		}
		if msg[0] != handshakeHello {
			return nil, fmt.Errorf("a TLS handshake message of type %d where the ClientHello goes", msg[0])
		}
		size := int(msg[1])<<16 | int(msg[2])<<8 | int(msg[3])
		if size > maxClientHello {
			return nil, fmt.Errorf("a TLS ClientHello of %d bytes", size)
		}
		if len(msg) < 4+size {
			continue
		}
		if len(msg) > 4+size {
			// A second handshake message in the same flight: a client sends nothing after its
			// hello until the server answers.
			return nil, errors.New("bytes after the TLS ClientHello")
		}
		if err := h.parse(msg[4:]); err != nil {
			return nil, err
		}
		return h, nil
	}
}

func readFull(br *bufio.Reader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		m, err := br.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// helloReader reads a ClientHello's fields; the first error latches.
type helloReader struct {
	b   []byte
	err error
}

func (r *helloReader) bytes(n int) []byte {
	if r.err != nil || n > len(r.b) {
		r.err = errors.New("a malformed TLS ClientHello")
		return nil
	}
	out := r.b[:n]
	r.b = r.b[n:]
	return out
}

func (r *helloReader) uint(size int) int {
	v := 0
	for _, c := range r.bytes(size) {
		v = v<<8 | int(c)
	}
	return v
}

// vector is a field prefixed with its length in size bytes.
func (r *helloReader) vector(size int) *helloReader {
	return &helloReader{b: r.bytes(r.uint(size)), err: r.err}
}

func (h *clientHello) parse(body []byte) error {
	r := &helloReader{b: body}
	r.bytes(2 + 32) // legacy_version, random
	r.vector(1)     // legacy_session_id
	r.vector(2)     // cipher_suites
	r.vector(1)     // legacy_compression_methods
	if r.err == nil && len(r.b) == 0 {
		return nil // no extensions (TLS 1.2 and older may omit them): no server name
	}
	exts := r.vector(2)
	if r.err != nil || len(r.b) != 0 {
		return errors.New("a malformed TLS ClientHello")
	}
	seen := map[int]bool{}
	for len(exts.b) > 0 && exts.err == nil {
		typ := exts.uint(2)
		data := exts.vector(2)
		if exts.err != nil || data.err != nil {
			break
		}
		if seen[typ] {
			return fmt.Errorf("the TLS extension %d twice in the ClientHello", typ)
		}
		seen[typ] = true
		switch typ {
		case extECH:
			h.ech = true
		case extServerName:
			names := data.vector(2)
			for len(names.b) > 0 && names.err == nil {
				kind := names.uint(1)
				name := names.vector(2)
				if names.err != nil || name.err != nil {
					break
				}
				if kind != serverNameHost {
					continue
				}
				if h.serverName != "" {
					return errors.New("two server names in the TLS ClientHello")
				}
				if len(name.b) == 0 || len(name.b) > maxServerNameSize {
					return errors.New("a malformed server name in the TLS ClientHello")
				}
				for _, c := range name.b {
					if c <= ' ' || c >= 0x7f {
						return errors.New("a server name that is not an ASCII host name in the TLS ClientHello")
					}
				}
				h.serverName = string(name.b)
			}
			if names.err != nil || len(data.b) != 0 {
				return errors.New("a malformed server name extension in the TLS ClientHello")
			}
		}
	}
	if exts.err != nil {
		return exts.err
	}
	return nil
}
