package prcheck

import "testing"

func TestSticky(t *testing.T) {
	// Comments already posted carry this marker: changing it would make
	// the App post a second comment on every open pull request.
	if StickyMarker != "<!-- benchgate:sticky -->" {
		t.Errorf("the marker changed to %q", StickyMarker)
	}
	body := Sticky("### benchgate: verified")
	if body != "<!-- benchgate:sticky -->\n### benchgate: verified" || !IsSticky(body) {
		t.Errorf("Sticky: %q", body)
	}
	if !IsSticky(WithSpotCheck(body, "## benchgate rerun")) {
		t.Error("a comment with a spot-check's section is not recognised")
	}
	for _, b := range []string{"", "### benchgate: verified", "<!-- benchgate -->", "/benchgate rerun"} {
		if IsSticky(b) {
			t.Errorf("IsSticky(%q)", b)
		}
	}
}
