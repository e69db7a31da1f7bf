package retriever

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// FetchOp is one web page to fetch, as the network router (package route) read it from a
// curl, wget or httpie command. Like GitHubOp it crosses from the hook's rewrite to `hookctl
// retrieve fetch --op` as JSON and is checked by Validate on each side, so that what retrieve
// fetches is the URL the judge read, not a second reading of argv. (The worker checks the URL
// again, strictly, before it connects: fetchParseURL.)
type FetchOp struct {
	URL string `json:"url"`
}

// Validate checks what the router admits: one http or https URL with a host.
func (o *FetchOp) Validate() error {
	u, err := url.Parse(o.URL)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return errors.New("the URL to fetch is not one http or https URL with a host")
	}
	return nil
}

// DecodeFetchOp reads a fetch's JSON form (what the hook's rewrite hands `hookctl retrieve
// fetch --op`) as DecodeGitHubOp reads a GitHub operation. Test: TestDecodeFetchOp.
func DecodeFetchOp(text string) (*FetchOp, error) { return decodeOp[FetchOp](text) }

// EncodeFetchOp is DecodeFetchOp's inverse. A URL's & < > stay as written (json.Marshal would
// escape them for HTML), so that the rewritten command shows the URL the agent wrote.
func EncodeFetchOp(op *FetchOp) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(op) // one string: cannot fail
	return strings.TrimSuffix(b.String(), "\n")
}

// maxOpJSON caps an operation's JSON form.
const maxOpJSON = 16 << 10

// decodeOp reads an operation's JSON form strictly: no unknown field, no trailing data, and
// the operation's Validate.
// Why: the judge parsed the command once into the operation; reading it back is a decode and a
// check, not a second parse of an argument grammar.
func decodeOp[T any, P interface {
	*T
	Validate() error
}](text string) (*T, error) {
	if len(text) > maxOpJSON {
		return nil, errors.New("the operation is too long")
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.DisallowUnknownFields()
	var op T
	if err := dec.Decode(&op); err != nil {
		return nil, fmt.Errorf("the operation is not one hookctl reads: %w", err)
	}
	// More() would pass a stray } or ] (it looks for another element): only the end of input
	// ends an operation.
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("the operation is followed by more text")
	}
	if err := P(&op).Validate(); err != nil {
		return nil, err
	}
	return &op, nil
}
