package judge

import "github.com/benchgate/benchgate/judge/inject"

// InjectionMarkers returns a human-readable reason, with the text quoted,
// for each way the answer tries to instruct the grader or forge a verdict:
// orders to ignore instructions, words addressed to the grader, requests
// for a score, chat-role lines, verdict JSON, fake boundary markers and
// pairwise verdict tokens. It returns nil for an ordinary answer. A marker
// does not change the grade; it asks a person to look. It is
// inject.Markers, which the verifier calls without this package's client.
func InjectionMarkers(answer string) []string { return inject.Markers(answer) }

// VerdictInjectionSigns returns, quoted, the words of a verdict (the
// adjudication note, the gate's reason and the components' reasons) that
// say the answer tried to instruct the judge, as the grading prompt asks
// the judge to note; nil when it says nothing of the kind. A judge that
// obeyed an injection may still say so here, which is why a spot-check
// reads verdicts as well as answers.
func VerdictInjectionSigns(v Verdict) []string {
	texts := []string{v.AdjudicationNote, v.GateReason}
	for _, c := range v.Components {
		texts = append(texts, c.Reason)
	}
	return inject.Signs(texts...)
}
