package fakegithub

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// window is the slice [lo, hi) of a listing that one page covers.
type window struct{ lo, hi int }

// paginate applies GitHub's page/per_page parameters (default 30, capped at
// 100) to a listing of total items and sets the Link header with the
// first/prev/next/last relations GitHub sends, which go-github reads to
// find the next page.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, total int) (window, bool) {
	q := r.URL.Query()
	per := 30
	if v := q.Get("per_page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			n = 30
		}
		per = min(n, 100)
	}
	page := 1
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil && n > 0 {
			page = n
		}
	}
	last := max((total+per-1)/per, 1)
	lo := min((page-1)*per, total)
	hi := min(lo+per, total)

	link := func(p int, rel string) string {
		q2 := r.URL.Query()
		q2.Set("per_page", strconv.Itoa(per))
		q2.Set("page", strconv.Itoa(p))
		return fmt.Sprintf("<%s%s?%s>; rel=%q", s.URL, strings.TrimPrefix(r.URL.Path, "/"), q2.Encode(), rel)
	}
	var rels []string
	if page > 1 {
		rels = append(rels, link(min(page-1, last), "prev"))
	}
	if page < last {
		rels = append(rels, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		rels = append(rels, link(1, "first"))
	}
	if len(rels) > 0 {
		w.Header().Set("Link", strings.Join(rels, ", "))
	}
	return window{lo, hi}, true
}
