package bot

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// formBody encodes a JSON payload as GitHub does for a hook whose content
// type is application/x-www-form-urlencoded.
func formBody(json string) string { return url.Values{"payload": {json}}.Encode() }

// TestWebhookFormEncoded: a hook may deliver a form (payload=<the JSON,
// URL-encoded>), signed as sent. Such a delivery queues what its JSON
// asks for; one signed otherwise, or without exactly one payload field,
// is refused.
func TestWebhookFormEncoded(t *testing.T) {
	const form = "application/x-www-form-urlencoded"
	sign := func(b string) string { return Sign(secret, []byte(b)) }
	for _, tt := range []struct {
		name, contentType, body, sig string
		want                         int
	}{
		{"JSON", "application/json", prOpened, sign(prOpened), http.StatusAccepted},
		{"form", form, formBody(prOpened), sign(formBody(prOpened)), http.StatusAccepted},
		{"form with a charset", form + "; charset=utf-8", formBody(prOpened), sign(formBody(prOpened)), http.StatusAccepted},
		{"form beside another field", form, "zen=keep+it&" + formBody(prOpened), sign("zen=keep+it&" + formBody(prOpened)), http.StatusAccepted},
		{"form, %20 for spaces", form, strings.ReplaceAll(formBody(prOpened), "+", "%20"), sign(strings.ReplaceAll(formBody(prOpened), "+", "%20")), http.StatusAccepted},
		{"form signed over its JSON, not as sent", form, formBody(prOpened), sign(prOpened), http.StatusUnauthorized},
		{"form without a payload field", form, "other=" + url.QueryEscape(prOpened), sign("other=" + url.QueryEscape(prOpened)), http.StatusBadRequest},
		{"form with two payload fields", form, formBody(prOpened) + "&" + formBody(prOpened), sign(formBody(prOpened) + "&" + formBody(prOpened)), http.StatusBadRequest},
		{"form with a broken escape", form, "payload=%7", sign("payload=%7"), http.StatusBadRequest},
		{"JSON sent as a form", form, prOpened, sign(prOpened), http.StatusBadRequest},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q := &memQueue{}
			h := &Webhook{Secrets: [][]byte{secret}, Queue: q, Log: quietLog()}
			req := httptest.NewRequest(http.MethodPost, "/webhook", strings.NewReader(tt.body))
			req.Header.Set("Content-Type", tt.contentType)
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", "d")
			req.Header.Set("X-Hub-Signature-256", tt.sig)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Fatalf("status %d %q, want %d", rec.Code, rec.Body, tt.want)
			}
			if tt.want == http.StatusAccepted && (len(q.jobs) != 1 || q.jobs[0].PR != 12 || q.jobs[0].HeadSHA != "abc123") {
				t.Errorf("jobs %+v, want the verification of PR 12 at abc123", q.jobs)
			}
		})
	}
}

// FuzzFormPayload: the payload field is read as url.ParseQuery reads it,
// and refused when that refuses the form.
func FuzzFormPayload(f *testing.F) {
	f.Add("payload=" + url.QueryEscape(prOpened))
	f.Add("a=1&payload=%7B%7D&b")
	f.Add("payload=%zz")
	f.Add("payload=1;x=2")
	f.Add("payload=a&payload=b")
	f.Add("p%61yload=+%2B")
	f.Fuzz(func(t *testing.T, form string) {
		if strings.Count(form, "&") > 1000 {
			t.Skip("url.ParseQuery limits the number of fields")
		}
		got, err := formPayload([]byte(form))
		vals, perr := url.ParseQuery(form)
		switch {
		case perr != nil:
			if err == nil {
				t.Fatalf("formPayload(%q) = %q; url.ParseQuery refuses it: %v", form, got, perr)
			}
		case len(vals["payload"]) != 1:
			if err == nil {
				t.Fatalf("formPayload(%q) = %q with %d payload fields", form, got, len(vals["payload"]))
			}
		case err != nil || string(got) != vals.Get("payload"):
			t.Fatalf("formPayload(%q) = %q, %v; want %q", form, got, err, vals.Get("payload"))
		}
	})
}
