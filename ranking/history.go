package ranking

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/benchgate/benchgate/submission"
)

// History says, by submission folder (submissions/<track>/<slug>), which
// commit and pull request added it to the leaderboard's branch.
type History map[string]Provenance

// addHistory sets each entry's Added from h.
func addHistory(b *Board, h History) {
	for i := range b.Benchmarks {
		for j := range b.Benchmarks[i].Entries {
			e := &b.Benchmarks[i].Entries[j]
			if p, ok := h[e.Path]; ok {
				e.Added = &p
			}
		}
	}
}

// GitHistory reads, from the git repository that holds the leaderboard
// root dir, the commit that added each submission folder now on its
// checked-out branch: walking the branch's first parents from HEAD, the
// newest commit whose tree has the folder and whose first parent's does
// not. On a branch that takes pull requests by merge or squash, that is
// the merge, whose message names the pull request ("Merge pull request
// #12 from …", "Title (#12)"). web is the repository's page, such as
// https://github.com/owner/name, for the links; empty: the page of the
// remote "origin" when it is on github.com, else no links. A root that is
// not in a git repository has no history and no error; a shallow clone
// knows only the folders added after its cut.
func GitHistory(dir, web string) (History, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	repo, err := git.PlainOpenWithOptions(abs, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return History{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the leaderboard's git repository at %s cannot be read: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("the leaderboard's git repository at %s: %w", dir, err)
	}
	rel, err := filepath.Rel(wt.Filesystem.Root(), abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return History{}, nil
	}
	prefix := path.Join(filepath.ToSlash(rel), submission.Dir)
	if web == "" {
		web = originPage(repo)
	}
	head, err := repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return History{}, nil // no commit yet
	}
	if err != nil {
		return nil, fmt.Errorf("the leaderboard's git repository at %s has no readable HEAD: %w", dir, err)
	}
	shallow := map[plumbing.Hash]bool{}
	if hs, err := repo.Storer.Shallow(); err == nil {
		for _, h := range hs {
			shallow[h] = true
		}
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, fmt.Errorf("the leaderboard's git repository at %s: HEAD: %w", dir, err)
	}
	cur, err := folders(c, prefix)
	if err != nil {
		return nil, err
	}
	rest := map[string]bool{}
	for f := range cur {
		rest[f] = true
	}
	h := History{}
	for len(rest) > 0 {
		var parent *object.Commit
		prev := map[string]bool{}
		if c.NumParents() > 0 {
			if shallow[c.Hash] {
				break // the parent is beyond the clone's cut: unknown
			}
			if parent, err = c.Parent(0); err != nil {
				return nil, fmt.Errorf("the leaderboard's git repository at %s: parent of %s: %w", dir, c.Hash, err)
			}
			if prev, err = folders(parent, prefix); err != nil {
				return nil, err
			}
		}
		for f := range rest {
			if cur[f] && !prev[f] {
				h[strings.TrimPrefix(f, strings.TrimSuffix(prefix, submission.Dir))] = provenance(c, web)
				delete(rest, f)
			}
		}
		if parent == nil {
			break
		}
		c, cur = parent, prev
	}
	return h, nil
}

// folders lists the submission folders in a commit's tree, by their path
// from the repository's root.
func folders(c *object.Commit, prefix string) (map[string]bool, error) {
	out := map[string]bool{}
	tree, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", c.Hash, err)
	}
	sub, err := tree.Tree(prefix)
	if errors.Is(err, object.ErrDirectoryNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("commit %s: %s: %w", c.Hash, prefix, err)
	}
	for _, t := range submission.Tracks {
		tt, err := sub.Tree(string(t))
		if err != nil {
			continue // no such track in this commit
		}
		for _, e := range tt.Entries {
			if !e.Mode.IsFile() {
				out[path.Join(prefix, string(t), e.Name)] = true
			}
		}
	}
	return out, nil
}

var (
	mergePR  = regexp.MustCompile(`^Merge pull request #([0-9]+) from `)
	squashPR = regexp.MustCompile(`\(#([0-9]+)\)$`)
)

// provenance is a commit and the pull request its message names.
func provenance(c *object.Commit, web string) Provenance {
	p := Provenance{Commit: c.Hash.String()}
	subject, _, _ := strings.Cut(c.Message, "\n")
	subject = strings.TrimSpace(subject)
	for _, re := range []*regexp.Regexp{mergePR, squashPR} {
		if m := re.FindStringSubmatch(subject); m != nil {
			p.PR, _ = strconv.Atoi(m[1])
			break
		}
	}
	if web != "" {
		p.URL = web + "/commit/" + p.Commit
		if p.PR > 0 {
			p.URL = web + "/pull/" + strconv.Itoa(p.PR)
		}
	}
	return p
}

var githubRemote = regexp.MustCompile(`^(?:https://(?:[^@/]+@)?github\.com/|git@github\.com:|ssh://git@github\.com/)([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+?)(?:\.git)?/?$`)

// originPage is the github.com page of the remote "origin", or "".
func originPage(repo *git.Repository) string {
	r, err := repo.Remote("origin")
	if err != nil || len(r.Config().URLs) == 0 {
		return ""
	}
	return GitHubPage(r.Config().URLs[0])
}

// GitHubPage is the web page of a github.com repository from its clone
// address (https, or ssh as git@github.com:owner/name.git), or "" for
// any other address.
func GitHubPage(remote string) string {
	m := githubRemote.FindStringSubmatch(strings.TrimSpace(remote))
	if m == nil {
		return ""
	}
	return "https://github.com/" + m[1]
}
