// Command webhookload measures the App's webhook acknowledgement: it runs
// the real handler (signature check, durable enqueue, reply) on loopback
// with the default SQLite queue, sends signed pull_request deliveries at a
// fixed rate, and reports latency percentiles and whether every delivery
// became exactly one queued job.
//
// With -queue-limit (the App's BENCHGATE_QUEUE_LIMIT; 0 for none),
// deliveries beyond the bound are refused with 503 and counted apart.
//
//	go run ./bench/webhookload [-rate 200] [-duration 30s] [-queue-limit 1000] [-db sqlite:PATH | postgres://…]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/queue"
)

func main() {
	rate := flag.Float64("rate", 200, "deliveries per second")
	duration := flag.Duration("duration", 30*time.Second, "how long to send")
	db := flag.String("db", "", "queue database (default: a fresh SQLite file in a temporary folder)")
	limit := flag.Int("queue-limit", bot.DefaultLimits().QueueWaiting, "jobs that may wait before deliveries are refused with 503 (0: no bound)")
	flag.Parse()
	if err := run(*rate, *duration, *db, *limit); err != nil {
		fmt.Fprintln(os.Stderr, "webhookload:", err)
		os.Exit(1)
	}
}

func run(rate float64, duration time.Duration, db string, limit int) error {
	ctx := context.Background()
	if db == "" {
		dir, err := os.MkdirTemp("", "benchgate-webhookload-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		db = "sqlite:" + filepath.Join(dir, "queue.db")
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	q, err := queue.OpenWithOptions(ctx, db, log, queue.Options{MaxWaiting: limit})
	if err != nil {
		return err
	}
	defer q.Close()
	secret := []byte("load-test-secret")
	hook := &bot.Webhook{Secrets: [][]byte{secret}, Queue: bot.QueueAdapter{Q: q}, Log: log}
	srv := httptest.NewServer(bot.Mux(hook, q, bot.NewMetrics(), log, nil))
	defer srv.Close()

	n := int(rate * duration.Seconds())
	lat := make([]time.Duration, n)
	status := make([]int, n)
	interval := time.Duration(float64(time.Second) / rate)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var wg sync.WaitGroup
	start := time.Now()
	for i := 0; i < n; i++ {
		// Open-loop: each delivery leaves at its time, whatever the
		// previous ones are doing, as GitHub's do.
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := fmt.Sprintf(`{"action": "synchronize", "installation": {"id": 1}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "pull_request": {"number": %d, "head": {"sha": "%040d"}}}`, i%500+1, i)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/webhook", strings.NewReader(body))
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("delivery-%d", i))
			req.Header.Set("X-Hub-Signature-256", bot.Sign(secret, []byte(body)))
			t0 := time.Now()
			resp, err := client.Do(req)
			lat[i] = time.Since(t0)
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status[i] = resp.StatusCode
		}(i)
	}
	wg.Wait()
	elapsed := time.Since(start)
	accepted, refused := 0, 0
	for _, s := range status {
		switch s {
		case http.StatusAccepted:
			accepted++
		case http.StatusServiceUnavailable:
			refused++
		}
	}
	st, err := q.Stats(ctx)
	if err != nil {
		return err
	}
	jobs := 0
	for _, states := range st.Counts {
		for _, c := range states {
			jobs += c
		}
	}
	sorted := append([]time.Duration(nil), lat...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	pct := func(p float64) time.Duration { return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))] }
	fmt.Printf("deliveries: %d sent in %.1f s (%.1f/s), %d acknowledged with 202, %d refused with 503 (queue limit %d)\n", n, elapsed.Seconds(), float64(n)/elapsed.Seconds(), accepted, refused, limit)
	fmt.Printf("latency: p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms\n", ms(pct(0.50)), ms(pct(0.90)), ms(pct(0.99)), ms(sorted[len(sorted)-1]))
	waiting, err := q.Waiting(ctx)
	if err != nil {
		return err
	}
	// Every acknowledged delivery must be a job row (superseded ones
	// included); a refused one was never acknowledged, so it is not lost.
	fmt.Printf("queued jobs: %d, %d of them waiting (acknowledged but not queued: %d)\n", jobs, waiting, accepted-jobs)
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
