package bot

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// FuzzRoute: any payload under any event either is refused with an error
// or asks for well-formed jobs; it never panics.
func FuzzRoute(f *testing.F) {
	f.Add("pull_request", prOpened)
	f.Add("pull_request", `{"action": "edited", "installation": {"id": 7}, "repository": {"full_name": "geo/board"}, "changes": {"base": {"ref": {"from": "old"}, "sha": {"from": "b0"}}}, "pull_request": {"number": 3, "state": "open", "updated_at": "2026-05-01T10:00:00Z", "head": {"sha": "h"}, "base": {"ref": "main", "sha": "b1"}}}`)
	f.Add("issue_comment", `{"action": "created", "installation": {"id": 7}, "repository": {"full_name": "geo/board"}, "issue": {"number": 9, "pull_request": {}}, "comment": {"id": 77, "body": "/benchgate rerun", "author_association": "MEMBER", "user": {"login": "m", "type": "User"}}}`)
	f.Add("check_suite", `{"action": "rerequested", "installation": {"id": 7}, "repository": {"full_name": "geo/board"}, "check_suite": {"head_sha": "h", "pull_requests": [{"number": 5}, {"number": 6}]}}`)
	f.Add("push", `{"ref": "refs/heads/main", "after": "f00d", "installation": {"id": 7}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "commits": [{"added": ["submissions/a/b/meta.json"]}]}`)
	f.Add("push", `{"ref": null, "commits": [null, {"added": [1]}]}`)
	f.Fuzz(func(t *testing.T, event, body string) {
		jobs, err := Route(event, "delivery", []byte(body))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, j := range jobs {
			switch j.Kind {
			case KindVerify, KindRerun, KindRegenerate:
			default:
				t.Fatalf("job of kind %q", j.Kind)
			}
			if !strings.HasPrefix(j.DeliveryID, "delivery") || seen[j.DeliveryID] {
				t.Fatalf("delivery ids %q: each job needs its own, from the delivery's", j.DeliveryID)
			}
			seen[j.DeliveryID] = true
			if j.InstallationID <= 0 {
				t.Fatalf("a job for no installation: %+v", j)
			}
			if j.Kind != KindVerify && j.Kind != KindRegenerate && j.CommentID != 0 && j.WorkKey == "" {
				t.Fatalf("a command without its work key: %+v", j)
			}
			if j.Kind == KindRegenerate && (j.AfterSHA == "" || j.Branch == "") {
				t.Fatalf("regenerate without a commit or branch: %+v", j)
			}
		}
	})
}

// FuzzCommand: a comment commands the App only with a line that is exactly
// "/benchgate rerun" or "/benchgate verify" (spaces aside), and never with
// one it shows as code, hides or quotes: the same comment quoted line by
// line, in a fence none of its lines can close, in an HTML comment or in
// an HTML <blockquote> it does not close asks for nothing.
func FuzzCommand(f *testing.F) {
	for _, s := range []string{"/benchgate rerun", "please /benchgate rerun", "/benchgate  verify\r\n", "/benchgate rerun now", "/BENCHGATE rerun", "\u00a0/benchgate rerun",
		"```\n/benchgate rerun\n```", "~~~~\n~~~\n/benchgate rerun", "    /benchgate rerun", "`\n/benchgate rerun\n`", "<!--\n/benchgate rerun\n-->",
		"a <!--\n/benchgate verify\n-->", "> /benchgate rerun", "> quoted\n/benchgate rerun", "- ```\n  /benchgate rerun", "- a\n  /benchgate rerun", "<pre>\n/benchgate rerun\n</pre>",
		"<blockquote>\n\n/benchgate rerun\n\n</blockquote>", "<q>\n/benchgate rerun\n</q>", "</b>\n\n/benchgate verify",
		"/benchgate accept cut  at 500", "/benchgate accept", "/benchgate accept a `b`", "/benchgate accept a &amp; b", "> /benchgate accept quoted"} {
		f.Add(s)
	}
	// Inputs built to exhaust a parser: deep containers, long runs of
	// delimiters, brackets, tags and comments left open.
	for _, unit := range []string{"> ", "1. ", "- > ", "`", "` ", "[", "[a](", "*a ", "<a ", "<!--", "<b>", "</b>", "\\", "a\n"} {
		f.Add(strings.Repeat(unit, 4096) + "\n/benchgate rerun")
	}
	f.Fuzz(func(t *testing.T, body string) {
		lines := strings.Split(strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\r", "\n"), "\n")
		if kind, arg := ParseCommand(body); kind != "" {
			// The command and its reason are a line's words, as written.
			said := strings.Fields("/benchgate " + string(kind) + " " + arg)
			found := false
			for _, line := range lines {
				if slices.Equal(strings.Fields(line), said) {
					found = true
				}
			}
			if !found {
				t.Fatalf("ParseCommand(%q) = %q, %q without a line that says so", body, kind, arg)
			}
			if kind != KindAccept && arg != "" {
				t.Fatalf("ParseCommand(%q) = %q with an argument %q", body, kind, arg)
			}
		}
		if quoted := "> " + strings.Join(lines, "\n> "); Command(quoted) != "" {
			t.Fatalf("Command(%q) = %q in a quote", quoted, Command(quoted))
		}
		longest := 0
		for _, run := range strings.FieldsFunc(body, func(r rune) bool { return r != '`' }) {
			longest = max(longest, len(run))
		}
		fence := strings.Repeat("`", max(3, longest+1))
		if fenced := fence + "\n" + body + "\n" + fence; Command(fenced) != "" {
			t.Fatalf("Command(%q) = %q in a fence", fenced, Command(fenced))
		}
		if !strings.Contains(strings.ToLower(body), "</blockquote") {
			if quoted := "<blockquote>\n\n" + body; Command(quoted) != "" {
				t.Fatalf("Command(%q) = %q in an HTML blockquote", quoted, Command(quoted))
			}
		}
		if !strings.Contains(body, "-->") {
			if hidden := "<!--\n" + body + "\n-->"; Command(hidden) != "" {
				t.Fatalf("Command(%q) = %q in an HTML comment", hidden, Command(hidden))
			}
		}
	})
}

// FuzzWithFile: any YAML file is read or refused with a message naming
// the file; it never panics.
func FuzzWithFile(f *testing.F) {
	f.Add([]byte("app_id: 77\nwebhook_secret: [a, b]\nqueue_limit: 10\n"))
	f.Add([]byte("app_id: [\n"))
	f.Add([]byte("? [a]\n: b\n"))
	f.Add([]byte("a: &x [*x]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		getenv, err := WithFile(os.Getenv, data, "benchgate.yaml")
		if err != nil {
			if !strings.Contains(err.Error(), "benchgate.yaml") {
				t.Fatalf("error without the file's name: %v", err)
			}
			return
		}
		LoadConfig(getenv, func(string) ([]byte, error) { return nil, os.ErrNotExist })
	})
}
