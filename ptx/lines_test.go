package ptx

import (
	"go/token"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLineStarts: the line table is the offsets after each '\n' (but the
// end), by hand for short texts and as go/token's SetLinesForContent
// makes it for random texts rich in bytes near '\n' (0x0a): 0x0b, 0x8a,
// 0x0b after a 0x0a, at every alignment.
func TestLineStarts(t *testing.T) {
	tests := []struct {
		src  string
		want []int
	}{
		{"", []int{0}},
		{"\n", []int{0}},
		{"a\nb", []int{0, 2}},
		{"a\nb\n", []int{0, 2}},
		{"\n\n\n", []int{0, 1, 2}},
		{"0123456\n89abcdef\n", []int{0, 8}},
		{"01234567\n\x0b\x8a\n\r\n0123456789", []int{0, 9, 12, 14}},
	}
	for _, tt := range tests {
		if got := lineStarts([]byte(tt.src)); !slices.Equal(got, tt.want) {
			t.Errorf("%q: %v, want %v", tt.src, got, tt.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte{'\n', '\n', 0x0b, 0x8a, 0x09, 0x0d, 0xff, 0x00, 'a', ' '}
	for n := 1; n < 300; n++ { // (SetLinesForContent gives no line to an empty text)
		src := make([]byte, n)
		for i := range src {
			src[i] = alphabet[r.IntN(len(alphabet))]
		}
		tf := token.NewFileSet().AddFile("x", -1, len(src))
		tf.SetLinesForContent(src)
		if got, want := lineStarts(src), tf.Lines(); !slices.Equal(got, want) {
			t.Fatalf("%q: %v, want %v", src, got, want)
		}
	}
}
