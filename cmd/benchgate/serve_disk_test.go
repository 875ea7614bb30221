package main

import (
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/prcheck"
	"github.com/benchgate/benchgate/internal/syncbuf"
)

// smallDisk mounts a tmpfs of size bytes for the test: a real file system
// that really fills up. It needs root (CAP_SYS_ADMIN); .ci/run has it.
func smallDisk(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", fmt.Sprintf("size=%d", size), "tmpfs", dir).CombinedOutput()
	if err != nil {
		t.Skipf("a full disk needs a small file system, and mounting a tmpfs failed (run as root, as .ci/run does): %v: %s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fill writes a file until the file system has no space left.
func fill(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("filling the disk: %v", err)
			}
			return
		}
	}
}

// TestServeQueueDiskFull runs the App with its queue database on a small
// file system and fills it. Deliveries the queue cannot store are
// refused (5xx, so GitHub shows them as failed and they can be
// redelivered) rather than acknowledged and lost; the App keeps running;
// once space is freed, redeliveries are taken, and every pull request
// ends with exactly one check run.
func TestServeQueueDiskFull(t *testing.T) {
	disk := smallDisk(t, 8<<20)
	var logs syncbuf.Buffer
	a := startAppWith(t, appOptions{logs: &logs, edit: func(a *app, cfg *bot.Config) {
		cfg.DatabaseURL = "sqlite:" + filepath.Join(disk, "queue.db")
	}})
	head := func(n int) string { return strings.Repeat(fmt.Sprint(n%10), 40) }
	a.pr(20, head(20), a.scores)
	a.deliver("pull_request", "disk-20", prEvent("opened", 20, head(20)))
	a.waitFor("the first check run", func() bool { return len(a.runs(prcheck.CheckName, head(20))) == 1 })

	fill(t, filepath.Join(disk, "filler"))
	const prs = 30
	var refused, taken []int
	for n := 21; n < 21+prs; n++ {
		h := fmt.Sprintf("%040d", n)
		a.pr(n, h, a.scores)
		switch code := signedRequest(t, a.addr, "pull_request", fmt.Sprint("disk-", n), prEvent("opened", n, h), a.secret); {
		case code == http.StatusAccepted:
			taken = append(taken, n)
		case code >= 500:
			refused = append(refused, n)
		default:
			t.Fatalf("PR %d on a full disk: status %d", n, code)
		}
	}
	if len(refused) == 0 {
		t.Fatalf("all %d deliveries were taken on a full disk: the disk did not fill", prs)
	}
	if !strings.Contains(logs.String(), "disk is full") {
		t.Errorf("the refusals were not for a full disk; logs:\n%s", logs.String())
	}
	t.Logf("on a full disk: %d deliveries refused, %d taken (room left in the write-ahead log)", len(refused), len(taken))
	if resp, err := http.Get("http://" + a.addr + "/healthz"); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the App died on a full disk: %v", err)
	}

	// Space is freed; GitHub's redelivery of the refused deliveries is
	// taken, and every pull request is verified once.
	if err := os.Remove(filepath.Join(disk, "filler")); err != nil {
		t.Fatal(err)
	}
	for _, n := range refused {
		if code := signedRequest(t, a.addr, "pull_request", fmt.Sprint("disk-", n), prEvent("opened", n, fmt.Sprintf("%040d", n)), a.secret); code != http.StatusAccepted {
			t.Errorf("redelivery of PR %d after space was freed: %d", n, code)
		}
	}
	a.waitFor("a check run on every pull request", func() bool {
		for n := 21; n < 21+prs; n++ {
			if len(a.runs(prcheck.CheckName, fmt.Sprintf("%040d", n))) == 0 {
				return false
			}
		}
		return true
	})
	for n := 21; n < 21+prs; n++ {
		if r := a.runs(prcheck.CheckName, fmt.Sprintf("%040d", n)); len(r) != 1 || r[0].Conclusion != "success" {
			t.Errorf("PR %d: %d check runs (want 1)", n, len(r))
		}
	}
}
