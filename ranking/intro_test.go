package ranking

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadIntro(t *testing.T) {
	tests := []struct {
		name, file         string
		title, intro, fail string
	}{
		{"title and introduction", "# Geoscience models\n\nRun by the society.\n\nRules: [here](https://example.org).\n", "Geoscience models", "Run by the society.\n\nRules: [here](https://example.org).", ""},
		{"windows line ends and a byte-order mark", "\ufeff# Board  #\r\n\r\nIntro.\r\n", "Board", "Intro.", ""},
		{"no heading: all introduction", "Just words.\n", "", "Just words.", ""},
		{"a second-level heading is introduction", "## Not a title\nwords", "", "## Not a title\nwords", ""},
		{"empty heading", "# \nwords", "", "", "leaderboard.md:1: the heading is empty"},
		{"too long", "# T\n" + strings.Repeat("x", MaxIntroBytes), "", "", "is over 64 KiB"},
		{"not UTF-8", "# T\n\xff", "", "", "is not UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			title, intro, err := ReadIntro(fstest.MapFS{IntroFile: {Data: []byte(tt.file)}})
			if tt.fail != "" {
				if err == nil || !strings.Contains(err.Error(), tt.fail) {
					t.Fatalf("error %v, want %q", err, tt.fail)
				}
				return
			}
			if err != nil || title != tt.title || intro != tt.intro {
				t.Errorf("got %q, %q, %v; want %q, %q", title, intro, err, tt.title, tt.intro)
			}
		})
	}
	if title, intro, err := ReadIntro(fstest.MapFS{}); title != "" || intro != "" || err != nil {
		t.Errorf("without the file: %q, %q, %v", title, intro, err)
	}
}

// TestGenerateTitle: the title comes from leaderboard.md, or from the
// option, which wins; every output shows it and the introduction.
func TestGenerateTitle(t *testing.T) {
	fsys := exampleBoard(t)
	fsys[IntroFile] = &fstest.MapFile{Data: []byte("# Reservoir models\n\nKept by the **example** lab.\n")}
	for _, tt := range []struct{ option, want string }{{"", "Reservoir models"}, {"Given on the command line", "Given on the command line"}} {
		g, err := Generate(fsys, GenerateOptions{Title: tt.option})
		if err != nil {
			t.Fatal(err)
		}
		if g.Board.Title != tt.want || g.Board.Introduction != "Kept by the **example** lab." {
			t.Errorf("title %q, introduction %q", g.Board.Title, g.Board.Introduction)
		}
		for file, want := range map[string][]string{
			"LEADERBOARD.md":   {"# " + tt.want + "\n\nKept by the **example** lab.\n"},
			"index.html":       {"<title>" + tt.want + "</title>", "<h1>" + tt.want + "</h1>", "Kept by the <strong>example</strong> lab."},
			"leaderboard.json": {`"title": "` + tt.want + `"`, `"introduction": "Kept by the **example** lab."`},
		} {
			for _, w := range want {
				if !strings.Contains(string(g.Files[file]), w) {
					t.Errorf("%s lacks %q", file, w)
				}
			}
		}
	}
	fsys[IntroFile] = &fstest.MapFile{Data: []byte("# \n")}
	if _, err := Generate(fsys, GenerateOptions{}); err == nil || !strings.Contains(err.Error(), IntroFile) {
		t.Errorf("an unusable %s: %v", IntroFile, err)
	}
}
