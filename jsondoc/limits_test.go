package jsondoc

import (
	"errors"
	"math/big"
	"strconv"
	"strings"
	"testing"
)

func TestIntReadsTheDecimalText(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"3", 3, true},
		{"3.0", 3, true},
		{"3e0", 3, true},
		{"0.3e1", 3, true},
		{"30e-1", 3, true},
		{"-3.0e1", -30, true},
		{"-0.0", 0, true},
		{"0.000e5", 0, true},
		{"0e99999999999999999999", 0, true},
		{"12345678901234567890e-1", 1234567890123456789, true}, // float64 would round it
		{"9223372036854775807", 9223372036854775807, true},
		{"9.223372036854775807e18", 9223372036854775807, true},
		{"-9.223372036854775808e18", -9223372036854775808, true},
		{"9.223372036854775808e18", 0, false},
		{"1e19", 0, false},
		{"1e300", 0, false},
		{"2.5", 0, false},
		{"2.99999999999999999", 0, false}, // float64 rounds it to 3
		{"7.000000000000000001", 0, false},
		{"1e-400", 0, false},
		{"25e-1", 0, false},
	}
	for _, tt := range tests {
		d, err := Parse([]byte(tt.in), Limits{})
		if err != nil {
			t.Fatalf("Parse(%s): %v", tt.in, err)
		}
		got, ok := d.Root.Int()
		if got != tt.want || ok != tt.ok {
			t.Errorf("Int(%s) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// Int agrees with exact rational arithmetic on numbers written every way
// JSON allows.
func TestIntAgreesWithExactArithmetic(t *testing.T) {
	for _, mant := range []string{"0", "7", "-7", "25", "2.5", "0.25", "100", "1.0", "-0.001", "922337203685477580", "9.223372036854775807", "12345678901234567890"} {
		for exp := -25; exp <= 25; exp++ {
			forms := []string{mant + "e" + strconv.Itoa(exp)}
			if exp == 0 {
				forms = append(forms, mant)
			} else if exp > 0 {
				forms = append(forms, mant+"E+"+strconv.Itoa(exp))
			}
			for _, num := range forms {
				d, err := Parse([]byte(num), Limits{})
				if err != nil {
					t.Fatalf("Parse(%s): %v", num, err)
				}
				got, ok := d.Root.Int()
				r, _ := new(big.Rat).SetString(num)
				want := r.IsInt() && r.Num().IsInt64()
				if ok != want || ok && got != r.Num().Int64() {
					t.Errorf("Int(%s) = %d, %v; exactly it is %s", num, got, ok, r.RatString())
				}
			}
		}
	}
}

func TestMaxValues(t *testing.T) {
	in := []byte(`{"a": [1, 2, {"b": null}], "c": "x"}`) // 7 values
	d, err := Parse(in, Limits{MaxValues: 7})
	if err != nil || d.Values != 7 {
		t.Fatalf("at the limit: %v, %d values", err, d.Values)
	}
	if d, err := Parse(in, Limits{}); err != nil || d.Values != 7 {
		t.Fatalf("no limit: %v", err)
	}
	_, err = Parse(in, Limits{MaxValues: 6})
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.Contains(se.Msg, "more than 6 values") || se.Col != 33 {
		t.Errorf("over the limit: %v", err)
	}
	// A file of tiny values stops at the limit instead of growing a tree
	// fifty times its size.
	big := []byte("[" + strings.Repeat("0,", 1_000_000) + "0]")
	if _, err := Parse(big, Limits{MaxValues: 1000}); err == nil || !strings.Contains(err.Error(), "more than 1000 values") {
		t.Errorf("a million zeros: %v", err)
	}
}
