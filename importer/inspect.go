package importer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/benchgate/benchgate/benchmark"
)

// inspect_ai writes an evaluation log (EvalLog, https://inspect.aisi.org.uk/eval-logs.html)
// as one JSON document (.json: version, status, eval, plan, results,
// stats and the samples array) or as a zip (.eval) holding header.json
// (the same document without samples), samples/<id>_epoch_<epoch>.json
// (one EvalSample each) and summaries.json. The types below hold the
// fields an import reads; the rest is ignored.

type inspectHeader struct {
	Version *int    `json:"version"`
	Status  *string `json:"status"`
	Eval    *struct {
		Model   *string `json:"model"`
		Task    string  `json:"task"`
		Created string  `json:"created"`
	} `json:"eval"`
}

type inspectSample struct {
	ID     json.RawMessage `json:"id"` // a string or an integer
	Epoch  *int            `json:"epoch"`
	Output *struct {
		Choices []struct {
			Message *struct {
				Content json.RawMessage `json:"content"` // a string, or a list of content parts
			} `json:"message"`
			StopReason string `json:"stop_reason"`
		} `json:"choices"`
		Usage *struct {
			InputTokens  *int `json:"input_tokens"`
			OutputTokens *int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"output"`
	Scores map[string]*struct {
		Value  json.RawMessage `json:"value"`
		Answer *string         `json:"answer"`
	} `json:"scores"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	Attachments map[string]string `json:"attachments"`
}

// inspectPart is one part of a message's content list; only text parts
// are the response (reasoning parts are the model's hidden reasoning).
type inspectPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// inspectLog is one log file read: its model, task, day and samples,
// each with where it was read for messages.
type inspectLog struct {
	file    string
	model   string
	task    string
	date    string // YYYY-MM-DD of eval.created, "" when absent
	samples []located
}

type located struct {
	file string // the log, or the log and its zip entry
	line int    // of the sample in a .json log; 0 in a .eval entry
	s    inspectSample
}

// readInspectLog reads one inspect_ai log, a .json document or a .eval
// zip, from data; file names it in messages and by its extension decides
// the format.
func readInspectLog(file string, data []byte) (*inspectLog, error) {
	if strings.HasSuffix(file, ".eval") || bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		return readInspectEval(file, data)
	}
	return readInspectJSON(file, data)
}

func readInspectJSON(file string, data []byte) (*inspectLog, error) {
	var h inspectHeader
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, jsonError(file, data, 0, "", err)
	}
	log, err := checkHeader(file, h)
	if err != nil {
		return nil, err
	}
	// The samples are decoded one by one to know the line of each.
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {
		return nil, jsonError(file, data, 0, "", err)
	}
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(file, data, 0, "", err)
		}
		if tok != "samples" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, jsonError(file, data, 0, "", err)
			}
			continue
		}
		found = true
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			return nil, inputErrorf(file, 0, "samples", "is not an array of samples")
		}
		for dec.More() {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, jsonError(file, data, 0, "samples", err)
			}
			// The value ends at the offset now; it starts len(raw) before.
			start := dec.InputOffset() - int64(len(raw))
			var s inspectSample
			if err := json.Unmarshal(raw, &s); err != nil {
				return nil, jsonError(file, data, start, "", err)
			}
			log.samples = append(log.samples, located{file: file, line: lineOf(data, start), s: s})
		}
		if _, err := dec.Token(); err != nil { // ]
			return nil, jsonError(file, data, 0, "samples", err)
		}
	}
	if !found {
		return nil, inputErrorf(file, 0, "samples", "missing: the log holds no samples (it was written without them, or by a run that did not finish); import a log written with its samples")
	}
	return log, nil
}

// inspectMaxEntry bounds one decompressed zip entry: a sample of a
// multiple-choice task is kilobytes, and a zip can claim any size.
const inspectMaxEntry = 64 << 20

func readInspectEval(file string, data []byte) (*inspectLog, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, inputErrorf(file, 0, "", "not a zip archive (%v); an inspect_ai .eval log is a zip of header.json and samples/*.json", err)
	}
	var header *zip.File
	var samples []*zip.File
	for _, f := range zr.File {
		switch {
		case f.Name == "header.json":
			header = f
		case strings.HasPrefix(f.Name, "samples/") && path.Ext(f.Name) == ".json":
			samples = append(samples, f)
		}
	}
	if header == nil {
		return nil, inputErrorf(file, 0, "header.json", "missing from the archive: inspect_ai writes it when an evaluation ends, so this run did not finish; import the log of a finished run")
	}
	hdata, err := readEntry(file, header)
	if err != nil {
		return nil, err
	}
	hfile := file + "/" + header.Name
	var h inspectHeader
	if err := json.Unmarshal(hdata, &h); err != nil {
		return nil, jsonError(hfile, hdata, 0, "", err)
	}
	log, err := checkHeader(hfile, h)
	if err != nil {
		return nil, err
	}
	log.file = file
	sort.Slice(samples, func(i, j int) bool { return samples[i].Name < samples[j].Name })
	for _, f := range samples {
		sdata, err := readEntry(file, f)
		if err != nil {
			return nil, err
		}
		var s inspectSample
		if err := json.Unmarshal(sdata, &s); err != nil {
			return nil, jsonError(file+"/"+f.Name, sdata, 0, "", err)
		}
		log.samples = append(log.samples, located{file: file + "/" + f.Name, s: s})
	}
	if len(samples) == 0 {
		return nil, inputErrorf(file, 0, "samples/", "the archive holds no samples/*.json; import a log written with its samples")
	}
	return log, nil
}

func readEntry(file string, f *zip.File) ([]byte, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, inputErrorf(file, 0, f.Name, "cannot be read: %v", err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, inspectMaxEntry+1))
	if err != nil {
		return nil, inputErrorf(file, 0, f.Name, "cannot be read: %v", err)
	}
	if len(data) > inspectMaxEntry {
		return nil, inputErrorf(file, 0, f.Name, "holds more than %d MiB; no sample of a multiple-choice task is that large", inspectMaxEntry>>20)
	}
	return data, nil
}

func checkHeader(file string, h inspectHeader) (*inspectLog, error) {
	if h.Version == nil || h.Eval == nil {
		return nil, inputErrorf(file, 0, "", "not an inspect_ai evaluation log: it lacks version and eval")
	}
	if h.Eval.Model == nil || *h.Eval.Model == "" {
		return nil, inputErrorf(file, 0, "eval.model", "missing: the log does not say which model was evaluated")
	}
	if h.Status == nil || *h.Status != "success" {
		st := "missing"
		if h.Status != nil {
			st = strconv.Quote(*h.Status)
		}
		return nil, inputErrorf(file, 0, "status", "is %s, not \"success\": the evaluation did not finish; import the log of a finished run", st)
	}
	log := &inspectLog{file: file, model: *h.Eval.Model, task: h.Eval.Task}
	if h.Eval.Created != "" {
		t, err := time.Parse(time.RFC3339Nano, h.Eval.Created)
		if err != nil {
			return nil, inputErrorf(file, 0, "eval.created", "%q is not an RFC 3339 time", h.Eval.Created)
		}
		log.date = t.Format(time.DateOnly) // the day where the run was made
	}
	return log, nil
}

// Inspect reads inspect_ai evaluation logs of a multiple-choice task (each
// file's name and bytes) and returns one run per model on benchmark b.
// Logs of the same model are joined, so that a run split across logs can
// be imported; together they must answer every question of b once. A
// sample's id is the question id, its output's text the response, its
// scorer's answer the published letter and the scorer's value (C or I)
// the published verdict; scorer picks the scorer when a sample has more
// than one.
func Inspect(files []string, data [][]byte, b *benchmark.Benchmark, scorer string, opts Options) ([]*Run, error) {
	policy, err := policyFor(b)
	if err != nil {
		return nil, err
	}
	var models []string
	byModel := map[string][]*inspectLog{}
	for i, file := range files {
		log, err := readInspectLog(file, data[i])
		if err != nil {
			return nil, err
		}
		if _, ok := byModel[log.model]; !ok {
			models = append(models, log.model)
		}
		byModel[log.model] = append(byModel[log.model], log)
	}
	models, err = selectModels(strings.Join(files, ", "), models, opts)
	if err != nil {
		return nil, err
	}
	var runs []*Run
	for _, model := range models {
		mlogs := byModel[model]
		rows := make([]publishedAt, b.Questions())
		seen := map[string]int{}
		where := map[string]string{}
		var names []string
		date := ""
		for _, log := range mlogs {
			names = append(names, path.Base(log.file))
			if date == "" || (log.date != "" && log.date < date) {
				date = log.date
			}
			for _, ls := range log.samples {
				p, err := inspectRow(ls, scorer)
				if err != nil {
					return nil, err
				}
				qi, ok := b.Index(p.id)
				if !ok {
					return nil, inputErrorf(ls.file, ls.line, "id", "sample %q is not a question of benchmark %q (%s); the task's samples must carry the benchmark's question ids (Sample(id=...))", p.id, b.Entry.Key, b.Entry.File)
				}
				if prev, dup := where[p.id]; dup {
					return nil, inputErrorf(ls.file, ls.line, "id", "sample %q appears again (first in %s); import one epoch of one run per question", p.id, prev)
				}
				where[p.id] = locationOf(ls)
				seen[p.id] = qi
				rows[qi] = p
			}
		}
		if err := missingQuestions(strings.Join(names, ", "), b, seen); err != nil {
			return nil, err
		}
		o := opts
		if o.Date == "" {
			o.Date = date
		}
		// eval.model is the provider's model id, as candidate_model_id wants it.
		run := newRun(model, true, b.Entry.Key, importNotes("the inspect_ai log "+strings.Join(names, ", "), policy), o)
		run.PublishedCorrect = 0
		for qi := range rows {
			run.add(rows[qi].file, &b.Items[qi], policy, rows[qi].published)
		}
		runs = append(runs, run)
	}
	return runs, nil
}

func locationOf(ls located) string {
	if ls.line > 0 {
		return fmt.Sprintf("%s:%d", ls.file, ls.line)
	}
	return ls.file
}

// inspectRow converts one sample.
func inspectRow(ls located, scorer string) (publishedAt, error) {
	s := ls.s
	bad := func(field, format string, args ...any) (publishedAt, error) {
		return publishedAt{}, inputErrorf(ls.file, ls.line, field, format, args...)
	}
	var p publishedAt
	p.file, p.line = ls.file, ls.line
	id, err := sampleID(s.ID)
	if err != nil {
		return bad("id", "%v", err)
	}
	p.id = id
	if s.Epoch != nil && *s.Epoch != 1 {
		return bad("epoch", "sample %s is of epoch %d; a submission holds one answer per question, so import a run of one epoch", id, *s.Epoch)
	}
	if s.Output == nil {
		return bad("output", "sample %s: missing; the log holds no model output for it", id)
	}
	if s.Error != nil {
		msg := s.Error.Message
		if msg == "" {
			msg = "the sample failed"
		}
		p.errText = msg
		p.finish = new("error")
	}
	if len(s.Output.Choices) > 0 && s.Output.Choices[0].Message != nil {
		text, err := contentText(s.Output.Choices[0].Message.Content, s.Attachments)
		if err != nil {
			return bad("output.choices[0].message.content", "sample %s: %v", id, err)
		}
		p.response = text
		if p.finish == nil {
			p.finish = stopReason(s.Output.Choices[0].StopReason, text)
		}
	} else if p.finish == nil {
		p.finish = new("empty")
	}
	if u := s.Output.Usage; u != nil {
		p.prompt, p.complete = u.InputTokens, u.OutputTokens
	}

	name, err := pickScorer(s.Scores, scorer)
	if err != nil {
		return bad("scores", "sample %s: %v", id, err)
	}
	sc := s.Scores[name]
	field := "scores." + name
	if sc == nil {
		return bad(field, "sample %s: the score is null", id)
	}
	if sc.Answer != nil {
		p.letter = strings.TrimSpace(*sc.Answer)
	}
	if !checkLetter(p.letter) {
		return bad(field+".answer", "sample %s: %q is not a letter; want A, B, C or D (a multiple-choice scorer's answer) or none", id, p.letter)
	}
	c, err := scoreValue(sc.Value)
	if err != nil {
		return bad(field+".value", "sample %s: %v", id, err)
	}
	p.correct = &c
	return p, nil
}

// publishedAt is a published answer with the file it came from.
type publishedAt struct {
	published
	file string
}

func sampleID(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil && s != "" {
		return s, nil
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&n); err == nil {
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return n.String(), nil
		}
	}
	if len(raw) == 0 {
		return "", errors.New("missing: each sample needs the id of its question")
	}
	return "", fmt.Errorf("%s is not a sample id (a non-empty string or an integer)", raw)
}

// contentText is a message's text: the content string, or its text parts
// joined, with an attachment reference resolved from the sample's
// attachments.
func contentText(raw json.RawMessage, attachments map[string]string) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	resolve := func(s string) (string, error) {
		ref, ok := strings.CutPrefix(s, "attachment://")
		if !ok {
			return s, nil
		}
		t, ok := attachments[ref]
		if !ok {
			return "", fmt.Errorf("refers to attachment %s, which the sample's attachments lack", ref)
		}
		return t, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return resolve(s)
	}
	var parts []inspectPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errors.New("is neither a string nor a list of content parts")
	}
	var b strings.Builder
	for _, part := range parts {
		if part.Type != "text" {
			continue
		}
		t, err := resolve(part.Text)
		if err != nil {
			return "", err
		}
		b.WriteString(t)
	}
	return b.String(), nil
}

// stopReason maps inspect_ai's stop reasons to scores.json's
// finish_reason: max_tokens and model_length are a length finish; a
// reason with no counterpart (tool_calls, content_filter, unknown) is
// left out.
func stopReason(reason, text string) *string {
	switch {
	case text == "":
		return new("empty")
	case reason == "stop":
		return new("stop")
	case reason == "max_tokens" || reason == "model_length":
		return new("length")
	}
	return nil
}

// pickScorer names the score to read: the one named, or the only one.
func pickScorer(scores map[string]*struct {
	Value  json.RawMessage `json:"value"`
	Answer *string         `json:"answer"`
}, want string) (string, error) {
	names := make([]string, 0, len(scores))
	for n := range scores {
		names = append(names, n)
	}
	sort.Strings(names)
	switch {
	case len(names) == 0:
		return "", errors.New("the sample was not scored; import a log of a scored run")
	case want != "":
		if _, ok := scores[want]; !ok {
			return "", fmt.Errorf("no score of scorer %q; the sample has %s", want, strings.Join(names, ", "))
		}
		return want, nil
	case len(names) > 1:
		return "", fmt.Errorf("several scorers (%s); name the multiple-choice one with --scorer", strings.Join(names, ", "))
	}
	return names[0], nil
}

// scoreValue reads a score's verdict: inspect_ai's CORRECT "C" and
// INCORRECT "I", a boolean, or 1 and 0.
func scoreValue(raw json.RawMessage) (bool, error) {
	switch strings.TrimSpace(string(raw)) {
	case `"C"`, "true", "1", "1.0":
		return true, nil
	case `"I"`, "false", "0", "0.0":
		return false, nil
	case "":
		return false, errors.New("missing: the score has no value")
	}
	return false, fmt.Errorf("%s is not a verdict; want \"C\" or \"I\" (a multiple-choice scorer's value), true or false, 1 or 0", raw)
}

// lineOf is the line of byte offset off in data, from 1.
func lineOf(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// jsonError names where a log's JSON is malformed or of the wrong shape;
// the error's offsets count from base in data.
func jsonError(file string, data []byte, base int64, field string, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return inputErrorf(file, lineOf(data, base+se.Offset-1), field, "%v; the file is not valid JSON", err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		if field != "" {
			f = strings.TrimSuffix(field+"."+f, ".")
		}
		return inputErrorf(file, lineOf(data, base+te.Offset-1), f, "holds a JSON %s where the format has %s", te.Value, jsonKind(te.Type.Kind()))
	}
	return inputErrorf(file, 0, field, "%v", err)
}

// jsonKind names what a field of the types above holds, in JSON's words.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Bool:
		return "true or false"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice:
		return "an array"
	}
	return "another kind of value"
}
