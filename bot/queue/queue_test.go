package queue

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/benchgate/benchgate/internal/syncbuf"
	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river/rivertype"
)

// testDatabaseEnv names a PostgreSQL URL; PostgreSQL cases skip without it.
const testDatabaseEnv = "BENCHGATE_TEST_DATABASE_URL"

// fastRetry retries failed jobs almost at once so retry tests stay quick.
type fastRetry struct{}

func (fastRetry) NextRetry(*rivertype.JobRow) time.Time { return time.Now().Add(50 * time.Millisecond) }

// target is a database a test's queues open: the same target reopened is the
// same data, which the durability tests rely on.
type target struct {
	url  string
	opts Options
}

type backendCase struct {
	name string
	new  func(t *testing.T) target
}

func backends() []backendCase {
	return []backendCase{
		{"sqlite", func(t *testing.T) target {
			return target{url: "sqlite:" + filepath.Join(t.TempDir(), "queue.db"), opts: testOptions()}
		}},
		{"postgres", func(t *testing.T) target {
			url := os.Getenv(testDatabaseEnv)
			if url == "" {
				t.Skipf("PostgreSQL tests skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", testDatabaseEnv)
			}
			// A schema per test keeps parallel tests (and other packages'
			// tests) on the same database from seeing each other's jobs.
			schema := "bgqueue_" + randomHex(t)
			t.Cleanup(func() {
				ctx := context.Background()
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					t.Errorf("drop schema: %v", err)
					return
				}
				defer conn.Close(ctx)
				if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
					t.Errorf("drop schema: %v", err)
				}
			})
			opts := testOptions()
			opts.Schema = schema
			return target{url: url, opts: opts}
		}},
	}
}

func testOptions() Options {
	return Options{RetryPolicy: fastRetry{}, FetchPollInterval: 100 * time.Millisecond, Heartbeat: 200 * time.Millisecond, TestOnly: true}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

func forEachBackend(t *testing.T, f func(t *testing.T, tg target)) {
	for _, bc := range backends() {
		t.Run(bc.name, func(t *testing.T) {
			t.Parallel()
			f(t, bc.new(t))
		})
	}
}

func open(t *testing.T, tg target) *Queue {
	t.Helper()
	q, err := OpenWithOptions(t.Context(), tg.url, nil, tg.opts)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		if err := q.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return q
}

func stop(t *testing.T, q *Queue) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := q.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
}

func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func mustEnqueue(t *testing.T, q *Queue, a VerifyArgs, want bool) {
	t.Helper()
	got, err := q.EnqueueVerify(t.Context(), a)
	if err != nil {
		t.Fatalf("enqueue %+v: %v", a, err)
	}
	if got != want {
		t.Fatalf("enqueue %+v: inserted = %v, want %v", a, got, want)
	}
}

func count(t *testing.T, q *Queue, kind, state string) int {
	t.Helper()
	s, err := q.Stats(t.Context())
	if err != nil {
		t.Fatalf("stats: %v", err)
	}
	return s.Counts[kind][state]
}

func verify(delivery, head string) VerifyArgs {
	return VerifyArgs{DeliveryID: delivery, Repo: "acme/board", PR: 7, HeadSHA: head, InstallationID: 42}
}

func TestEnqueueRunsOnce(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("d1", "aaa"), true)

		s, err := q.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.Counts[KindVerify]["available"] != 1 {
			t.Fatalf("stats before start = %+v, want one available verify job", s.Counts)
		}
		if s.OldestAvailableAge < 0 || s.OldestAvailableAge > time.Minute {
			t.Fatalf("OldestAvailableAge = %v", s.OldestAvailableAge)
		}

		var runs atomic.Int32
		var got atomic.Value
		err = q.Start(t.Context(), Handlers{Verify: func(_ context.Context, a VerifyArgs) error {
			runs.Add(1)
			got.Store(a)
			return nil
		}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "job completed", 10*time.Second, func() bool { return count(t, q, KindVerify, "completed") == 1 })
		stop(t, q)
		if n := runs.Load(); n != 1 {
			t.Fatalf("handler ran %d times, want 1", n)
		}
		if a := got.Load().(VerifyArgs); a != verify("d1", "aaa") {
			t.Fatalf("handler got %+v", a)
		}
		if s, _ := q.Stats(t.Context()); s.OldestAvailableAge != 0 {
			t.Fatalf("OldestAvailableAge with nothing waiting = %v", s.OldestAvailableAge)
		}
	})
}

func TestDuplicateDelivery(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("same", "aaa"), true)
		mustEnqueue(t, q, verify("same", "aaa"), false)
		// A delivery id is unique across kinds, whatever the args.
		ok, err := q.EnqueueRerun(t.Context(), RerunArgs{DeliveryID: "same", Repo: "acme/board", PR: 7, HeadSHA: "bbb", CommentID: 1})
		if err != nil || ok {
			t.Fatalf("rerun with a seen delivery id: inserted=%v err=%v, want false, nil", ok, err)
		}
		ok, err = q.EnqueueRegenerate(t.Context(), RegenerateArgs{DeliveryID: "same", Repo: "acme/board", AfterSHA: "ccc"})
		if err != nil || ok {
			t.Fatalf("regenerate with a seen delivery id: inserted=%v err=%v, want false, nil", ok, err)
		}
		s, err := q.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Counts) != 1 || s.Counts[KindVerify]["available"] != 1 {
			t.Fatalf("counts = %+v, want a single available verify job", s.Counts)
		}
	})
}

func TestSameHeadOneJob(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("opened", "aaa"), true)
		mustEnqueue(t, q, verify("synchronize", "aaa"), false)
		mustEnqueue(t, q, verify("push2", "bbb"), true)

		rerun := RerunArgs{DeliveryID: "c1", Repo: "acme/board", PR: 7, HeadSHA: "aaa", CommentID: 100}
		for i, want := range []bool{true, false} {
			rerun.DeliveryID = fmt.Sprintf("c%d", i)
			if ok, err := q.EnqueueRerun(t.Context(), rerun); err != nil || ok != want {
				t.Fatalf("rerun #%d: inserted=%v err=%v, want %v", i, ok, err, want)
			}
		}
		regen := RegenerateArgs{Repo: "acme/board", AfterSHA: "fff"}
		for i, want := range []bool{true, false} {
			regen.DeliveryID = fmt.Sprintf("p%d", i)
			if ok, err := q.EnqueueRegenerate(t.Context(), regen); err != nil || ok != want {
				t.Fatalf("regenerate #%d: inserted=%v err=%v, want %v", i, ok, err, want)
			}
		}

		var mu sync.Mutex
		heads := map[string]int{}
		err := q.Start(t.Context(), Handlers{
			Verify: func(_ context.Context, a VerifyArgs) error {
				mu.Lock()
				defer mu.Unlock()
				heads[a.HeadSHA]++
				return nil
			},
			Rerun:      func(context.Context, RerunArgs) error { return nil },
			Regenerate: func(context.Context, RegenerateArgs) error { return nil },
		}, 4)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "jobs completed", 10*time.Second, func() bool { return count(t, q, KindVerify, "completed") == 2 })
		// Work done is not a duplicate: a later request for the same head
		// (a re-run) runs again, while a redelivery of a delivery already
		// taken is refused by its id.
		mustEnqueue(t, q, verify("opened", "aaa"), false)
		mustEnqueue(t, q, verify("rerequested", "aaa"), true)
		waitFor(t, "the re-run", 10*time.Second, func() bool { return count(t, q, KindVerify, "completed") == 3 })
		stop(t, q)
		if heads["aaa"] != 2 || heads["bbb"] != 1 {
			t.Fatalf("runs per head = %v, want two of aaa (the first and the re-run) and one of bbb", heads)
		}
	})
}

func TestFailingHandlerRetried(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("d1", "aaa"), true)
		var attempts atomic.Int32
		err := q.Start(t.Context(), Handlers{Verify: func(context.Context, VerifyArgs) error {
			if attempts.Add(1) < 3 {
				return errors.New("transient")
			}
			return nil
		}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "job completed", 20*time.Second, func() bool { return count(t, q, KindVerify, "completed") == 1 })
		stop(t, q)
		if n := attempts.Load(); n != 3 {
			t.Fatalf("attempts = %d, want 3", n)
		}
	})
}

func TestSupersedeVerify(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("d1", "aaa"), true)
		mustEnqueue(t, q, verify("d2", "bbb"), true)
		mustEnqueue(t, q, verify("d3", "ccc"), true)
		other := verify("d4", "aaa")
		other.PR = 8
		mustEnqueue(t, q, other, true)

		// A job queued after GitHub named the head may be for a newer
		// push: it is kept.
		before := time.Now()
		time.Sleep(5 * time.Millisecond)
		newer := verify("d9", "ddd")
		mustEnqueue(t, q, newer, true)
		n, err := q.SupersedeVerify(t.Context(), "acme/board", 7, "ccc", before)
		if err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Fatalf("cancelled = %d, want 2", n)
		}
		if c := count(t, q, KindVerify, "cancelled"); c != 2 {
			t.Fatalf("cancelled jobs = %d, want 2", c)
		}
		// A cancelled job no longer holds its unique key, so if the PR
		// goes back to an old head it can be verified again.
		mustEnqueue(t, q, verify("d5", "aaa"), true)
		if n, err := q.SupersedeVerify(t.Context(), "acme/board", 7, "ccc", time.Now().Add(time.Second)); err != nil || n != 2 {
			t.Fatalf("second supersede: cancelled=%d err=%v, want 2", n, err)
		}

		var mu sync.Mutex
		var ran []string
		err = q.Start(t.Context(), Handlers{Verify: func(_ context.Context, a VerifyArgs) error {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, fmt.Sprintf("%d/%s", a.PR, a.HeadSHA))
			return nil
		}}, 2)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "jobs completed", 10*time.Second, func() bool { return count(t, q, KindVerify, "completed") == 2 })
		stop(t, q)
		mu.Lock()
		defer mu.Unlock()
		if len(ran) != 2 || !(ran[0] == "7/ccc" || ran[1] == "7/ccc") || !(ran[0] == "8/aaa" || ran[1] == "8/aaa") {
			t.Fatalf("ran %v, want 7/ccc and 8/aaa", ran)
		}
	})
}

// TestDurableAcrossReopen models the process being killed after the 202 but
// before any worker picked the job up.
func TestDurableAcrossReopen(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q1, err := OpenWithOptions(t.Context(), tg.url, nil, tg.opts)
		if err != nil {
			t.Fatal(err)
		}
		mustEnqueue(t, q1, verify("d1", "aaa"), true)
		if err := q1.Close(); err != nil {
			t.Fatal(err)
		}

		q2 := open(t, tg)
		// The delivery id survived too.
		mustEnqueue(t, q2, verify("d1", "zzz"), false)
		var runs atomic.Int32
		if err := q2.Start(t.Context(), Handlers{Verify: func(context.Context, VerifyArgs) error {
			runs.Add(1)
			return nil
		}}, 1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "job completed", 10*time.Second, func() bool { return count(t, q2, KindVerify, "completed") == 1 })
		stop(t, q2)
		if n := runs.Load(); n != 1 {
			t.Fatalf("runs = %d, want 1", n)
		}
	})
}

func TestStopDrainsRunningJob(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("d1", "aaa"), true)
		started, release := make(chan struct{}), make(chan struct{})
		var finished atomic.Bool
		err := q.Start(t.Context(), Handlers{Verify: func(context.Context, VerifyArgs) error {
			close(started)
			<-release
			finished.Store(true)
			return nil
		}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		<-started
		stopped := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			stopped <- q.Stop(ctx)
		}()
		select {
		case err := <-stopped:
			t.Fatalf("Stop returned (%v) while a job was still running", err)
		case <-time.After(300 * time.Millisecond):
		}
		close(release)
		if err := <-stopped; err != nil {
			t.Fatalf("stop: %v", err)
		}
		if !finished.Load() {
			t.Fatal("Stop returned before the running job finished")
		}
		if c := count(t, q, KindVerify, "completed"); c != 1 {
			t.Fatalf("completed = %d, want 1 (the drained job's result must be recorded)", c)
		}
	})
}

// Environment for the crash helper process.
const (
	crashURLEnv    = "BENCHGATE_QUEUE_CRASH_URL"
	crashSchemaEnv = "BENCHGATE_QUEUE_CRASH_SCHEMA"
	crashMarkEnv   = "BENCHGATE_QUEUE_CRASH_MARKER"
)

// TestCrashHelperProcess is not a test: TestCrashMidRunRescued runs the test
// binary again with this test selected to get a worker process it can kill.
func TestCrashHelperProcess(t *testing.T) {
	url := os.Getenv(crashURLEnv)
	if url == "" {
		return
	}
	opts := testOptions()
	opts.Schema = os.Getenv(crashSchemaEnv)
	q, err := OpenWithOptions(context.Background(), url, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	err = q.Start(context.Background(), Handlers{Verify: func(context.Context, VerifyArgs) error {
		if err := os.WriteFile(os.Getenv(crashMarkEnv), []byte("running"), 0o644); err != nil {
			return err
		}
		select {} // hang mid-run until SIGKILL
	}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	select {}
}

// TestCrashMidRunRescued SIGKILLs a worker process in the middle of a job;
// the job stays "running" in the database. Once the dead process has
// missed three heartbeats, the restarted process (now the maintainer)
// makes the job available and it runs again, long before any job timeout.
// Side effects keyed by job args, as an idempotent handler writes them,
// end up applied exactly once.
func TestCrashMidRunRescued(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q1, err := OpenWithOptions(t.Context(), tg.url, nil, tg.opts)
		if err != nil {
			t.Fatal(err)
		}
		mustEnqueue(t, q1, verify("d1", "aaa"), true)
		if err := q1.Close(); err != nil {
			t.Fatal(err)
		}

		marker := filepath.Join(t.TempDir(), "running")
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashHelperProcess$", "-test.v")
		cmd.Env = append(os.Environ(), crashURLEnv+"="+tg.url, crashSchemaEnv+"="+tg.opts.Schema, crashMarkEnv+"="+marker)
		out := &syncbuf.Buffer{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "helper to start the job", 30*time.Second, func() bool {
			_, err := os.Stat(marker)
			return err == nil
		})
		if err := cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait() // killed: the error is expected

		// A long job timeout: only the dead replica's silence can make
		// the job run again within the test's time.
		opts := tg.opts
		opts.JobTimeout = time.Hour
		q2, err := OpenWithOptions(t.Context(), tg.url, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = q2.Close() })
		if c := count(t, q2, KindVerify, "running"); c != 1 {
			t.Fatalf("after the kill: running = %d, want 1 (helper output: %s)", c, out.String())
		}
		var mu sync.Mutex
		effects := map[string]int{} // idempotent: keyed by what the job is about
		var runs atomic.Int32
		err = q2.Start(t.Context(), Handlers{Verify: func(_ context.Context, a VerifyArgs) error {
			runs.Add(1)
			mu.Lock()
			defer mu.Unlock()
			effects[fmt.Sprintf("%s#%d@%s", a.Repo, a.PR, a.HeadSHA)] = 1
			return nil
		}}, 1)
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, "rescued job completed", 30*time.Second, func() bool { return count(t, q2, KindVerify, "completed") == 1 })
		stop(t, q2)
		if n := runs.Load(); n != 1 {
			t.Fatalf("runs after restart = %d, want 1", n)
		}
		if len(effects) != 1 {
			t.Fatalf("effects = %v, want exactly one", effects)
		}
	})
}

// BenchmarkEnqueueVerifySQLite measures one durable (committed, fsynced)
// enqueue, delivery-id bookkeeping included.
func BenchmarkEnqueueVerifySQLite(b *testing.B) {
	q, err := Open(b.Context(), "sqlite:"+filepath.Join(b.TempDir(), "queue.db"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	i := 0
	for b.Loop() {
		i++
		a := VerifyArgs{DeliveryID: fmt.Sprintf("d%d", i), Repo: "acme/board", PR: i, HeadSHA: "aaa"}
		if ok, err := q.EnqueueVerify(b.Context(), a); err != nil || !ok {
			b.Fatalf("enqueue: %v %v", ok, err)
		}
	}
}

// TestNewerVerify: a verification of another head queued after a moment
// is a sign the branch moved; one of the same head, or one queued before,
// is not.
func TestNewerVerify(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		mustEnqueue(t, q, verify("n1", "aaa"), true)
		time.Sleep(5 * time.Millisecond)
		since := time.Now()
		time.Sleep(5 * time.Millisecond)
		mustEnqueue(t, q, verify("n2", "bbb"), true)
		other := verify("n3", "ccc")
		other.PR = 8
		mustEnqueue(t, q, other, true)
		for _, tt := range []struct {
			head string
			want bool
		}{{"aaa", true}, {"bbb", false}, {"zzz", true}} {
			if got, err := q.NewerVerify(t.Context(), "acme/board", 7, tt.head, since); err != nil || got != tt.want {
				t.Errorf("NewerVerify(%s) = %v, %v; want %v", tt.head, got, err, tt.want)
			}
		}
		if got, err := q.NewerVerify(t.Context(), "acme/board", 7, "bbb", since.Add(-time.Hour)); err != nil || !got {
			t.Errorf("NewerVerify(bbb, an hour before) = %v, %v; want true (aaa was queued since)", got, err)
		}
	})
}

// TestWithLock: work under one lock name never overlaps, across the
// Queues of every process (two Queues on one database stand for two
// replicas on PostgreSQL); other names do not wait for it.
func TestWithLock(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		qs := []*Queue{open(t, tg)}
		if strings.HasPrefix(tg.url, "postgres") {
			qs = append(qs, open(t, tg))
		}
		var inside, most atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			q := qs[i%len(qs)]
			wg.Go(func() {
				err := q.WithLock(t.Context(), "comment:acme/board#7", func() error {
					n := inside.Add(1)
					for {
						m := most.Load()
						if n <= m || most.CompareAndSwap(m, n) {
							break
						}
					}
					time.Sleep(10 * time.Millisecond)
					inside.Add(-1)
					return nil
				})
				if err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if most.Load() != 1 {
			t.Errorf("%d at once under one lock", most.Load())
		}
		// Another name is not held up by a held lock.
		done := make(chan error, 1)
		go func() {
			done <- qs[0].WithLock(t.Context(), "comment:acme/board#7", func() error {
				return qs[len(qs)-1].WithLock(t.Context(), "comment:acme/board#8", func() error { return nil })
			})
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("a lock of another name waited for a held one")
		}
	})
}

// TestReproduceJob: a reproduction asked for by one comment is queued
// once, waits under MaxWaiting as reruns do, and reaches its handler with
// the branch its record goes to.
func TestReproduceJob(t *testing.T) {
	forEachBackend(t, func(t *testing.T, tg target) {
		q := open(t, tg)
		a := ReproduceArgs{DeliveryID: "c1", Repo: "acme/board", PR: 7, HeadSHA: "aaa", CommentID: 100, Commenter: "maint", Branch: "main", InstallationID: 3}
		for i, want := range []bool{true, false} {
			a.DeliveryID = fmt.Sprintf("c%d", i)
			if ok, err := q.EnqueueReproduce(t.Context(), a); err != nil || ok != want {
				t.Fatalf("reproduce #%d: inserted=%v err=%v, want %v", i, ok, err, want)
			}
		}
		if n, err := q.Waiting(t.Context()); err != nil || n != 1 {
			t.Fatalf("waiting = %d, %v; want the reproduction counted", n, err)
		}
		var got atomic.Value
		if err := q.Start(t.Context(), Handlers{Reproduce: func(_ context.Context, r ReproduceArgs) error {
			got.Store(r)
			return nil
		}}, 1); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the reproduction", 10*time.Second, func() bool { return count(t, q, KindReproduce, "completed") == 1 })
		stop(t, q)
		if r, _ := got.Load().(ReproduceArgs); r.Branch != "main" || r.Commenter != "maint" || r.CommentID != 100 {
			t.Errorf("handler got %+v", r)
		}
	})
}
