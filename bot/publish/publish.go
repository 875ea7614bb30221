// Package publish regenerates files in a git repository and pushes the
// result as the benchgate GitHub App, retrying when the push loses a race
// with another writer.
package publish

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// CommitMessage is the message of every commit Publish makes.
const CommitMessage = "Update leaderboard (benchgate)"

// DefaultMaxAttempts is used when Config.MaxAttempts is not positive.
const DefaultMaxAttempts = 5

// Config says where and as whom to publish.
type Config struct {
	// RepoURL is the HTTPS clone URL of the repository.
	RepoURL string
	// Token is an installation access token, sent as HTTP basic auth with
	// username "x-access-token".
	Token string
	// Branch is the branch to update, normally the default branch.
	Branch string
	// AuthorName and AuthorEmail identify the App in the commit.
	AuthorName, AuthorEmail string
	// OutDir is the slash-separated folder in the repository that the
	// generated files live under, e.g. "leaderboard". Publish owns it:
	// files there that Regenerate no longer returns are deleted.
	OutDir string
	// MaxAttempts bounds how many times Publish regenerates and pushes
	// when pushes are rejected because the branch moved. Default 5.
	MaxAttempts int
	// PushBranch, when set, receives the commit instead of Branch: the
	// commit is built on Branch's head and force-pushed to PushBranch, a
	// branch the App owns, from which a pull request proposes it (for a
	// protected Branch).
	PushBranch string
	// History, when set, clones the branch's whole history instead of its
	// tip alone, so that Regenerate can read which commit added each
	// submission (ranking.GitHistory).
	History bool
	// Message is the commit's message; empty means CommitMessage.
	Message string
}

// Regenerate computes the generated files from a checked-out tree. It
// returns slash-separated paths relative to Config.OutDir mapped to
// contents. It is called again, on a fresh checkout, after every rejected
// push.
type Regenerate func(ctx context.Context, tree Tree) (map[string][]byte, error)

// Tree is the checkout a Regenerate reads.
type Tree struct {
	Dir  string    // the worktree, a plain directory readable with os.DirFS
	Head string    // the commit checked out
	Time time.Time // its committer's time: when the branch last changed
}

// ErrTooManyAttempts is returned, wrapped, when every attempt was rejected
// because the branch kept moving.
var ErrTooManyAttempts = errors.New("publish: branch kept moving; giving up")

// Publish clones cfg.Branch of cfg.RepoURL, runs regen, writes its output
// under cfg.OutDir and, if that changes the tree, commits as the App and
// pushes. When the push is rejected because someone else pushed first, it
// fetches the new head, resets onto it and regenerates from that tree, up to
// cfg.MaxAttempts times. It returns the pushed commit hash, or "" when the
// output already matched the branch. Errors never contain cfg.Token.
func Publish(ctx context.Context, cfg Config, regen Regenerate) (string, error) {
	outDir := path.Clean(cfg.OutDir)
	if cfg.OutDir == "" || outDir == "." || !filepath.IsLocal(filepath.FromSlash(outDir)) {
		return "", fmt.Errorf("publish: OutDir %q must be a folder inside the repository", cfg.OutDir)
	}
	return run(ctx, cfg, func(ctx context.Context, tree Tree, repo *git.Repository) ([]string, error) {
		files, err := regen(ctx, tree)
		if err != nil {
			return nil, fmt.Errorf("publish: regenerate: %w", err)
		}
		if err := validPaths(files); err != nil {
			return nil, err
		}
		// Rewriting OutDir from scratch is what removes outputs that are
		// no longer generated; whatever the branch holds there, or at a
		// folder on the way (a file, a symbolic link), goes first, from
		// the index as well as from the disk, so that no tree ever holds a
		// path twice.
		if err := clearOutDir(repo, tree.Dir, outDir); err != nil {
			return nil, err
		}
		return writeFiles(tree.Dir, outDir, files)
	})
}

// Write commits files at their slash-separated paths in the repository,
// leaving every other file as it is, with the same clone, author and
// retries as Publish: files is called again on a fresh checkout after
// every rejected push, and returns nothing to write when the branch
// already holds what it should. OutDir is not used.
func Write(ctx context.Context, cfg Config, files Regenerate) (string, error) {
	return run(ctx, cfg, func(ctx context.Context, tree Tree, _ *git.Repository) ([]string, error) {
		out, err := files(ctx, tree)
		if err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		if err := validPaths(out); err != nil {
			return nil, err
		}
		// A folder on the way that the branch holds as a symbolic link
		// would take the write outside the checkout.
		for p := range out {
			parts := strings.Split(p, "/")
			for i := 1; i < len(parts); i++ {
				at := strings.Join(parts[:i], "/")
				if info, err := os.Lstat(filepath.Join(tree.Dir, filepath.FromSlash(at))); err == nil && !info.IsDir() {
					return nil, fmt.Errorf("publish: %s cannot be written: the branch holds %s as a file or link, not a folder", p, at)
				}
			}
		}
		return writeFiles(tree.Dir, ".", out)
	})
}

// stage writes a commit's files into the checkout of tree and returns
// their slash-separated paths in the repository.
type stage func(ctx context.Context, tree Tree, repo *git.Repository) ([]string, error)

func run(ctx context.Context, cfg Config, st stage) (string, error) {
	hash, err := publish(ctx, cfg, st)
	if err != nil {
		return "", scrub(err, cfg.Token)
	}
	return hash, nil
}

func publish(ctx context.Context, cfg Config, st stage) (string, error) {
	if cfg.RepoURL == "" || cfg.Branch == "" {
		return "", errors.New("publish: RepoURL and Branch are required")
	}
	if cfg.AuthorName == "" || cfg.AuthorEmail == "" {
		return "", errors.New("publish: AuthorName and AuthorEmail are required")
	}
	attempts := cfg.MaxAttempts
	if attempts <= 0 {
		attempts = DefaultMaxAttempts
	}

	dir, err := os.MkdirTemp("", "benchgate-publish-*")
	if err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	defer os.RemoveAll(dir)

	auth := &githttp.BasicAuth{Username: "x-access-token", Password: cfg.Token}
	branch := plumbing.NewBranchReferenceName(cfg.Branch)
	remoteBranch := plumbing.NewRemoteReferenceName("origin", cfg.Branch)

	// Only the tip is needed to regenerate and to build a child commit on
	// it, unless the history is asked for.
	depth := 1
	if cfg.History {
		depth = 0
	}
	repo, err := git.PlainCloneContext(ctx, dir, false, &git.CloneOptions{
		URL:           cfg.RepoURL,
		Auth:          auth,
		ReferenceName: branch,
		SingleBranch:  true,
		Depth:         depth,
		Tags:          git.NoTags,
	})
	if err != nil {
		return "", fmt.Errorf("publish: clone %s branch %s: %w", cfg.RepoURL, cfg.Branch, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	head, err := repo.Reference(branch, true)
	if err != nil {
		return "", fmt.Errorf("publish: %w", err)
	}
	base := head.Hash()

	for attempt := 1; ; attempt++ {
		hash, err := commitOnce(ctx, cfg, st, repo, base, dir, wt)
		if err != nil || hash == plumbing.ZeroHash {
			return "", err
		}

		spec := config.RefSpec(branch + ":" + branch)
		if cfg.PushBranch != "" {
			// The App's own branch: always replaced by the newest proposal.
			spec = config.RefSpec("+" + branch + ":" + plumbing.NewBranchReferenceName(cfg.PushBranch))
		}
		pushErr := repo.PushContext(ctx, &git.PushOptions{
			RemoteName: "origin",
			RefSpecs:   []config.RefSpec{spec},
			Auth:       auth,
		})
		if pushErr == nil {
			return hash.String(), nil
		}
		if cfg.PushBranch != "" {
			return "", fmt.Errorf("publish: push to %s: %w", cfg.PushBranch, pushErr)
		}

		// go-git reports a lost race in several shapes (a client-side
		// "non-fast-forward update", "object not found" for a remote head
		// we never fetched, or the server's "fetch first"/"failed to update
		// ref" status), so rather than parse messages we ask the server
		// where the branch is now: if it moved off our base, it was a
		// rejection and we rebuild on the new head.
		current, lsErr := remoteHead(ctx, repo, auth, branch)
		if lsErr != nil || current == base {
			return "", fmt.Errorf("publish: push to %s: %w", cfg.RepoURL, pushErr)
		}
		if attempt >= attempts {
			return "", fmt.Errorf("%w after %d attempts (last push error: %v)", ErrTooManyAttempts, attempt, pushErr)
		}

		err = repo.FetchContext(ctx, &git.FetchOptions{
			RemoteName: "origin",
			RefSpecs:   []config.RefSpec{config.RefSpec("+" + branch + ":" + remoteBranch)},
			Auth:       auth,
			Depth:      depth,
			Tags:       git.NoTags,
			Force:      true,
		})
		if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
			return "", fmt.Errorf("publish: fetch %s: %w", cfg.RepoURL, err)
		}
		ref, err := repo.Reference(remoteBranch, true)
		if err != nil {
			return "", fmt.Errorf("publish: after fetch: %w", err)
		}
		base = ref.Hash()
		// Hard reset moves the local branch onto the new head and drops our
		// unpushed commit; Clean removes files it left untracked.
		if err := wt.Reset(&git.ResetOptions{Commit: base, Mode: git.HardReset}); err != nil {
			return "", fmt.Errorf("publish: reset to %s: %w", base, err)
		}
		if err := wt.Clean(&git.CleanOptions{Dir: true}); err != nil {
			return "", fmt.Errorf("publish: clean worktree: %w", err)
		}
	}
}

// commitOnce stages the commit's files in the worktree and commits if
// anything changed, returning the new commit or the zero hash when the
// tree is unchanged.
func commitOnce(ctx context.Context, cfg Config, st stage, repo *git.Repository, base plumbing.Hash, dir string, wt *git.Worktree) (plumbing.Hash, error) {
	head, err := repo.CommitObject(base)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("publish: %w", err)
	}
	paths, err := st(ctx, Tree{Dir: dir, Head: base.String(), Time: head.Committer.When}, repo)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for _, p := range paths {
		if _, err := wt.Add(p); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("publish: stage %s: %w", p, err)
		}
	}
	status, err := wt.Status()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("publish: status: %w", err)
	}
	changed := false
	for _, st := range status {
		changed = changed || (st.Staging != git.Unmodified && st.Staging != git.Untracked)
	}
	if !changed {
		return plumbing.ZeroHash, nil
	}
	msg := cfg.Message
	if msg == "" {
		msg = CommitMessage
	}
	sig := &object.Signature{Name: cfg.AuthorName, Email: cfg.AuthorEmail, When: time.Now()}
	hash, err := wt.Commit(msg, &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("publish: commit: %w", err)
	}
	return hash, nil
}

// validPaths checks every path before the tree is touched, so that a bad
// one cannot leave it half written.
func validPaths(files map[string][]byte) error {
	for p := range files {
		if p == "" || path.Clean(p) != p || !filepath.IsLocal(filepath.FromSlash(p)) {
			return fmt.Errorf("publish: invalid path %q", p)
		}
	}
	return nil
}

// writeFiles writes files under the folder outDir of the checkout dir
// and returns their sorted paths in the repository.
func writeFiles(dir, outDir string, files map[string][]byte) ([]string, error) {
	outPath := filepath.Join(dir, filepath.FromSlash(outDir))
	paths := make([]string, 0, len(files))
	for p, data := range files {
		full := filepath.Join(outPath, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		if err := os.WriteFile(full, data, 0o644); err != nil {
			return nil, fmt.Errorf("publish: %w", err)
		}
		paths = append(paths, path.Join(outDir, p))
	}
	sort.Strings(paths)
	return paths, nil
}

// remoteHead asks the server where branch points now.
func remoteHead(ctx context.Context, repo *git.Repository, auth transport.AuthMethod, branch plumbing.ReferenceName) (plumbing.Hash, error) {
	remote, err := repo.Remote("origin")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	refs, err := remote.ListContext(ctx, &git.ListOptions{Auth: auth})
	if err != nil {
		return plumbing.ZeroHash, err
	}
	for _, r := range refs {
		if r.Name() == branch {
			return r.Hash(), nil
		}
	}
	return plumbing.ZeroHash, fmt.Errorf("branch %s not found on remote", branch.Short())
}

// scrubbedError hides the token from every rendering of an error while still
// letting callers match sentinels such as transport.ErrAuthenticationRequired.
// It deliberately has no Unwrap, which would hand out the raw message.
type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }

// Is reports whether the hidden error matches target.
func (e *scrubbedError) Is(target error) bool { return errors.Is(e.err, target) }

func scrub(err error, token string) error {
	msg := err.Error()
	if token != "" {
		msg = strings.ReplaceAll(msg, token, "[REDACTED]")
	}
	return &scrubbedError{msg: msg, err: err}
}

// clearOutDir removes from the index and the disk everything at outDir or
// beneath it, and any file or link at a folder on the way to it.
func clearOutDir(repo *git.Repository, dir, outDir string) error {
	idx, err := repo.Storer.Index()
	if err != nil {
		return fmt.Errorf("publish: index: %w", err)
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if e.Name == outDir || strings.HasPrefix(e.Name, outDir+"/") || strings.HasPrefix(outDir, e.Name+"/") {
			continue
		}
		kept = append(kept, e)
	}
	idx.Entries = kept
	if err := repo.Storer.SetIndex(idx); err != nil {
		return fmt.Errorf("publish: index: %w", err)
	}
	// On the disk: a file or link where a folder of outDir belongs.
	parts := strings.Split(outDir, "/")
	for i := 1; i < len(parts); i++ {
		p := filepath.Join(dir, filepath.FromSlash(strings.Join(parts[:i], "/")))
		if info, err := os.Lstat(p); err == nil && !info.IsDir() {
			if err := os.Remove(p); err != nil {
				return fmt.Errorf("publish: %w", err)
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(dir, filepath.FromSlash(outDir))); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	return nil
}
