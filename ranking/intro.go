package ranking

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// IntroFile is the maintainer's optional title and introduction of the
// board, at the root of the leaderboard repository. A first line "# Title"
// is the board's title; the rest, in markdown, is printed under it.
// `benchgate leaderboard` and the App both read it, through Generate.
const IntroFile = "leaderboard.md"

// MaxIntroBytes caps IntroFile: an introduction, not a document.
const MaxIntroBytes = 64 << 10

// DefaultTitle is the board's title when the maintainer sets none.
const DefaultTitle = "Leaderboard"

// ReadIntro reads IntroFile from the leaderboard tree fsys. Without the
// file, both are empty.
func ReadIntro(fsys fs.FS) (title, intro string, err error) {
	f, err := fsys.Open(IntroFile)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", nil
	}
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", IntroFile, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxIntroBytes+1))
	if err != nil {
		return "", "", fmt.Errorf("%s: %w", IntroFile, err)
	}
	if len(data) > MaxIntroBytes {
		return "", "", fmt.Errorf("%s is over %d KiB; keep the board's introduction short and link to anything longer", IntroFile, MaxIntroBytes>>10)
	}
	if !utf8.Valid(data) {
		return "", "", fmt.Errorf("%s is not UTF-8 text; save it as UTF-8", IntroFile)
	}
	return parseIntro(string(data))
}

// parseIntro splits the file into its title and the rest.
func parseIntro(s string) (title, intro string, err error) {
	s = strings.TrimPrefix(strings.ReplaceAll(s, "\r\n", "\n"), "\ufeff")
	s = strings.TrimLeft(s, "\n")
	first, rest, _ := strings.Cut(s, "\n")
	if h, ok := strings.CutPrefix(first, "# "); ok {
		title = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#"))
		if title == "" {
			return "", "", fmt.Errorf("%s:1: the heading is empty; write the board's title after \"# \", or drop the line", IntroFile)
		}
		s = rest
	}
	return title, strings.TrimSpace(s), nil
}

// boardTitle is the title the outputs print.
func boardTitle(b *Board) string {
	if b.Title != "" {
		return b.Title
	}
	return DefaultTitle
}
