package ptx

import "testing"

// TestVarDeclTokensLen: tokensLen, which sizes synth's slice, is the
// number of tokens synth makes, counted by hand from each declaration's
// text (without the ';').
func TestVarDeclTokensLen(t *testing.T) {
	tests := []struct {
		text string // what the declaration prints as
		d    VarDecl
		want int
	}{
		{".param .u64 __pt_buf", VarDecl{Space: SpaceParam, Type: U64, Names: []Declarator{{Name: "__pt_buf", Range: -1}}}, 3},
		{".reg .b32 %r<6>", VarDecl{Space: SpaceReg, Type: B32, Names: []Declarator{{Name: "%r", Range: 6}}}, 6},
		{".extern .shared .align 16 .b8 smem[]", VarDecl{Linkage: Extern, Space: SpaceShared, Align: 16, Type: B8,
			Names: []Declarator{{Name: "smem", Range: -1, Dims: []int{0}}}}, 8},
		{".visible .global .v4 .f32 a[2] [3], b", VarDecl{Linkage: Visible, Space: SpaceGlobal, Vec: 4, Type: F32,
			Names: []Declarator{{Name: "a", Range: -1, Dims: []int{2, 3}}, {Name: "b", Range: -1}}}, 13},
		{".param .u64 .ptr .global .align 8 p", VarDecl{Space: SpaceParam, Type: U64, Ptr: true, PtrSpace: SpaceGlobal, PtrAlign: 8,
			Names: []Declarator{{Name: "p", Range: -1}}}, 7},
		{".global .u32 .attribute(.managed) x = 7", VarDecl{Space: SpaceGlobal, Type: U32, Attrs: []string{".attribute(.managed)"},
			Names: []Declarator{{Name: "x", Range: -1, Init: []Token{Tok(INT, "7")}}}}, 6},
	}
	for _, tt := range tests {
		if got := tt.d.tokensLen(); got != tt.want {
			t.Errorf("%s: tokensLen %d, want %d", tt.text, got, tt.want)
		}
		if got := len(tt.d.synth(false)); got != tt.want {
			t.Errorf("%s: synth made %d tokens, want %d", tt.text, got, tt.want)
		}
		if got := Format(&tt.d); got != tt.text+";" {
			t.Errorf("prints %q, want %q", got, tt.text+";")
		}
	}
}
