package mdtext

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain model 3.5", "plain model 3.5"},
		{"<script>alert(1)</script>", `\<script\>alert(1)\</script\>`},
		{"[x](javascript:alert(1))", `\[x\](javascript:alert(1))`},
		{"![img](https://evil.example/p.png)", `\!\[img\](https://evil.example/p.png)`},
		{"@maintainers please", `\@maintainers please`},
		{"a|b\nc", `a\|b c`},
		{"**bold** _it_ `code` ~~s~~ # h", `\*\*bold\*\* \_it\_ \` + "`" + `code\` + "`" + ` \~\~s\~\~ \# h`},
		{"&lt;", `\&lt;`},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCode(t *testing.T) {
	if got := Code("a`b|c\nd"); got != `a'b\|c d` {
		t.Errorf("Code = %q", got)
	}
}
