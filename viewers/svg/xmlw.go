package svg

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Escape returns s with the five XML special characters replaced by
// entities and every rune that XML 1.0 does not allow (most C0 controls,
// invalid UTF-8, U+FFFE/U+FFFF, lone surrogates) replaced by U+FFFD, so the
// result is safe as both element text and a double-quoted attribute value.
func Escape(s string) string {
	var b strings.Builder
	escapeTo(&b, s)
	return b.String()
}

type byteWriter interface {
	WriteString(string) (int, error)
	WriteRune(rune) (int, error)
}

func escapeTo(b byteWriter, s string) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '\'':
			b.WriteString("&#39;")
		case r == '\n':
			b.WriteString("&#xA;")
		case r == '\r':
			b.WriteString("&#xD;")
		case r == '\t':
			b.WriteString("&#x9;")
		case !xmlChar(r):
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
	}
}

// xmlChar reports whether r is in XML 1.0's Char production.
func xmlChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		(r >= 0x20 && r <= 0xD7FF) ||
		(r >= 0xE000 && r <= 0xFFFD) ||
		(r >= 0x10000 && r <= 0x10FFFF)
}

// Num formats a coordinate or length: fixed-point with at most two
// decimals, trailing zeros removed, no "-0", and non-finite values printed
// as 0 (callers skip those before they get here; this is a last guard so
// that no "NaN" ever reaches an attribute).
func Num(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	s := strconv.FormatFloat(v, 'f', 2, 64)
	s = trimZeros(s)
	if s == "-0" {
		return "0"
	}
	return s
}

func trimZeros(s string) string {
	if strings.IndexByte(s, '.') < 0 || strings.ContainsAny(s, "eE") {
		return s
	}
	s = strings.TrimRight(s, "0")
	s = strings.TrimSuffix(s, ".")
	return s
}

// FormatValue formats a data value for tooltips and legends: six
// significant digits with trailing zeros removed, plain decimal notation for
// 1e-4 ≤ |v| < 1e7, Go's %.4g exponent notation otherwise.
func FormatValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e-4 && a < 1e7 {
		// 6 significant digits, then trimmed.
		d := 5 - int(math.Floor(math.Log10(a)))
		if d < 0 {
			d = 0
		}
		s := trimZeros(strconv.FormatFloat(v, 'f', d, 64))
		if s == "-0" {
			return "0"
		}
		return s
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// doc is the SVG being built: a bytes.Buffer with helpers that keep the
// attribute order fixed.
type doc struct {
	bytes.Buffer
}

func (d *doc) s(parts ...string) {
	for _, p := range parts {
		d.WriteString(p)
	}
}

// text writes escaped character data.
func (d *doc) text(s string) { escapeTo(&d.Buffer, s) }

// attr writes ` name="escaped value"`.
func (d *doc) attr(name, value string) {
	d.WriteByte(' ')
	d.WriteString(name)
	d.WriteString(`="`)
	escapeTo(&d.Buffer, value)
	d.WriteByte('"')
}

// nattr writes ` name="Num(v)"`.
func (d *doc) nattr(name string, v float64) {
	d.WriteByte(' ')
	d.WriteString(name)
	d.WriteString(`="`)
	d.WriteString(Num(v))
	d.WriteByte('"')
}
