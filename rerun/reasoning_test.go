package rerun

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/benchgate/benchgate/internal/fakeopenai"
)

// TestSpotCheckGradesTheReasoning: rows whose content is empty and whose
// answer is in the reasoning text, as generate writes them for a rubric
// benchmark, are re-graded from that text, as score graded them, not as
// empty answers; an honest submission of them stays consistent.
func TestSpotCheckGradesTheReasoning(t *testing.T) {
	bd := newBoard(t, func(i, truth int, r *rand.Rand) int {
		if truth == 0 {
			return 0
		}
		return truth + noise(r)
	})
	var rows []map[string]any
	if err := json.Unmarshal(bd.fsys[bd.dir+"/scores.json"].Data, &rows); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		r["reasoning"], r["answer_b_source"], r["answer_b"] = r["answer_b"], "reasoning", ""
	}
	data, _ := json.MarshalIndent(rows, "", "  ")
	bd.fsys[bd.dir+"/scores.json"] = &fstest.MapFile{Data: data}

	var mu sync.Mutex
	var empty, graded int
	reply := bd.noisyReply(5, "")
	j := bd.judgeAt(t, fakeopenai.Options{Reply: func(req fakeopenai.Request) fakeopenai.Reply {
		user := req.Messages[len(req.Messages)-1].Content
		mu.Lock()
		if strings.Contains(user, "An answer to Q") {
			graded++
		} else {
			empty++
		}
		mu.Unlock()
		return reply(req)
	}})
	rep := bd.check(t, j, Config{Secret: secret})
	// The other calls grade the calibration fixtures, whose text is the
	// rubric's.
	if rep.Verdict != VerdictConsistent || empty != len(rep.Fixtures) || graded != rep.Calls-len(rep.Fixtures) || graded == 0 {
		t.Errorf("verdict %s (%s); %d calls graded the reasoning text, %d something else, %d fixtures", rep.Verdict, rep.Reason, graded, empty, len(rep.Fixtures))
	}
}
