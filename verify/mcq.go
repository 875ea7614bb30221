package verify

import (
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/benchgate/benchgate/benchmark"
	"github.com/benchgate/benchgate/extract"
	"github.com/benchgate/benchgate/submission"
)

// mcq checks a multiple-choice scores.json: ids, that each row's verdict
// follows from its answer, and that the answer is what the benchmark's
// extraction policy reads in the response.
func (c *check) mcq(b *benchmark.Benchmark, rows []submission.MCQRow) {
	file := c.file(submission.ScoresFile)
	policy, err := extract.Lookup(b.Entry.Extraction)
	if err != nil {
		c.errorf("benchmark.extraction", benchmark.RegistryFile, b.Entry.Line, "", "benchmark %q: %v", b.Entry.Key, err)
		return
	}
	seen := c.ids(b, file, len(rows), func(i int) (string, int) { return rows[i].ID, rows[i].Line })
	reads := extractAll(policy, rows)
	out := newMCQOutcomes(b.Questions())
	c.res.Outcomes = out

	var answered, correct, disputes, unverifiable, parseFailures, empty, length, errs, noText, latencyN int
	var latency float64
	for i := range rows {
		row := &rows[i]
		qi, ok := seen[i]
		if !ok {
			continue
		}
		it := &b.Items[qi]
		key := it.Key()
		if row.Answer != "" {
			answered++
		}
		isCorrect := row.Answer == key
		if isCorrect {
			correct++
		}
		if row.Answer != "" {
			out.Letters[qi] = row.Answer[0]
		}
		out.Correct[qi] = isCorrect
		if row.Correct != isCorrect {
			shown := row.Answer
			if shown == "" {
				shown = "null"
			}
			c.errorf("mcq.correct", file, row.Line, row.ID, "correct is %t but answer %s %s the key %s; correct must be (answer == key)", row.Correct, shown, map[bool]string{true: "equals", false: "is not"}[isCorrect], key)
		}
		if strings.TrimSpace(row.Response) == "" {
			noText++
		}
		switch {
		case row.FinishReason == "error" || row.Error != "":
			errs++
		case row.Response == "" || row.FinishReason == "empty":
			empty++
		}
		if row.FinishReason == "length" {
			length++
		}
		if row.LatencyMS != nil {
			latency += *row.LatencyMS
			latencyN++
		}
		got := reads[i]
		cut := row.Truncated && !got.Final
		// A response the source stored cut short, whose stored text
		// decides no letter, is unverifiable, not a parse failure: the
		// letter may have been in the part not stored.
		if got.Letter == "" && row.Response != "" && row.FinishReason != "error" && row.Error == "" && !cut {
			parseFailures++
		}
		if cut {
			// The stored text was cut where more text could change the
			// reading: what the full text said cannot be known, so this row
			// is evidence neither way.
			unverifiable++
			out.Unverifiable[qi] = true
			continue
		}
		if got.Letter == row.Answer {
			continue
		}
		disputes++
		c.errorf("mcq.dispute", file, row.Line, row.ID, "answer is %s but the %s policy reads %s in the response%s; the answer must be what the benchmark's extraction reads (re-run the extraction rather than editing answers)", letterOrNull(row.Answer), policy.Name(), letterOrNull(got.Letter), rule(got.Pattern))
	}
	if unverifiable > 0 {
		n := b.Questions()
		rate := float64(unverifiable) / float64(max(n, 1))
		limit := UnverifiableReviewRate(b, c.v.opts)
		msg := "%d of %d responses were truncated before storing and their letter cannot be decided from the stored text"
		if rate > limit {
			c.review = true
			c.warnf(codeUnverifiable, file, 0, "", msg+" (%.1f%%, above the %s that benchmark %q lets go unchecked without review); a maintainer can accept it after review with `benchgate accept %s --reason TEXT`, which records the decision for this version of the submission", unverifiable, n, 100*rate, percent(limit), b.Entry.Key, c.dir)
		} else {
			c.warnf(codeUnverifiable, file, 0, "", msg, unverifiable, n)
		}
	}
	c.mostlyEmpty(file, noText, b.Questions(), "responses", "the letter is read from the response only, so an answer left in the reasoning field, a reply cut at the token limit or a failed call counts as wrong; generate again with the same --output (failed calls and replies cut before any answer are retried), with a larger --max-tokens or the endpoint's reasoning parser off")
	s := &c.res.Summary
	s.Questions = new(b.Questions())
	s.Answered = new(answered)
	s.Correct = new(correct)
	s.Accuracy = ratio(correct, b.Questions())
	s.Disputes = new(disputes)
	s.Unverifiable = new(unverifiable)
	s.ParseFailures = new(parseFailures)
	s.EmptyResponses = new(empty)
	s.LengthFinishes = new(length)
	s.Errors = new(errs)
	if latencyN > 0 {
		mean := latency / float64(latencyN)
		if math.IsInf(mean, 0) {
			// Latencies near the float64 maximum overflow the sum; a
			// running mean stays finite, and JSON cannot hold +Inf.
			mean = 0
			k := 0
			for i := range rows {
				if _, ok := seen[i]; ok && rows[i].LatencyMS != nil {
					l := rows[i].LatencyMS
					k++
					mean += (*l - mean) / float64(k)
				}
			}
		}
		s.MeanLatencyMS = new(mean)
	}
}

// codeUnverifiable: some letters cannot be verified; above the
// benchmark's UnverifiableReviewRate, the submission needs review.
const codeUnverifiable = "mcq.unverifiable"

// UnverifiableReviewRate is the share of b's questions whose letter may be
// unverifiable without review: the registry's unverifiable_review_rate,
// or o's ReviewRate (5% by default) when it sets none.
func UnverifiableReviewRate(b *benchmark.Benchmark, o Options) float64 {
	if r := b.Entry.UnverifiableReviewRate; r != nil {
		return *r
	}
	return o.withDefaults().ReviewRate
}

// percent writes a share as a percentage with no more digits than it has
// (up to three decimals: 0.07 is 7%, not 7.000000000000001%).
func percent(f float64) string {
	return strconv.FormatFloat(math.Round(100_000*f)/1000, 'f', -1, 64) + "%"
}

func letterOrNull(l string) string {
	if l == "" {
		return "null"
	}
	return l
}

func rule(pattern string) string {
	if pattern == "" {
		return " (no rule matched)"
	}
	return " (rule " + pattern + ")"
}

// extractAll reads every response, spreading large submissions over the
// available cores.
func extractAll(p extract.Policy, rows []submission.MCQRow) []extract.Result {
	out := make([]extract.Result, len(rows))
	workers := runtime.GOMAXPROCS(0)
	const minChunk = 256
	if workers < 2 || len(rows) < 2*minChunk {
		for i := range rows {
			out[i] = p.Extract(rows[i].Response)
		}
		return out
	}
	chunk := (len(rows) + workers - 1) / workers
	var wg sync.WaitGroup
	for start := 0; start < len(rows); start += chunk {
		end := min(start+chunk, len(rows))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := start; i < end; i++ {
				out[i] = p.Extract(rows[i].Response)
			}
		}()
	}
	wg.Wait()
	return out
}
