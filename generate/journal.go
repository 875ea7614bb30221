package generate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// JournalFile is the file beside output that a run appends each row to as
// its call returns, synced before the next: the output itself is rewritten
// whole only every few seconds, and a run killed in between (SIGKILL, a
// crash, a lost machine) would otherwise lose answers already paid for.
// The next run with the same output reads it back, and a run that ends
// with every row in the output removes it.
func JournalFile(output string) string { return output + ".journal.jsonl" }

// journal appends rows to a JournalFile, one JSON line each.
type journal struct {
	path string

	mu  sync.Mutex
	f   *os.File
	err error // the first failure; later rows are not written
}

// append writes row as one line and syncs it to disk. A failure is kept
// for err, and the run goes on: the row is still in memory and in the next
// rewrite of the output.
func (j *journal) append(row any) {
	line, err := json.Marshal(row)
	if err != nil {
		// Rows hold strings, numbers and booleans only.
		panic("generate: encoding a journal row: " + err.Error())
	}
	line = append(line, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	if j.f == nil {
		if j.f, j.err = os.OpenFile(j.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644); j.err != nil {
			return
		}
	}
	if _, err := j.f.Write(line); err != nil {
		j.err = err
		return
	}
	j.err = j.f.Sync()
}

// finish closes the journal and, when keep is false, removes it: every
// row it holds is then in the output. It returns the first failure to
// write it, which left answers unprotected until the next rewrite.
func (j *journal) finish(keep bool) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.f != nil {
		if err := j.f.Close(); j.err == nil {
			j.err = err
		}
		j.f = nil
	}
	if j.err != nil {
		return fmt.Errorf("the journal %s could not be written (%v): answers were at risk until the output was rewritten", j.path, j.err)
	}
	if !keep {
		if err := os.Remove(j.path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// readJournal reads the rows of the journal at path, in the order they
// were written; no file is no rows. A last line cut short, as a crash
// while writing it leaves one, is no row; any other line that is not a
// row is an error that names it.
func readJournal[Row any](path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rows []Row
	for n := 1; len(data) > 0; n++ {
		line, rest, complete := bytes.Cut(data, []byte("\n"))
		data = rest
		if !complete {
			break // cut short
		}
		var row Row
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&row); err != nil || dec.More() {
			if err == nil {
				err = errors.New("more than one value on the line")
			}
			return nil, fmt.Errorf("cannot resume from %s: line %d is not a row this command wrote (%v); move the file away to ask those questions again", path, n, err)
		}
		rows = append(rows, row)
	}
	return rows, nil
}
