package synth

import (
	"bytes"
	"fmt"
	"math"
)

// Board generates a leaderboard of many submissions for measuring
// `benchgate leaderboard`: benchmarks multiple-choice benchmarks of
// questions questions each (20 per source book), and submissions
// submissions spread over them in turn, each from a model of its own skill
// (accuracy between 30% and 95%, with easier and harder questions shared
// by all models, as on a real benchmark). Responses are short answer lines,
// as from a model prompted to answer with a letter. Every submission
// verifies as pass.
func Board(submissions, benchmarks, questions int, seed uint64) (Files, error) {
	switch {
	case benchmarks < 1:
		return nil, fmt.Errorf("synth: benchmarks must be at least 1, not %d", benchmarks)
	case questions < 1:
		return nil, fmt.Errorf("synth: questions must be at least 1, not %d", questions)
	case submissions < 0:
		return nil, fmt.Errorf("synth: submissions must not be negative, not %d", submissions)
	}
	r := newRand(seed)
	files := Files{}
	books := max(1, questions/20)
	reg := make([]registryEntry, benchmarks)
	items := make([][]mcqItem, benchmarks)
	ease := make([][]float64, benchmarks)
	for b := range reg {
		key := fmt.Sprintf("synth-mcq-%02d", b+1)
		file := "rubrics/" + key + ".jsonl"
		reg[b] = registryEntry{
			Key:         key,
			Label:       fmt.Sprintf("Synthetic four-choice benchmark %d", b+1),
			Description: fmt.Sprintf("%d synthetic questions from %d synthetic books.", questions, books),
			File:        file,
			Kind:        "mcq",
			Extraction:  "answer-line",
			Prompt:      "answer-line",
		}
		bookList := make([]sourceBook, books)
		for i := range bookList {
			bookList[i] = makeBook(r, i)
		}
		var bench bytes.Buffer
		items[b] = make([]mcqItem, questions)
		ease[b] = make([]float64, questions)
		for i := range items[b] {
			book := i * books / questions
			it := makeItem(r, fmt.Sprintf("b%02d-q%04d", b+1, i+1), bookList[book])
			items[b][i] = it
			ease[b][i] = r.NormFloat64()
			line, err := compact(it)
			if err != nil {
				return nil, err
			}
			bench.Write(line)
		}
		files[file] = bench.Bytes()
	}
	regData, err := encode(reg)
	if err != nil {
		return nil, err
	}
	files[RegistryFile] = regData

	for s := 0; s < submissions; s++ {
		b := s % benchmarks
		skill := 0.3 + 0.65*r.Float64()
		// A logistic model: the model's ability against each question's
		// ease, so that models agree on which questions are hard.
		ability := math.Log(skill / (1 - skill))
		rows := make([]mcqRow, questions)
		for i := range rows {
			it := &items[b][i]
			pRight := 1 / (1 + math.Exp(-(ability + ease[b][i])))
			letter := it.AnswerKey
			if r.Float64() >= pRight {
				letter = string(letters[(it.AnswerIndex+1+r.IntN(3))%4])
			}
			l := letter
			pattern := "answer_line"
			rows[i] = mcqRow{
				ID: it.ID, Response: "ANSWER: " + letter, Answer: &l, Correct: letter == it.AnswerKey, Pattern: &pattern,
				FinishReason: "stop", LatencyMS: float64(200 + r.IntN(2000)), PromptTokens: 120 + r.IntN(60), CompletionTokens: 3,
			}
		}
		scores, err := encode(rows)
		if err != nil {
			return nil, err
		}
		m := newMeta(reg[b].Key, seed)
		m.ModelName = fmt.Sprintf("Synthetic Model %04d", s+1)
		m.CandidateModelID = fmt.Sprintf("synth/model-%04d", s+1)
		metaData, err := encode(m)
		if err != nil {
			return nil, err
		}
		dir := fmt.Sprintf("submissions/model-benchmark/synth-%04d", s+1)
		files[dir+"/meta.json"] = metaData
		files[dir+"/scores.json"] = scores
	}
	return files, nil
}
