package fakegithub

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// etag is the strong entity tag of an answer: a digest of the credential
// it was given to and of its body, not of its headers, so that a page
// whose items are unchanged keeps its tag even when its Link header would
// differ, while another token (a renewed one) gets another tag, as on
// GitHub.
func etag(auth string, body []byte) string {
	h := sha256.New()
	h.Write([]byte(auth))
	h.Write([]byte{0})
	h.Write(body)
	sum := h.Sum(nil)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// noneMatch reports whether the If-None-Match field lines name tag, by the
// weak comparison RFC 9110 §13.1.2 prescribes for If-None-Match: W/"x"
// and "x" match each other, and "*" matches any current representation.
// A malformed list matches nothing from the point where it goes wrong, so
// that a bad header costs a full answer, never a wrong 304.
func noneMatch(fields []string, tag string) bool {
	want := strings.TrimPrefix(tag, "W/")
	for _, f := range fields {
		if strings.TrimSpace(f) == "*" {
			return true
		}
		for {
			f = strings.TrimLeft(f, " \t,")
			if f == "" {
				break
			}
			f = strings.TrimPrefix(f, "W/")
			if !strings.HasPrefix(f, `"`) {
				break
			}
			end := strings.IndexByte(f[1:], '"')
			if end < 0 {
				break
			}
			if f[:end+2] == want {
				return true
			}
			f = f[end+2:]
		}
	}
	return false
}

// notModifiedHeader trims a 200 answer's header to what its 304 carries:
// no body fields, and no Link either. RFC 9110 §15.4.5 does not require
// one, and GitHub has been seen to answer 304 without the next link a page
// gained; a client must not learn of a new page from a 304.
func notModifiedHeader(h http.Header) {
	for _, k := range []string{"Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding", "Link"} {
		h.Del(k)
	}
}
