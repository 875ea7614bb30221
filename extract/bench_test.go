package extract

import (
	"strings"
	"testing"
)

// benchResponse is a realistic ~2 KB response: reasoning paragraphs that
// mention several options, then an answer line.
var benchResponse = func() string {
	var b strings.Builder
	b.WriteString("Let's work through the question step by step, looking at what each log responds to.\n\n")
	paragraphs := []string{
		"The density log measures electron density, which is closely related to bulk density. In a clean, water-filled sandstone the density porosity and neutron porosity track each other, so option A would only hold if the formation were gas-free and clay-free.",
		"The neutron log responds mainly to hydrogen index. Gas has a low hydrogen index, so the neutron porosity reads too low, while the density porosity reads too high because gas is light. That is the classic crossover, and it is what option C describes.",
		"Shale moves both curves in the other direction: bound water raises the neutron reading, and the density of clay minerals keeps the density porosity moderate. So option B, which attributes the separation to shale, does not fit the described response.",
		"Tight carbonate would show low porosity on both logs with little separation, so option D is unlikely. Checking the photoelectric factor would confirm the lithology, but it is not needed to choose here.",
		"Putting these together, the only explanation consistent with a density porosity above the neutron porosity in a clean interval is light hydrocarbon in the pore space.",
	}
	for i := 0; b.Len() < 1900; i++ {
		b.WriteString(paragraphs[i%len(paragraphs)])
		b.WriteString("\n\n")
	}
	b.WriteString("**Final Answer: C**")
	return b.String()
}()

// BenchmarkExtract measures each policy on one ~2 KB response (run it with
// -cpu 1 for one core). A run of 7,440 responses costs 7,440 times ns/op.
func BenchmarkExtract(b *testing.B) {
	for _, name := range Names() {
		p, _ := Lookup(name)
		b.Run(name, func(b *testing.B) {
			if got := p.Extract(benchResponse).Letter; got != "C" {
				b.Fatalf("%s reads %q, want C", name, got)
			}
			b.SetBytes(int64(len(benchResponse)))
			b.ReportAllocs()
			for b.Loop() {
				p.Extract(benchResponse)
			}
		})
	}
}
