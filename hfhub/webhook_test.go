package hfhub

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/benchgate/benchgate/internal/fakehub"
)

const examples = "../internal/fakehub/testdata/examples/"

// fieldSet is the set of fields a raw payload holds: the paths of its
// non-nil pointers, by JSON name.
func fieldSet(v reflect.Value, prefix string, out map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		out[prefix] = true
		fieldSet(v.Elem(), prefix, out)
	case reflect.Struct:
		for i := range v.NumField() {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			p := name
			if prefix != "" {
				p = prefix + "." + name
			}
			fieldSet(v.Field(i), p, out)
		}
	case reflect.Slice:
		if v.Len() > 0 && v.Type().Elem().Kind() != reflect.Uint8 {
			out[prefix] = true
		}
		for i := range v.Len() {
			fieldSet(v.Index(i), prefix+"[]", out)
		}
	}
}

func rawFields(t *testing.T, body []byte) map[string]bool {
	t.Helper()
	var r rawWebhook
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	fieldSet(reflect.ValueOf(&r).Elem(), "", out)
	return out
}

// TestExamplesAndTheFakeReadAlike decodes the Hub's documented example
// payloads (hf-hub.md §3.3) and the fake Hub's deliveries for the same
// events into the same raw type, and compares the fields each fills.
func TestExamplesAndTheFakeReadAlike(t *testing.T) {
	h := fakehub.New(t)
	owner, alice := h.AddUser("owner"), h.AddUser("alice")
	h.AddToken("hf_alice", alice, fakehub.RoleWrite)
	h.CreateDataset(ds, owner, false, map[string]fakehub.File{"README.md": {Content: []byte("x")}})
	var mu sync.Mutex
	var got [][]byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, b)
		mu.Unlock()
	}))
	defer srv.Close()
	h.AddWebhook(srv.URL, "s", fakehub.WebhookOptions{}, ds)
	h.OpenPR(ds, alice, "Add my-model", "description", submission)
	c, _ := New(Config{Endpoint: h.URL, Token: "hf_alice"})
	if err := c.SetStatus(t.Context(), ds, 1, StatusClosed, ""); err != nil {
		t.Fatal(err)
	}
	for i, tc := range []struct {
		file string
		want func(w *Webhook) bool
	}{
		{"discussion-create-pr.json", func(w *Webhook) bool {
			return w.Broad() == ScopeDiscussion && w.Action == "create" && w.Discussion.IsPullRequest && w.Discussion.Status == StatusOpen &&
				w.Comment != nil && !w.Comment.Hidden && w.Discussion.Base == "refs/heads/main"
		}},
		{"repo-content-updated-refs.json", func(w *Webhook) bool {
			return w.Scope == ScopeRepoContent && len(w.UpdatedRefs) == 1 && PRRef(w.UpdatedRefs[0].Ref) > 0 &&
				w.UpdatedRefs[0].Old == "" && w.UpdatedRefs[0].New != "" && w.Repo.HeadSha != ""
		}},
		{"discussion-update-status.json", func(w *Webhook) bool {
			return w.Scope == ScopeDiscussion && w.Action == "update" && w.Discussion.Status == StatusClosed && w.Comment == nil
		}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ex, err := os.ReadFile(examples + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			for name, body := range map[string][]byte{"example": ex, "fake": got[i]} {
				w, err := ParseWebhook(body)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !tc.want(w) {
					t.Errorf("%s read as %+v", name, w)
				}
			}
			want, have := rawFields(t, ex), rawFields(t, got[i])
			if !reflect.DeepEqual(want, have) {
				t.Errorf("fields differ:\nexample %v\nfake    %v", want, have)
			}
		})
	}
}

func TestParseWebhookRefuses(t *testing.T) {
	ex, err := os.ReadFile(examples + "discussion-create-pr.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, from, to, says string }{
		{"version 4", `"version":3`, `"version":4`, "only version 3"},
		{"an unknown action", `"action":"create"`, `"action":"explode"`, "event.action"},
		{"content missing on a shown comment", `"content":"Add co2 emissions information to the model card",`, ``, "needs content"},
		{"no discussion", `"discussion":{`, `"discussionX":{`, "needs discussion.id"},
		{"a bad status", `"status":"open"`, `"status":"weird"`, "status \"weird\""},
		{"a repo name with a path", `"name":"openai-community/gpt2"`, `"name":"../../etc"`, "repo.name"},
		{"trailing data", `"version":3}}`, `"version":3}}{}`, "after the JSON value"},
		{"a stray bracket after the value", `"version":3}}`, `"version":3}}]`, "after the JSON value"},
		{"a string for a number", `"num":19`, `"num":"19"`, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := strings.Replace(string(ex), tc.from, tc.to, 1)
			if body == string(ex) {
				t.Fatalf("%q not in the example", tc.from)
			}
			_, err := ParseWebhook([]byte(body))
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("got %v, want an error saying %q", err, tc.says)
			}
		})
	}
	// A hidden comment without content is fine (hf-hub.md §3.2).
	hidden := strings.Replace(string(ex), `"content":"Add co2 emissions information to the model card","hidden":false`, `"hidden":true`, 1)
	if w, err := ParseWebhook([]byte(hidden)); err != nil || !w.Comment.Hidden {
		t.Errorf("hidden comment: %v", err)
	}
	// A narrower scope than known falls under its parent.
	narrow := strings.Replace(string(ex), `"scope":"discussion"`, `"scope":"discussion.pin"`, 1)
	if w, err := ParseWebhook([]byte(narrow)); err != nil || w.Broad() != ScopeDiscussion {
		t.Errorf("narrow scope: %v", err)
	}
}

func TestVerifySecret(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers []string
		secrets []string
		want    error
	}{
		{"right", []string{"s3cret"}, []string{"s3cret"}, nil},
		{"the second while rotating", []string{"new"}, []string{"old", "new"}, nil},
		{"missing", nil, []string{"s3cret"}, ErrNoSecret},
		{"wrong", []string{"s3cre"}, []string{"s3cret"}, ErrBadSecret},
		{"twice", []string{"s3cret", "s3cret"}, []string{"s3cret"}, ErrBadSecret},
		{"empty against an empty setting", []string{""}, []string{""}, ErrBadSecret},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/webhook/huggingface?secret=s3cret", bytes.NewReader(nil))
			for _, h := range tc.headers {
				r.Header.Add(SecretHeader, h)
			}
			if err := VerifySecret(r, tc.secrets); err != tc.want {
				t.Errorf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPRRef(t *testing.T) {
	for ref, want := range map[string]int{"refs/pr/7": 7, "refs/pr/07": 0, "refs/pr/": 0, "refs/heads/main": 0, "refs/pr/-1": 0, "refs/pr/3/x": 0} {
		if got := PRRef(ref); got != want {
			t.Errorf("PRRef(%q) = %d, want %d", ref, got, want)
		}
	}
}

func FuzzParseWebhook(f *testing.F) {
	for _, name := range []string{"discussion-create-pr.json", "discussion-update-status.json", "repo-content-updated-refs.json"} {
		b, err := os.ReadFile(examples + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"event":{"action":"update","scope":"discussion.comment"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		w, err := ParseWebhook(body)
		if err != nil {
			return
		}
		// What is accepted holds what its scope needs.
		if strings.HasPrefix(w.Broad(), ScopeDiscussion) && w.Discussion == nil {
			t.Fatalf("a %s event without its discussion", w.Scope)
		}
		if w.Broad() == ScopeDiscussionComment && w.Comment == nil {
			t.Fatal("a comment event without its comment")
		}
		for _, u := range w.UpdatedRefs {
			if !strings.HasPrefix(u.Ref, "refs/") || (u.Old == "" && u.New == "") {
				t.Fatalf("ref update %+v", u)
			}
		}
		if _, err := ParseRepo(w.Repo.Name); err != nil {
			t.Fatal(err)
		}
	})
}

// TestDeliveryKeyDedupesReplaysAndRetries: the fake Hub's replay and
// retries carry the same key; the two events of a PR opening do not.
func TestDeliveryKeyDedupesReplaysAndRetries(t *testing.T) {
	h := fakehub.New(t)
	owner, alice := h.AddUser("owner"), h.AddUser("alice")
	h.CreateDataset(ds, owner, false, nil)
	var mu sync.Mutex
	var keys []string
	fail := 1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		defer mu.Unlock()
		keys = append(keys, DeliveryKey(b))
		if fail > 0 {
			fail--
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	h.AddWebhook(srv.URL, "s", fakehub.WebhookOptions{}, ds)
	h.OpenPR(ds, alice, "Add my-model", "", submission)
	if err := h.Replay(h.Deliveries()[1].ID); err != nil {
		t.Fatal(err)
	}
	// A retry of the first, the second, and the replay of the second.
	if len(keys) != 4 || keys[0] != keys[1] || keys[1] == keys[2] || keys[2] != keys[3] {
		t.Errorf("keys %q", keys)
	}
}
