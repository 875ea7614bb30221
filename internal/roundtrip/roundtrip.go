// Package roundtrip checks that an encoding keeps every field of a type.
// It fills values by reflection, so that a field added to the type later
// is filled and checked too: a cache whose encoding forgets it fails the
// test instead of serving a zero value on the second run.
package roundtrip

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Variant names a way of filling a value.
type Variant int

// The variants each check covers.
const (
	// Full gives every field a value of its own: non-zero, distinct from
	// every other field's, two elements in each slice and one key in
	// each map, every pointer set.
	Full Variant = iota
	// Empty sets every pointer to a zero value, every map empty but not
	// nil, and every slice to one element filled the same way: the values
	// an encoding that omits "empty" fields turns into nil.
	Empty
	// Bare sets every pointer to a zero value and every slice and map
	// empty but not nil.
	Bare
	// Zero is the zero value: nil pointers, slices and maps.
	Zero
)

func (v Variant) String() string {
	return [...]string{"full", "empty", "bare", "zero"}[v]
}

// Check fills a T in each variant, passes it through encode and decode,
// and fails tb with the path of every field that did not come back equal.
func Check[T any](tb testing.TB, encode func(T) ([]byte, error), decode func([]byte) (T, error)) {
	tb.Helper()
	for _, variant := range []Variant{Full, Empty, Bare, Zero} {
		var want T
		f := &filler{variant: variant}
		f.fill(reflect.ValueOf(&want).Elem(), reflect.TypeOf(want).String())
		for _, p := range f.problems {
			tb.Errorf("%s: %s", variant, p)
		}
		data, err := encode(want)
		if err != nil {
			tb.Errorf("%s: encode: %v", variant, err)
			continue
		}
		got, err := decode(data)
		if err != nil {
			tb.Errorf("%s: decode: %v", variant, err)
			continue
		}
		for _, d := range Diff(reflect.ValueOf(got), reflect.ValueOf(want), reflect.TypeOf(want).String()) {
			tb.Errorf("%s: %s did not survive the round trip (encoded as %.300s)", variant, d, data)
		}
	}
}

type filler struct {
	variant  Variant
	n        int // the last distinct value handed out
	problems []string
}

func (f *filler) next() int {
	f.n++
	return f.n
}

// fill sets v, addressable, by f's variant.
func (f *filler) fill(v reflect.Value, path string) {
	if f.variant == Zero {
		return
	}
	full := f.variant == Full
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(full)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if full {
			v.SetInt(int64(f.next() % 100))
		}
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if full {
			v.SetUint(uint64(f.next() % 100))
		}
	case reflect.Uint8:
		// Printable, as every byte a cached value holds is (letters).
		if full {
			v.SetUint(uint64('A' + f.next()%26))
		}
	case reflect.Float32, reflect.Float64:
		if full {
			v.SetFloat(float64(f.next()) + 0.25)
		}
	case reflect.String:
		if full {
			v.SetString(fmt.Sprintf("%s#%d", path, f.next()))
		}
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), path)
		v.Set(p)
	case reflect.Slice:
		n := map[Variant]int{Full: 2, Empty: 1}[f.variant]
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := 0; i < n; i++ {
			f.fill(s.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
		v.Set(s)
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			f.fill(v.Index(i), fmt.Sprintf("%s[%d]", path, i))
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if full {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k, path+".key")
			e := reflect.New(v.Type().Elem()).Elem()
			f.fill(e, path+"[key]")
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if !sf.IsExported() {
				f.problems = append(f.problems, fmt.Sprintf("%s.%s is unexported: a cached value's fields must be exported for its encoding to hold them", path, sf.Name))
				continue
			}
			f.fill(v.Field(i), path+"."+sf.Name)
		}
	default:
		f.problems = append(f.problems, fmt.Sprintf("%s is a %s, which roundtrip cannot fill", path, v.Kind()))
	}
}

// Diff returns the paths where got and want differ, telling a nil slice,
// map or pointer from an empty or zero one.
func Diff(got, want reflect.Value, path string) []string {
	if got.Kind() != want.Kind() || got.Type() != want.Type() {
		return []string{fmt.Sprintf("%s (type %s, want %s)", path, got.Type(), want.Type())}
	}
	switch want.Kind() {
	case reflect.Pointer:
		if got.IsNil() != want.IsNil() {
			return []string{fmt.Sprintf("%s (nil %v, want nil %v)", path, got.IsNil(), want.IsNil())}
		}
		if want.IsNil() {
			return nil
		}
		return Diff(got.Elem(), want.Elem(), path)
	case reflect.Slice:
		if got.IsNil() != want.IsNil() {
			return []string{fmt.Sprintf("%s (nil %v, want nil %v)", path, got.IsNil(), want.IsNil())}
		}
		fallthrough
	case reflect.Array:
		if got.Len() != want.Len() {
			return []string{fmt.Sprintf("%s (length %d, want %d)", path, got.Len(), want.Len())}
		}
		var out []string
		for i := 0; i < want.Len(); i++ {
			out = append(out, Diff(got.Index(i), want.Index(i), fmt.Sprintf("%s[%d]", path, i))...)
		}
		return out
	case reflect.Map:
		if got.IsNil() != want.IsNil() {
			return []string{fmt.Sprintf("%s (nil %v, want nil %v)", path, got.IsNil(), want.IsNil())}
		}
		if got.Len() != want.Len() {
			return []string{fmt.Sprintf("%s (%d keys, want %d)", path, got.Len(), want.Len())}
		}
		var out []string
		iter := want.MapRange()
		for iter.Next() {
			g := got.MapIndex(iter.Key())
			p := fmt.Sprintf("%s[%v]", path, iter.Key())
			if !g.IsValid() {
				out = append(out, p+" (missing)")
				continue
			}
			out = append(out, Diff(g, iter.Value(), p)...)
		}
		return out
	case reflect.Struct:
		var out []string
		t := want.Type()
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).IsExported() {
				out = append(out, Diff(got.Field(i), want.Field(i), path+"."+t.Field(i).Name)...)
			}
		}
		return out
	case reflect.Interface:
		if !reflect.DeepEqual(got.Interface(), want.Interface()) {
			return []string{path}
		}
		return nil
	default:
		if got.Interface() != want.Interface() {
			return []string{fmt.Sprintf("%s (%s, want %s)", path, short(got), short(want))}
		}
		return nil
	}
}

func short(v reflect.Value) string {
	s := fmt.Sprintf("%#v", v.Interface())
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return strings.ReplaceAll(s, "\n", " ")
}
