package ptx

import (
	"strconv"
	"strings"
)

// Typed views of the directives with a fixed shape. They read d.Args, so they
// work for parsed and synthesized directives alike.

// Version returns the major and minor numbers of a .version directive.
func (d *Directive) Version() (major, minor int, ok bool) {
	if d.Name != ".version" || len(d.Args) != 1 {
		return 0, 0, false
	}
	s := d.Args[0].Text
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		return 0, 0, false
	}
	a, err1 := strconv.Atoi(s[:dot])
	b, err2 := strconv.Atoi(s[dot+1:])
	if err1 != nil || err2 != nil || a < 0 || b < 0 {
		return 0, 0, false
	}
	return a, b, true
}

// Targets returns the comma-separated names of a .target directive
// ("sm_80", "texmode_independent", "debug", ...).
func (d *Directive) Targets() []string {
	if d.Name != ".target" {
		return nil
	}
	var ts []string
	want := true
	for _, t := range d.Args {
		switch {
		case t.Kind == COMMA && !want:
			want = true
		case t.Kind == IDENT && want:
			ts = append(ts, t.Text)
			want = false
		default:
			return nil
		}
	}
	if want {
		return nil
	}
	return ts
}

// SM returns the first sm_NN target as NN*10 for "sm_NN" (so sm_90a gives 90
// with arch-specific suffix "a"), or 0.
func (d *Directive) SM() (sm int, suffix string) {
	for _, t := range d.Targets() {
		if strings.HasPrefix(t, "sm_") || strings.HasPrefix(t, "compute_") {
			s := t[strings.IndexByte(t, '_')+1:]
			j := 0
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			n, err := strconv.Atoi(s[:j])
			if err == nil {
				return n, s[j:]
			}
		}
	}
	return 0, ""
}

// AddressSize returns the argument of .address_size.
func (d *Directive) AddressSize() (int, bool) {
	if d.Name != ".address_size" || len(d.Args) != 1 || d.Args[0].Kind != INT {
		return 0, false
	}
	n, err := parseInt(d.Args[0].Text)
	return int(n), err == nil
}

// Ints returns the integer arguments of a directive such as .maxntid 256,1,1
// or .minnctapersm 2, skipping commas.
func (d *Directive) Ints() ([]int, bool) {
	var ns []int
	for i, t := range d.Args {
		if i%2 == 1 {
			if t.Kind != COMMA {
				return nil, false
			}
			continue
		}
		if t.Kind != INT {
			return nil, false
		}
		n, err := parseInt(t.Text)
		if err != nil {
			return nil, false
		}
		ns = append(ns, int(n))
	}
	return ns, len(ns) > 0 && len(d.Args)%2 == 1
}

// FileEntry is the content of a .file directive.
type FileEntry struct {
	Index     int
	Name      string // unquoted
	Timestamp int64  // optional, 0 when absent
	Size      int64  // optional, 0 when absent
}

// FileEntry decodes `.file N "name" [, timestamp, size]`.
func (d *Directive) FileEntry() (FileEntry, bool) {
	var fe FileEntry
	a := d.Args
	if d.Name != ".file" || len(a) < 2 || a[0].Kind != INT || a[1].Kind != STRING {
		return fe, false
	}
	n, err := parseInt(a[0].Text)
	if err != nil {
		return fe, false
	}
	fe.Index = int(n)
	fe.Name = unquote(a[1].Text)
	rest := a[2:]
	if len(rest) >= 2 && rest[0].Kind == COMMA && rest[1].Kind == INT {
		fe.Timestamp, _ = parseInt(rest[1].Text)
		rest = rest[2:]
	}
	if len(rest) >= 2 && rest[0].Kind == COMMA && rest[1].Kind == INT {
		fe.Size, _ = parseInt(rest[1].Text)
		rest = rest[2:]
	}
	return fe, len(rest) == 0
}

// unquote strips the quotes of a PTX string literal. PTX file names are
// taken literally (Windows paths keep their backslashes), so only the
// surrounding quotes are removed.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return strings.Trim(s, `"`)
}

// Loc is the content of a .loc directive.
type Loc struct {
	File, Line, Col int
	Function        string // function_name label, or ""
	FunctionOffset  int64  // "+ offset" after the function_name label
	Inlined         bool   // an inlined_at clause is present
	InlinedFile     int
	InlinedLine     int
	InlinedCol      int
}

// Loc decodes `.loc file line col [, function_name label [+ off]]
// [, inlined_at file line col]`.
func (d *Directive) Loc() (Loc, bool) {
	var l Loc
	a := d.Args
	if d.Name != ".loc" || len(a) < 3 {
		return l, false
	}
	var ok bool
	if l.File, l.Line, l.Col, ok = three(a); !ok {
		return l, false
	}
	a = a[3:]
	for len(a) > 0 {
		if a[0].Kind != COMMA || len(a) < 2 {
			return l, false
		}
		a = a[1:]
		switch a[0].Text {
		case "function_name":
			if len(a) < 2 || a[1].Kind != IDENT {
				return l, false
			}
			l.Function = a[1].Text
			a = a[2:]
			if len(a) >= 2 && a[0].Kind == PLUS && a[1].Kind == INT {
				l.FunctionOffset, _ = parseInt(a[1].Text)
				a = a[2:]
			}
		case "inlined_at":
			if len(a) < 4 {
				return l, false
			}
			l.Inlined = true
			if l.InlinedFile, l.InlinedLine, l.InlinedCol, ok = three(a[1:]); !ok {
				return l, false
			}
			a = a[4:]
		default:
			return l, false
		}
	}
	return l, true
}

func three(a []Token) (x, y, z int, ok bool) {
	if len(a) < 3 || a[0].Kind != INT || a[1].Kind != INT || a[2].Kind != INT {
		return 0, 0, 0, false
	}
	vx, e1 := parseInt(a[0].Text)
	vy, e2 := parseInt(a[1].Text)
	vz, e3 := parseInt(a[2].Text)
	return int(vx), int(vy), int(vz), e1 == nil && e2 == nil && e3 == nil
}

// NewDirective builds an unpositioned directive from its name and argument
// spellings; each argument becomes one token whose kind is guessed from its
// spelling.
func NewDirective(name string, semi bool, args ...string) *Directive {
	d := &Directive{Name: name, Semi: semi}
	for _, a := range args {
		d.Args = append(d.Args, guessToken(a))
	}
	return d
}

// guessToken makes an unpositioned token for a spelling.
func guessToken(s string) Token {
	if s == "" {
		return Token{Kind: ILLEGAL}
	}
	toks, kinds := lex(s, 0, nil, nil, func(int, string) {})
	if len(toks) == 1 {
		return Token{Kind: kinds[0], Text: s}
	}
	return Token{Kind: RAW, Text: s}
}
