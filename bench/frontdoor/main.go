// Command frontdoor measures what traffic from anyone on the network costs
// the App's webhook front door. It runs the App's HTTP side (bot.Mux on
// bot.Serve, a SQLite queue, workers that finish each job at once) as a
// child process of its own, sends it one scenario from this process, and
// reads the child's memory from /proc (Linux only):
//
//   - headers: unsigned requests, each with a unique X-GitHub-Event header
//     (60 KB by default); reports the child's RSS, the size of /metrics,
//     how many delivery series it holds and how much was logged.
//
//   - bodies: rounds of concurrent large uploads (24 MB by default) with a
//     well-formed but wrong signature; reports the child's peak RSS and
//     the statuses it answered.
//
//   - probes: signed deliveries at a fixed rate, first alone, then with
//     clients asking /readyz and /metrics (each at -probe-rate, or as fast
//     as answered with 0); reports the deliveries' latency in both phases
//     and how many probes were answered.
//
// Usage:
//
//	go run ./bench/frontdoor -scenario headers [-n 1000] [-header-bytes 61440]
//	go run ./bench/frontdoor -scenario bodies [-n 12] [-body-bytes 25165824] [-rounds 3]
//	go run ./bench/frontdoor -scenario probes [-rate 100] [-duration 20s] [-pollers 16] [-probe-rate 25]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/benchgate/benchgate/bot"
	"github.com/benchgate/benchgate/bot/queue"
)

var secret = []byte("frontdoor-bench-secret")

func main() {
	scenario := flag.String("scenario", "", "headers, bodies or probes")
	n := flag.Int("n", 0, "requests (headers: 1000) or concurrent uploads per round (bodies: 12)")
	headerBytes := flag.Int("header-bytes", 60<<10, "size of each X-GitHub-Event header (headers)")
	bodyBytes := flag.Int64("body-bytes", 24<<20, "size of each upload (bodies)")
	rounds := flag.Int("rounds", 3, "rounds of concurrent uploads (bodies)")
	rate := flag.Float64("rate", 100, "signed deliveries per second (probes)")
	duration := flag.Duration("duration", 20*time.Second, "length of each phase (probes)")
	pollers := flag.Int("pollers", 16, "clients asking /readyz and /metrics in the second phase (probes)")
	probeRate := flag.Float64("probe-rate", 25, "requests per second of each of those clients; 0: as fast as answered (probes)")
	asChild := flag.Bool("child", false, "internal: run the App's front door on the listener inherited as file 3")
	dir := flag.String("dir", "", "internal: the child's folder (queue and log)")
	flag.Parse()
	if *asChild {
		if err := serve(*dir); err != nil {
			fmt.Fprintln(os.Stderr, "frontdoor child:", err)
			os.Exit(1)
		}
		return
	}
	var err error
	switch *scenario {
	case "headers":
		err = run(func(c *child) error { return headers(c, orDefault(*n, 1000), *headerBytes) })
	case "bodies":
		err = run(func(c *child) error { return bodies(c, orDefault(*n, 12), *bodyBytes, *rounds) })
	case "probes":
		err = run(func(c *child) error { return probes(c, *rate, *duration, *pollers, *probeRate) })
	default:
		err = errors.New("-scenario must be headers, bodies or probes")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "frontdoor:", err)
		os.Exit(1)
	}
}

func orDefault(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// serve is the child: the App's HTTP side as serve builds it, with jobs
// that finish at once, until SIGTERM, on the listener its parent opened
// and passed down, so that no other process can take the port between
// its choice and its use.
func serve(dir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	logFile, err := os.Create(filepath.Join(dir, "app.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	log := slog.New(slog.NewJSONHandler(logFile, nil))
	// No bound on the queue: River on SQLite drains about 40 instant jobs
	// a second with 4 workers, so a bound would soon answer deliveries
	// with 503 and no insert, and hide what the probes cost them.
	q, err := queue.OpenWithOptions(ctx, "sqlite:"+filepath.Join(dir, "queue.db"), log, queue.Options{})
	if err != nil {
		return err
	}
	defer q.Close()
	hook := &bot.Webhook{Secrets: [][]byte{secret}, Queue: bot.QueueAdapter{Q: q}, Log: log}
	mux := bot.Mux(hook, q, bot.NewMetrics(), log, nil)
	h := queue.Handlers{
		Verify:     func(context.Context, queue.VerifyArgs) error { return nil },
		Rerun:      func(context.Context, queue.RerunArgs) error { return nil },
		Regenerate: func(context.Context, queue.RegenerateArgs) error { return nil },
	}
	l, err := net.FileListener(os.NewFile(3, "listener"))
	if err != nil {
		return err
	}
	return bot.Serve(ctx, l, mux, q, h, 4, 5*time.Second, log)
}

// child is the App under measurement.
type child struct {
	cmd  *exec.Cmd
	url  string
	dir  string
	http *http.Client
}

func run(scenario func(*child) error) error {
	dir, err := os.MkdirTemp("", "benchgate-frontdoor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := l.Addr().String()
	lf, err := l.(*net.TCPListener).File()
	l.Close() // the child holds its own copy
	if err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	c := &child{cmd: exec.Command(self, "-child", "-dir", dir), url: "http://" + addr, dir: dir,
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 2 * time.Minute}}
	c.cmd.Stderr = os.Stderr
	c.cmd.ExtraFiles = []*os.File{lf}
	err = c.cmd.Start()
	lf.Close()
	if err != nil {
		return err
	}
	defer func() {
		c.cmd.Process.Signal(syscall.SIGTERM)
		c.cmd.Wait()
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(c.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the App did not start: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// Let start-up settle before the first reading.
	time.Sleep(time.Second)
	return scenario(c)
}

// memory reads the child's resident and peak resident set, in MB.
func (c *child) memory() (rss, peak float64) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	if err != nil {
		return -1, -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}

func (c *child) logBytes() int64 {
	fi, err := os.Stat(filepath.Join(c.dir, "app.log"))
	if err != nil {
		return -1
	}
	return fi.Size()
}

// metrics returns /metrics and the number of delivery series in it.
func (c *child) metrics() (int, int, error) {
	resp, err := c.http.Get(c.url + "/metrics")
	if err != nil {
		return 0, 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, 0, err
	}
	series := 0
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "benchgate_webhook_deliveries_total{") {
			series++
		}
	}
	return len(body), series, nil
}

func headers(c *child, n, size int) error {
	rss0, _ := c.memory()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				event := fmt.Sprintf("e%08d", i) + strings.Repeat("x", max(0, size-9))
				req, _ := http.NewRequest(http.MethodPost, c.url+"/webhook", strings.NewReader(`{}`))
				req.Header.Set("X-GitHub-Event", event)
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("d-%d", i))
				code := 0
				if resp, err := c.http.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					code = resp.StatusCode
				}
				mu.Lock()
				statuses[code]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	rss1, _ := c.memory()
	size1, series, err := c.metrics()
	if err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	rss2, _ := c.memory()
	fmt.Printf("headers: %d unsigned requests with a unique %d-byte X-GitHub-Event; statuses %v\n", n, size, statuses)
	fmt.Printf("RSS: %.1f MB before, %.1f MB after, %.1f MB 2 s later\n", rss0, rss1, rss2)
	fmt.Printf("/metrics: %d bytes, %d delivery series; log: %d bytes\n", size1, series, c.logBytes())
	return nil
}

// spaces yields n bytes without holding them.
type spaces struct{ left int64 }

func (s *spaces) Read(p []byte) (int, error) {
	if s.left == 0 {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), s.left))
	for i := range k {
		p[i] = ' '
	}
	s.left -= int64(k)
	return k, nil
}

func bodies(c *child, n int, size int64, rounds int) error {
	rss0, peak0 := c.memory()
	wrong := "sha256=" + strings.Repeat("0", 64)
	statuses := map[string]int{}
	var mu sync.Mutex
	start := time.Now()
	for r := range rounds {
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req, _ := http.NewRequest(http.MethodPost, c.url+"/webhook", &spaces{left: size})
				req.ContentLength = size
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("big-%d-%d", r, i))
				req.Header.Set("X-Hub-Signature-256", wrong)
				status := "error"
				if resp, err := c.http.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					status = strconv.Itoa(resp.StatusCode)
				} else if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) || strings.Contains(err.Error(), "connection reset") || strings.Contains(err.Error(), "broken pipe") {
					// Refused before the upload ended: the App closed
					// the connection after answering.
					status = "closed mid-upload"
				}
				mu.Lock()
				statuses[status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	elapsed := time.Since(start)
	rss1, peak1 := c.memory()
	time.Sleep(2 * time.Second)
	rss2, _ := c.memory()
	fmt.Printf("bodies: %d rounds of %d concurrent %.1f MB uploads, signature well-formed but wrong, in %.1f s; statuses %v\n", rounds, n, float64(size)/(1<<20), elapsed.Seconds(), statuses)
	fmt.Printf("RSS: %.1f MB before (peak so far %.1f MB), %.1f MB after, %.1f MB 2 s later; peak during the uploads %.1f MB\n", rss0, peak0, rss1, rss2, peak1)
	return nil
}

func probes(c *child, rate float64, duration time.Duration, pollers int, probeRate float64) error {
	alone, err := deliveries(c, rate, duration, 0, 0)
	if err != nil {
		return err
	}
	var probed atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range pollers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			path := "/readyz"
			if i%2 == 1 {
				path = "/metrics"
			}
			start := time.Now()
			for k := 0; ; k++ {
				if probeRate > 0 {
					time.Sleep(time.Until(start.Add(time.Duration(float64(k) / probeRate * float64(time.Second)))))
				}
				select {
				case <-stop:
					return
				default:
				}
				if resp, err := c.http.Get(c.url + path); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					probed.Add(1)
				}
			}
		}()
	}
	hammered, err := deliveries(c, rate, duration, pollers, 1)
	close(stop)
	wg.Wait()
	if err != nil {
		return err
	}
	each := "as fast as answered"
	if probeRate > 0 {
		each = fmt.Sprintf("%.0f/s each", probeRate)
	}
	fmt.Printf("probes: signed deliveries at %.0f/s for %s, alone, then with %d clients on /readyz and /metrics, %s (%d probes answered, %.0f/s)\n",
		rate, duration, pollers, each, probed.Load(), float64(probed.Load())/duration.Seconds())
	fmt.Printf("alone:    %s\n", alone)
	fmt.Printf("hammered: %s\n", hammered)
	return nil
}

// deliveries sends signed pull_request deliveries open-loop and describes
// their latency.
func deliveries(c *child, rate float64, duration time.Duration, pollers, phase int) (string, error) {
	n := int(rate * duration.Seconds())
	lat := make([]time.Duration, n)
	status := make([]int, n)
	interval := time.Duration(float64(time.Second) / rate)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"action": "synchronize", "installation": {"id": 1}, "repository": {"full_name": "geo/board", "default_branch": "main"}, "pull_request": {"number": %d, "head": {"sha": "%040d"}}}`, i%500+1, phase*n+i)
			req, _ := http.NewRequest(http.MethodPost, c.url+"/webhook", strings.NewReader(body))
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("delivery-%d-%d", phase, i))
			req.Header.Set("X-Hub-Signature-256", bot.Sign(secret, []byte(body)))
			t0 := time.Now()
			resp, err := c.http.Do(req)
			lat[i] = time.Since(t0)
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			status[i] = resp.StatusCode
		}()
	}
	wg.Wait()
	accepted := 0
	others := map[int]int{}
	for _, s := range status {
		if s == http.StatusAccepted {
			accepted++
		} else {
			others[s]++
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	pct := func(p float64) float64 { return ms(lat[min(len(lat)-1, int(p*float64(len(lat))))]) }
	return fmt.Sprintf("%d sent, %d acknowledged with 202 (others by status, 0 for no answer: %v); p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, max %.1f ms (pollers %d)",
		n, accepted, others, pct(0.5), pct(0.9), pct(0.99), ms(lat[len(lat)-1]), pollers), nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
