package ranking

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/benchgate/benchgate/submission"
)

// The words for what a track's family of paired tests says, shared by
// LEADERBOARD.md, the page and its charts.

// trackStats is the family of one track of bm; nil when it has no entries.
func trackStats(bm *Benchmark, t submission.Track) *TrackStats {
	for i := range bm.Tracks {
		if bm.Tracks[i].Track == t {
			return &bm.Tracks[i]
		}
	}
	return nil
}

// separates reports whether a track's family can tell any two entries
// apart at all.
func separates(ts *TrackStats) bool { return ts != nil && !ts.TooSmall }

// rankText is an entry's range of ranks, which holds with 95% confidence
// for all the track's entries at once: one number where the evidence
// fixes its rank.
func rankText(e Entry) string {
	if e.RankUB == e.RankWorst {
		return strconv.Itoa(e.RankUB)
	}
	return fmt.Sprintf("%d–%d", e.RankUB, e.RankWorst)
}

// rankWords says what rankText rests on, for an entry of a track of n:
// how many entries are significantly better and worse, and whether it
// could be the best.
func rankWords(e Entry, n int) string {
	s := fmt.Sprintf("%s significantly better, %s significantly worse", entries(e.RankUB-1), entries(n-e.RankWorst))
	if e.CouldBeBest {
		s += "; it could be #1"
	}
	return s
}

// rankTitle is rankText's explanation where the page has room for one.
func rankTitle(e Entry, n int) string {
	return fmt.Sprintf("%s by score; ranks %s of %d hold with 95%% confidence for all entries at once: %s", ordinal(e.Rank), rankText(e), n, rankWords(e, n))
}

// bestMarked reports whether an entry is marked as one that could be #1:
// it could, and some entry of its track could not (where every one could,
// the mark would say nothing).
func bestMarked(ts *TrackStats, e Entry) bool {
	return e.CouldBeBest && separates(ts) && ts.CouldBeBest < ts.Entries
}

// groupCell is an entry's group in a table: its number, or "–" where its
// track cannot separate any two entries.
func groupCell(ts *TrackStats, e Entry) string {
	if !separates(ts) {
		return "–"
	}
	return strconv.Itoa(e.Group)
}

// entries counts entries in words: "no entry", "1 entry", "3 entries".
func entries(n int) string {
	if n == 0 {
		return "no entry"
	}
	return fmt.Sprintf("%d %s", n, plural(n, "entry", "entries"))
}

// familyNoteFor says in words what the family of one track shows, each
// entry's name passed through escape, and the benchmark's warning about
// its intervals where it has one.
func familyNoteFor(bm *Benchmark, es []Entry, alpha float64, escape func(string) string) string {
	note := familyNote(bm, es, alpha, escape)
	if bm.IntervalWarning != "" {
		note += " " + escape(bm.IntervalWarning)
	}
	return note
}

func familyNote(bm *Benchmark, es []Entry, alpha float64, escape func(string) string) string {
	if len(es) == 1 {
		return "One entry so far."
	}
	ts := trackStats(bm, es[0].Track)
	if ts == nil {
		return ""
	}
	if ts.TooSmall {
		return fmt.Sprintf("With %d %s and %d entries no difference between two entries can be significant: the smallest p-value the paired test can reach, %.4g, times %d, the number of pairs (Holm's first step), is not below α = %g. Every entry's ranks run from 1 to %d, and their order is not evidence that one is better than another.",
			bm.Questions, plural(bm.Questions, "question", "questions"), len(es), bm.MinPairedP, ts.Pairs, alpha, len(es))
	}
	name := map[string]string{}
	for _, e := range es {
		name[e.Slug] = escape(displayName(e))
	}
	parts := []string{fmt.Sprintf("Significant differences: %d of %d %s of entries.", ts.Separated, ts.Pairs, plural(ts.Pairs, "pair", "pairs"))}
	var best []string
	for _, e := range es {
		if e.CouldBeBest {
			best = append(best, name[e.Slug])
		}
	}
	if len(best) == len(es) {
		parts = append(parts, "No entry is significantly better than another: any could be #1.")
	} else {
		parts = append(parts, fmt.Sprintf("Could be #1, no entry being significantly better: %s.", nameList(best, 12)))
	}
	if t := ts.Top; t != nil {
		parts = append(parts, fmt.Sprintf("The weakest exclusion from #1: %s is significantly better than %s, %s.", name[t.Better], name[t.Worse], evidence(t)))
		if u := ts.Unverifiable; u != nil {
			s := fmt.Sprintf("With the %d credited %s of %s that verification could not re-read (responses stored cut short) not credited, ",
				u.Answers, plural(u.Answers, "answer", "answers"), entries(u.Entries))
			if u.Holds {
				s += "the same entries could be #1."
			} else {
				s += fmt.Sprintf("%s could be #1 instead of %d: the top of the board rests on them.", entries(u.CouldBeBest), ts.CouldBeBest)
			}
			parts = append(parts, s)
		}
	}
	if len(ts.Boundaries) == 0 {
		parts = append(parts, "No boundary divides the entries into groups: no set of the top entries is significantly better than every entry below it.")
	}
	for _, b := range ts.Boundaries {
		parts = append(parts, fmt.Sprintf("Group %d begins where every entry above is significantly better than every entry below; of these comparisons, the nearest to undoing it is %s against %s, %s.",
			b.Group+1, name[b.Better], name[b.Worse], evidence(&b)))
	}
	return strings.Join(parts, " ")
}

// evidence gives a separation's discordant questions and p-values, and
// says when one answer credited differently would undo it.
func evidence(s *Separation) string {
	out := fmt.Sprintf("%d %s to %d (p = %.3g, Holm-adjusted %.3g)", s.BetterWins, plural(s.BetterWins, "question", "questions"), s.WorseWins, s.P, s.PHolm)
	if s.Fragile {
		out += "; fragile: one answer credited differently would undo it"
	}
	return out
}

// nameList joins names, the first max of them and how many more.
func nameList(names []string, max int) string {
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
	}
	if len(names) > 1 {
		return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	return strings.Join(names, "")
}
