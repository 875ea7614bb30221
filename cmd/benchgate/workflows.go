package main

import "strings"

// The workflows init writes. They build benchgate from a pinned commit of
// its source (or install a published version with go install) and never
// run anything a pull request brings: the verify workflow runs on
// pull_request_target from the base branch and reads the pull request's
// files as data (docs/actions.md).

// workflowAction is an action the workflows use, pinned by the full SHA
// of a release's commit: a tag can be moved to other code, a commit
// cannot. The release is named in a comment beside it for people and for
// tools that propose updates.
type workflowAction struct {
	Name, Commit, Release string
}

// workflowActions are the actions the workflows use, each written
// "uses: <Name>@<Commit> # <Release>" where a workflow says @@<Name>@@.
var workflowActions = []workflowAction{
	{"actions/checkout", "3d3c42e5aac5ba805825da76410c181273ba90b1", "v7.0.1"},
	{"actions/setup-go", "b7ad1dad31e06c5925ef5d2fc7ad053ef454303e", "v7.0.0"},
	{"actions/upload-pages-artifact", "fc324d3547104276b827a68afc52ff2a11cc49c9", "v5.0.0"},
	{"actions/deploy-pages", "cd2ce8fcbc39b97be8ca5fce6e763baed58fa128", "v5.0.0"},
}

const verifyWorkflowText = `# Verifies submission pull requests the way the benchgate App does, for a
# leaderboard repository that does not install the App. It runs on
# pull_request_target with the base branch checked out, so the registry,
# the benchmarks, the rules and benchgate itself come from the base branch;
# the pull request's files are read with git show as data, never checked
# out or run. docs/actions.md in benchgate explains it and its limits.
name: benchgate verify
on:
  pull_request_target:
    types: [opened, synchronize, reopened]
permissions:
  contents: read
  pull-requests: read
concurrency:
  group: benchgate-verify-${{ github.event.pull_request.number }}
  cancel-in-progress: true
env:
@@PIN leaderboard.yml@@
jobs:
  verify:
    runs-on: ubuntu-latest
    steps:
      - name: Check out the base branch only
        uses: @@actions/checkout@@
        with:
          ref: ${{ github.event.pull_request.base.sha }}
          fetch-depth: 0
          persist-credentials: false
      - uses: @@actions/setup-go@@
        with:
          go-version: "1.26"
          cache: false
@@INSTALL@@
      - name: Read the pull request's files as data
        env:
          GH_TOKEN: ${{ github.token }}
          HEAD_SHA: ${{ github.event.pull_request.head.sha }}
          BASE_SHA: ${{ github.event.pull_request.base.sha }}
          REPO: ${{ github.repository }}
        run: |
          git -c "http.extraheader=AUTHORIZATION: basic $(printf 'x-access-token:%s' "$GH_TOKEN" | base64 -w0)" \
            fetch --no-tags --quiet origin "$HEAD_SHA"
          git -c core.quotePath=false diff --name-status "$BASE_SHA...$HEAD_SHA" > "$RUNNER_TEMP/pr-files.txt"
          scratch="$RUNNER_TEMP/pr-head"
          mkdir -p "$scratch"
          # Only the submission files are read; the rest is judged by path.
          git diff -z --name-only --diff-filter=d "$BASE_SHA...$HEAD_SHA" -- submissions/ |
            while IFS= read -r -d '' path; do
              mkdir -p "$scratch/$(dirname "$path")"
              if [ "$(git ls-tree "$HEAD_SHA" -- "$path" | cut -d' ' -f1)" = 120000 ]; then
                # A link stays a link, so that benchgate refuses it as the App does.
                ln -s "$(git show "$HEAD_SHA:$path")" "$scratch/$path"
              else
                git show "$HEAD_SHA:$path" > "$scratch/$path"
              fi
            done
      - name: benchgate check-pr
        env:
          GH_TOKEN: ${{ github.token }}
          AUTHOR: ${{ github.event.pull_request.user.login }}
          REPO: ${{ github.repository }}
        run: |
          # A maintainer has write permission or more, as the App asks it;
          # when GitHub does not say, the author is checked as a contributor.
          perm=$(gh api "repos/$REPO/collaborators/$AUTHOR/permission" --jq .permission 2>/dev/null || true)
          maintainer=false
          case "$perm" in admin|maintain|write) maintainer=true ;; esac
          "$RUNNER_TEMP/bin/benchgate" check-pr --root . --files "$RUNNER_TEMP/pr-files.txt" \
            --head "$RUNNER_TEMP/pr-head" --author "$AUTHOR" --maintainer="$maintainer" --format github
`

const leaderboardWorkflowText = `# Regenerates the leaderboard from the default branch's submissions after
# each push and publishes leaderboard/ to GitHub Pages (Settings → Pages →
# Source: GitHub Actions). The build job, which runs benchgate, can only
# read the repository; only the deploy job may publish.
name: benchgate leaderboard
on:
  push:
  workflow_dispatch:
permissions:
  contents: read
concurrency:
  group: pages
  cancel-in-progress: false
env:
@@PIN verify.yml@@
jobs:
  build:
    if: github.ref == format('refs/heads/{0}', github.event.repository.default_branch)
    runs-on: ubuntu-latest
    permissions:
      contents: read
    steps:
      # The whole history: each entry's "added by" link is the commit that
      # added it, which a shallow clone does not have.
      - uses: @@actions/checkout@@
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: @@actions/setup-go@@
        with:
          go-version: "1.26"
          cache: false
@@INSTALL@@
      - name: benchgate leaderboard
        # The board is dated by the commit it is built from (in UTC), so a
        # rebuild of the same commit gives the same pages.
        run: |
          as_of=$(TZ=UTC0 git log -1 --date=short-local --format=%cd HEAD)
          "$RUNNER_TEMP/bin/benchgate" leaderboard --root . --out leaderboard --format all --as-of "$as_of"
      - uses: @@actions/upload-pages-artifact@@
        with:
          path: leaderboard
  deploy:
    needs: build
    runs-on: ubuntu-latest
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{ steps.deployment.outputs.page_url }}
    steps:
      - id: deployment
        uses: @@actions/deploy-pages@@
`

func verifyWorkflow(p pin) string { return fillWorkflow(verifyWorkflowText, p) }

func leaderboardWorkflow(p pin) string { return fillWorkflow(leaderboardWorkflowText, p) }

// installRelease installs a published version; installSource builds the
// pinned commit, fetched alone by its SHA (a commit cannot be moved, and
// nothing else of the repository is needed), and checks that it is the
// one built.
const (
	installRelease = `      - name: Install benchgate
        run: GOBIN="$RUNNER_TEMP/bin" go install "github.com/benchgate/benchgate/cmd/benchgate@${BENCHGATE_VERSION}"
`
	installSource = `      - name: Build benchgate from its pinned commit
        run: |
          src="$RUNNER_TEMP/benchgate-src"
          git init -q "$src"
          git -C "$src" fetch -q --depth 1 "$BENCHGATE_SOURCE" "$BENCHGATE_COMMIT"
          git -C "$src" -c advice.detachedHead=false checkout -q FETCH_HEAD
          test "$(git -C "$src" rev-parse HEAD)" = "$BENCHGATE_COMMIT"
          (cd "$src" && go build -o "$RUNNER_TEMP/bin/benchgate" ./cmd/benchgate)
          "$RUNNER_TEMP/bin/benchgate" version
`
)

// fillWorkflow writes the benchgate pin and the pinned actions into a
// workflow: the line "@@PIN other.yml@@" becomes the env lines naming
// what is built (kept the same in the other workflow), the line
// @@INSTALL@@ the step that builds or installs it.
func fillWorkflow(text string, p pin) string {
	install, env := installRelease, func(other string) string {
		return "  # The benchgate version installed; the same in " + other + ".\n" +
			"  BENCHGATE_VERSION: " + quoteYAML(p.Version) + "\n"
	}
	if p.Commit != "" {
		install, env = installSource, func(other string) string {
			return "  # benchgate is built from this commit of its source; the same in " + other + ".\n" +
				"  BENCHGATE_SOURCE: " + quoteYAML(p.Source) + "\n" +
				"  BENCHGATE_COMMIT: " + quoteYAML(p.Commit) + "\n"
		}
	}
	pairs := []string{"@@INSTALL@@\n", install, "@@PIN verify.yml@@\n", env("verify.yml"), "@@PIN leaderboard.yml@@\n", env("leaderboard.yml")}
	for _, a := range workflowActions {
		pairs = append(pairs, "@@"+a.Name+"@@", a.Name+"@"+a.Commit+" # "+a.Release)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// quoteYAML quotes a value so that YAML reads it as a string (a commit of
// digits alone would be a number). init accepts no value holding a quote
// or a backslash, so none needs escaping.
func quoteYAML(v string) string { return `"` + v + `"` }
