package retriever

import (
	"strings"
	"testing"
)

// TestDecodeFetchOp: the JSON form the hook hands `hookctl retrieve fetch --op` decodes to the
// URL encoded, byte for byte (a query's & and a quote included), and nothing else decodes:
// unknown fields, trailing text, a URL that is not http or https with a host.
func TestDecodeFetchOp(t *testing.T) {
	for _, u := range []string{"https://go.dev/doc/", "http://example.com/a?b=c&d=<e>", "https://example.com/it's \"x\"", "https://[::1]:8080/p#f"} {
		text := EncodeFetchOp(&FetchOp{URL: u})
		got, err := DecodeFetchOp(text)
		if err != nil || got.URL != u {
			t.Errorf("%s: %s decoded to %+v, %v", u, text, got, err)
		}
	}
	if text := EncodeFetchOp(&FetchOp{URL: "https://e.com/?a=1&b=2"}); text != `{"url":"https://e.com/?a=1&b=2"}` {
		t.Errorf("encoded as %s", text)
	}
	for _, c := range []struct{ text, err string }{
		{`{"url":"https://e.com/","method":"POST"}`, "unknown field"},
		{`{"url":"https://e.com/"} {"url":"https://f.com/"}`, "followed by more"},
		{`{"url":"https://e.com/"}}`, "followed by more"},
		{`{"url":"file:///etc/passwd"}`, "http or https"},
		{`{"url":"https:///path"}`, "http or https"},
		{`{"url":"-o /tmp/x"}`, "http or https"},
		{`{}`, "http or https"},
		{`"https://e.com/"`, "not one hookctl reads"},
		{`{"url":"https://e.com/` + strings.Repeat("a", 17<<10) + `"}`, "too long"},
	} {
		if _, err := DecodeFetchOp(c.text); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%.60s: %v, want an error containing %q", c.text, err, c.err)
		}
	}
}
