package submission

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strings"
)

// The files of a submission folder.
const (
	MetaFile   = "meta.json"
	ScoresFile = "scores.json"
	ReadmeFile = "README.md"
)

// FolderFiles are the files a submission folder may hold, and all it may
// hold: MetaFile and ScoresFile, which it must, and ReadmeFile.
var FolderFiles = []string{MetaFile, ScoresFile, ReadmeFile}

// FolderRule says what a submission folder holds, in words.
const FolderRule = "a submission folder holds only meta.json, scores.json and an optional README.md"

// FolderFile reports whether name, a path within a submission folder, is
// one of FolderFiles.
func FolderFile(name string) bool {
	for _, f := range FolderFiles {
		if name == f {
			return true
		}
	}
	return false
}

// Dir is the folder that holds all submissions.
const Dir = "submissions"

// TemplateDir is the folder under Dir that contributors copy; it is not a
// submission, and a change to it is a change to the leaderboard itself.
const TemplateDir = "_template"

// Track is the leaderboard a submission competes on.
type Track string

// The tracks.
const (
	// ModelTrack compares models, each run with the benchmark's own harness.
	ModelTrack Track = "model-benchmark"
	// HarnessTrack compares harnesses (agents, tools, prompting) around the
	// benchmark's pinned reference model.
	HarnessTrack Track = "harness-benchmark"
)

// Tracks lists the tracks, in display order.
var Tracks = []Track{ModelTrack, HarnessTrack}

// Known reports whether t is one of Tracks.
func (t Track) Known() bool {
	for _, k := range Tracks {
		if t == k {
			return true
		}
	}
	return false
}

// Short is the track's name without "-benchmark": "model" or "harness".
func (t Track) Short() string { return strings.TrimSuffix(string(t), "-benchmark") }

// ParseTrack reads a track given by its name or its short name.
func ParseTrack(s string) (Track, error) {
	for _, t := range Tracks {
		if s == string(t) || s == t.Short() {
			return t, nil
		}
	}
	short := make([]string, len(Tracks))
	for i, t := range Tracks {
		short[i] = t.Short()
	}
	return "", fmt.Errorf("unknown track %q: want %s", s, strings.Join(short, " or "))
}

// SlugPattern is the rule for a submission folder's name.
const SlugPattern = `^[a-z0-9][a-z0-9._-]{0,63}$`

var slugRe = regexp.MustCompile(SlugPattern)

// SlugRule says the slug rule in words, for the people who must follow it.
const SlugRule = "1 to 64 characters from a-z, 0-9, '.', '_' and '-', starting with a letter or digit, with no '..'"

// ValidSlug reports whether s may name a submission folder: SlugPattern,
// and no "..", which GitHub's API clients refuse in a path, so that a
// folder the CLI accepts can always be read by the App.
func ValidSlug(s string) bool { return slugRe.MatchString(s) && !strings.Contains(s, "..") }

// Folder is where one submission lives: submissions/<track>/<slug>. Its
// track and slug are as found; whether they are valid is verification's
// finding (Track.Known, ValidSlug), so that a misplaced folder is reported
// rather than ignored.
type Folder struct {
	Track Track
	Slug  string
}

// NewFolder is the folder of a submission on track t named slug.
func NewFolder(t Track, slug string) Folder { return Folder{Track: t, Slug: slug} }

// String is the folder's path from the repository's root.
// It is joined, not cleaned, so that it is a prefix of every path Locate
// places in the folder.
func (f Folder) String() string { return Dir + "/" + string(f.Track) + "/" + f.Slug }

// ParseFolder reads the path of a submission folder, exactly
// submissions/<track>/<slug>; ok is false for any other path.
func ParseFolder(p string) (f Folder, ok bool) {
	parts := strings.Split(p, "/")
	if len(parts) != 3 || parts[0] != Dir || parts[1] == "" || parts[2] == "" {
		return Folder{}, false
	}
	return Folder{Track: Track(parts[1]), Slug: parts[2]}, true
}

// Locate is the one rule of what belongs to a submission, used by both the
// App (which files a pull request changes) and the CLI (which folders a
// whole-repository verify looks at). p is a file's path from the
// repository's root, slash-separated. It returns the submission folder p
// belongs to; ok is false when p is no part of any submission: outside
// submissions/, directly in it or in a track's folder as a hidden file or
// a README.md, or under the template. Every other path under submissions/
// belongs to the folder its first three elements name, however they are
// spelled, so that verification says what is wrong with it: skipping more
// (every track starting with "_", say) would let a pull request add a
// folder that one front end refuses and the other never looks at.
func Locate(p string) (f Folder, ok bool) {
	parts := strings.SplitN(p, "/", 4)
	if len(parts) < 3 || parts[0] != Dir || parts[1] == TemplateDir || parts[1] == "" || parts[2] == "" {
		return Folder{}, false
	}
	if len(parts) == 3 && (strings.HasPrefix(parts[2], ".") || strings.EqualFold(parts[2], ReadmeFile)) {
		return Folder{}, false
	}
	return Folder{Track: Track(parts[1]), Slug: parts[2]}, true
}

// Discover returns every submission folder in fsys, sorted: each folder
// under a track's folder, and each stray file there that Locate places in
// a submission (usually a submission put one level too high), so that
// verification reports it.
func Discover(fsys fs.FS) ([]string, error) {
	tracks, err := fs.ReadDir(fsys, Dir)
	if err != nil {
		if isNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var dirs []string
	for _, t := range tracks {
		if !t.IsDir() || t.Name() == TemplateDir {
			continue
		}
		tdir := path.Join(Dir, t.Name())
		slugs, err := fs.ReadDir(fsys, tdir)
		if err != nil {
			return nil, err
		}
		for _, s := range slugs {
			if _, ok := Locate(path.Join(tdir, s.Name())); s.IsDir() || ok {
				dirs = append(dirs, path.Join(tdir, s.Name()))
			}
		}
	}
	sort.Strings(dirs)
	return dirs, nil
}

// Select is the submission folders a path names, as given on a command
// line: rel is its path from the repository's root and folder says whether
// it is a folder. A file of a submission names its folder; the root,
// submissions/ and a track's folder name every submission in all beneath
// them (none, when there are none); any other path names itself, for
// verification to say why it is not a submission.
func Select(rel string, folder bool, all []string) []string {
	if !folder {
		if f, ok := Locate(rel); ok {
			return []string{f.String()}
		}
		rel = path.Dir(rel)
	}
	if groups(rel) {
		var out []string
		for _, d := range all {
			if rel == "." || strings.HasPrefix(d, rel+"/") {
				out = append(out, d)
			}
		}
		return out
	}
	if f, ok := Locate(rel); ok {
		return []string{f.String()}
	}
	return []string{rel}
}

// groups reports whether the folder p holds submissions rather than being
// one: the root ".", submissions/ or a track's folder.
func groups(p string) bool {
	if p == "." || p == Dir {
		return true
	}
	rest, ok := strings.CutPrefix(p, Dir+"/")
	return ok && rest != "" && !strings.Contains(rest, "/")
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
